"""Surface drivers (android, desktop, web), shipped inside the wheel as `venusctl.drivers`.

Importing this package is cheap: each driver module imports its heavy library
(Playwright, adbutils, pyautogui) only when that driver is opened.
"""
