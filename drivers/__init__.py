"""Surfaces: the driver seam, capabilities, wrappers, the factory and one subpackage per surface.
Nothing about models, prompts or the loop: a driver observes and acts when asked.

Importing this package is cheap: each driver module imports its heavy library
(Playwright, adbutils, pyautogui) only when that driver is opened.
"""
