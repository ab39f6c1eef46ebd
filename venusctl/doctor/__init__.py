"""`venusctl doctor`: is this machine ready (devices, browser, display, model files), and if
not, what exactly to do. It reads and probes; it never changes the machine.
"""
