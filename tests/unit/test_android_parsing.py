"""Pure parsing of what phones print: raw frames, sizes, focus, UI dumps, devices."""

from __future__ import annotations

import struct

import pytest
from PIL import Image

from venusctl.core.errors import ActionFailed, DeviceError, UsageError
from venusctl.core.grid import ScreenSize
from venusctl.drivers.android.adb import (
    AdbAddress,
    Attached,
    _split_v2,
    choose_serial,
    server_address,
)
from venusctl.drivers.android.devices import parse_details
from venusctl.drivers.android.driver import parse_focus
from venusctl.drivers.android.screen import (
    CaptureError,
    Capturer,
    decode_raw,
    orient,
    parse_density,
    parse_wm_size,
)
from venusctl.drivers.android.ui import element_at, node_at, parse_hierarchy, password_regions

RED, BLUE = (255, 0, 0), (0, 0, 255)


def raw(width: int, height: int, fmt: int, pixels: bytes, colour_space: bool = True) -> bytes:
    header = struct.pack("<III", width, height, fmt)
    return header + (struct.pack("<I", 0) if colour_space else b"") + pixels


@pytest.mark.parametrize("colour_space", [True, False])
def test_raw_rgba_with_and_without_colour_space(colour_space: bool) -> None:
    pixels = bytes([255, 0, 0, 255, 0, 0, 255, 255]) * 3  # 2x3, red then blue per row
    image = decode_raw(raw(2, 3, 1, pixels, colour_space))
    assert image.size == (2, 3)
    assert image.getpixel((0, 2)) == RED
    assert image.getpixel((1, 2)) == BLUE


def test_raw_other_formats() -> None:
    assert decode_raw(raw(1, 1, 2, bytes([0, 0, 255, 0]))).getpixel((0, 0)) == BLUE  # RGBX
    assert decode_raw(raw(1, 1, 3, bytes([255, 0, 0]))).getpixel((0, 0)) == RED  # RGB_888
    assert decode_raw(raw(2, 1, 4, struct.pack("<HH", 0xF800, 0x001F))).getpixel(
        (0, 0)) == RED  # RGB_565
    assert decode_raw(raw(1, 1, 5, bytes([255, 0, 0, 255]))).getpixel((0, 0)) == BLUE  # BGRA


def test_raw_rows_padded_to_a_stride() -> None:
    row = bytes([255, 0, 0, 255]) * 3 + bytes(4)  # 3 pixels + one pixel of padding
    image = decode_raw(raw(3, 2, 1, row * 2))
    assert image.size == (3, 2)
    assert image.getpixel((2, 1)) == RED


@pytest.mark.parametrize("data", [b"", raw(4, 4, 1, bytes(10)), raw(2, 2, 99, bytes(16)),
                                  raw(0, 2, 1, b"")],
                         ids=["empty", "truncated", "unknown-format", "zero-width"])
def test_bad_raw_frames_are_capture_errors(data: bytes) -> None:
    with pytest.raises(CaptureError):
        decode_raw(data)


def test_wm_size_override_wins_and_density() -> None:
    text = "Physical size: 1080x2400\nOverride size: 720x1600\n"
    assert parse_wm_size(text) == (720, 1600)
    assert parse_wm_size("Physical size: 1080x2400") == (1080, 2400)
    assert parse_wm_size("garbage") is None
    assert parse_density("Physical density: 420\nOverride density: 360") == 360


def test_size_turns_with_the_frame() -> None:
    assert orient((1080, 2400), (2400, 1080)) == ScreenSize(2400, 1080)
    assert orient((1080, 2400), (1080, 2400)) == ScreenSize(1080, 2400)
    assert orient((720, 1600), (1080, 2400)) == ScreenSize(720, 1600)  # override, panel frame


def test_focus_from_dumpsys_window() -> None:
    text = ("  mCurrentFocus=Window{8a7 u0 com.example.shop/com.example.shop.CheckoutActivity}\n"
            "  mFocusedApp=ActivityRecord{5c6 u0 com.example.shop/.CheckoutActivity t17}\n")
    assert parse_focus(text) == ("com.example.shop", "com.example.shop.CheckoutActivity")
    popup = ("  mCurrentFocus=Window{1 u0 PopupWindow:3f2}\n"
             "  mFocusedApp=ActivityRecord{5c6 u0 com.android.settings/.Settings t3}\n")
    assert parse_focus(popup) == ("com.android.settings", "com.android.settings.Settings")
    assert parse_focus("mCurrentFocus=null") == (None, None)
    resumed = "  mResumedActivity: ActivityRecord{5c6 u0 com.example.notes/.MainActivity t4}"
    assert parse_focus(resumed) == ("com.example.notes", "com.example.notes.MainActivity")


DUMP = """UI hierchary dumped to: /data/local/tmp/x.xml
<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">
<node index="0" text="" class="android.widget.FrameLayout" package="com.example.shop"
 content-desc="" clickable="false" password="false" bounds="[0,0][540,960]">
 <node index="0" text="" class="android.widget.LinearLayout" package="com.example.shop"
  resource-id="com.example.shop:id/row" content-desc="" clickable="true" password="false"
  bounds="[0,100][540,200]">
  <node index="0" text="Wi-Fi" class="android.widget.TextView" package="com.example.shop"
   content-desc="" clickable="false" password="false" bounds="[20,100][300,200]" />
  <node index="1" text="" class="android.widget.Switch" package="com.example.shop"
   content-desc="Wi-Fi" checkable="true" checked="true" clickable="true" password="false"
   bounds="[400,120][500,180]" />
 </node>
 <node index="1" text="&#8226;&#8226;&#8226;" class="android.widget.EditText"
  package="com.example.shop" resource-id="com.example.shop:id/pin" content-desc=""
  clickable="true" password="true" focused="true" bounds="[20,300][520,380]" />
 <node index="2" text="" class="android.widget.Button" package="com.example.shop"
  content-desc="" clickable="true" password="false" bounds="[20,400][520,480]">
  <node index="0" text="Pay 4.50 EUR" class="android.widget.TextView"
   package="com.example.shop" content-desc="" clickable="false" password="false"
   bounds="[20,400][520,480]" />
 </node>
</node></hierarchy>"""


def test_hierarchy_smallest_node_wins() -> None:
    nodes = parse_hierarchy(DUMP)
    assert len(nodes) == 7
    assert node_at(nodes, 450, 150).attrs["class"] == "android.widget.Switch"
    assert node_at(nodes, 5, 5).attrs["class"] == "android.widget.FrameLayout"
    assert node_at(nodes, 600, 5) is None


def test_text_inside_a_clickable_row_answers_as_the_row() -> None:
    element = element_at(parse_hierarchy(DUMP), 100, 150)
    assert element is not None
    assert element.text == "Wi-Fi" and element.clickable is True  # the switch speaks apart
    assert element.resource_id == "com.example.shop:id/row"
    assert element.extra["leaf_text"] == "Wi-Fi"
    assert element.bounds == (0, 100, 540, 100)


def test_switch_password_and_button_label() -> None:
    nodes = parse_hierarchy(DUMP)
    switch = element_at(nodes, 450, 150)
    assert switch is not None and switch.role == "switch" and switch.extra["checked"] is True
    pin = element_at(nodes, 100, 340)
    assert pin is not None and pin.password and pin.input_type == "password"
    pay = element_at(nodes, 100, 440)
    assert pay is not None and pay.text == "Pay 4.50 EUR" and pay.clickable
    assert password_regions(nodes) == [(20, 300, 500, 80)]


def test_background_borrows_no_label() -> None:
    element = element_at(parse_hierarchy(DUMP), 5, 900)
    assert element is not None and element.text is None and element.clickable is False


def test_hierarchy_without_xml_is_an_error() -> None:
    with pytest.raises(ValueError):
        parse_hierarchy("ERROR: could not get idle state.")


def test_server_address_from_the_environment() -> None:
    assert server_address({}) == AdbAddress("127.0.0.1", 5037)
    assert server_address({"ANDROID_ADB_SERVER_PORT": "6001"}) == AdbAddress("127.0.0.1", 6001)
    assert server_address({"ADB_SERVER_SOCKET": "tcp:10.0.0.2:5038",
                           "ANDROID_ADB_SERVER_PORT": "6001"}) == AdbAddress("10.0.0.2", 5038)
    with pytest.raises(UsageError):
        server_address({"ADB_SERVER_SOCKET": "localfilesystem:/tmp/adb"})
    with pytest.raises(UsageError):
        server_address({"ANDROID_ADB_SERVER_PORT": "many"})


def test_choosing_a_phone() -> None:
    one = [Attached("R58M1", "device")]
    assert choose_serial(one, None) == "R58M1"
    assert choose_serial([*one, Attached("emu", "device")], "emu") == "emu"
    with pytest.raises(UsageError, match="R58M1 \\(device\\), emu \\(offline\\)"):
        choose_serial([*one, Attached("emu", "offline")], None)
    with pytest.raises(DeviceError, match="no Android phone"):
        choose_serial([], None)
    with pytest.raises(DeviceError, match="no phone with serial X"):
        choose_serial(one, "X")
    with pytest.raises(DeviceError, match="Allow USB debugging"):
        choose_serial([Attached("R58M1", "unauthorized")], None)


def test_shell_v2_packets() -> None:
    data = (struct.pack("<BI", 1, 3) + b"out" + struct.pack("<BI", 2, 3) + b"err"
            + struct.pack("<BIB", 3, 1, 7))
    assert _split_v2(data) == (b"out", b"err", 7)
    assert _split_v2(data[:-6]) is None, "no exit packet: the stream was cut"


def test_device_details() -> None:
    text = "Pixel 8\n14\n34\nPhysical size: 1080x2400\nPhysical density: 420\n"
    assert parse_details(text) == {"model": "Pixel 8", "android": "14", "sdk": 34,
                                   "screen": "1080x2400", "density": 420}
    assert parse_details("\n\n\n")["screen"] is None


def png_bytes(colour: tuple[int, int, int]) -> bytes:
    import io

    buffer = io.BytesIO()
    Image.new("RGB", (2, 2), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def test_capturer_measures_and_keeps_the_faster_path() -> None:
    calls: list[str] = []

    def binary(command: str) -> bytes:
        calls.append(command)
        if command == "screencap":
            return raw(2, 2, 1, bytes([255, 0, 0, 255]) * 4)
        return png_bytes(BLUE)

    capturer = Capturer(binary)
    first = capturer.grab()
    assert set(capturer.timings) == {"raw", "png"}
    assert capturer.path in ("raw", "png") and first.path == capturer.path
    calls.clear()
    capturer.grab()
    assert calls == ["screencap" if capturer.path == "raw" else "screencap -p"]


def test_capturer_falls_back_when_raw_breaks() -> None:
    def binary(command: str) -> bytes:
        if command == "screencap":
            raise ActionFailed("'screencap' failed on the phone (exit code 1)")
        return png_bytes(RED)

    capturer = Capturer(binary, path="raw")
    frame = capturer.grab()
    assert frame.path == "png" and capturer.path == "png" and frame.png is not None


def test_capturer_without_any_path_is_a_device_error() -> None:
    capturer = Capturer(lambda command: b"not an image")
    with pytest.raises(DeviceError, match="no screenshots"):
        capturer.grab()


def test_without_driver_and_without_an_adb_server_ask_for_a_driver(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    from venusctl.drivers.factory import DriverOptions, choose_driver

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(port))
    monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
    with pytest.raises(UsageError, match=r"^choose a surface with --driver web\|desktop\|android$"):
        choose_driver(DriverOptions())
