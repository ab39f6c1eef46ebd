"""An Android phone over adb: screenshots, input, the UI hierarchy, apps and the keyboard.
Everything phone-specific lives here; the loop sees only the driver seam.
"""
