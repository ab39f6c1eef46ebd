"""The words a desktop window shows in pixels, for `text_present` where the driver's
text falls short.

The desktop driver reads text through AT-SPI; a Tk window, an xterm, a game or a
drawn canvas publishes nothing there, so its driver text is its title alone. The
check then reads the active window from a screenshot with the safety engine's
Tesseract reader (`venusctl.safety.ocr`), which drivers may not import: OCR is done
here, above both.
"""

from __future__ import annotations

from venusctl.core.errors import VenusError
from venusctl.drivers.base import Driver
from venusctl.drivers.capabilities import Capability, able
from venusctl.safety.ocr import image_box, shared_reader

NO_OCR = ("text_present cannot read the window's pixels: Tesseract is missing "
          "(apt install tesseract-ocr-eng; pip install tesserocr)")


def read_active_window(driver: Driver) -> str:
    """Every line of text OCR finds in the active window (the whole screen when the
    driver cannot say where that window is)."""
    screen = driver.screenshot()
    image = screen.image
    size = (screen.size.width, screen.size.height)
    box = image_box(_active_bounds(driver), size, image.size) or (0, 0, *image.size)
    reader = shared_reader()
    if not reader.available():
        raise VenusError(NO_OCR)
    return reader.read_window(image, box, screen.context)


def _active_bounds(driver: Driver) -> object:
    """The active window's box (screen units) as the focus element carries it."""
    focus = able(driver, Capability.FOCUSED_ELEMENT)
    element = focus.focused_element() if focus is not None else None
    return element.extra.get("window_bounds") if element is not None else None
