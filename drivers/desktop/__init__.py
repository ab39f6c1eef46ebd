"""The desktop of an X11/Wayland session: capture, input, windows and AT-SPI facts.
Everything desktop-specific lives here; the loop sees only the driver seam.
"""
