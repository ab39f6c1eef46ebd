"""The Android commands the simulated phone answers, each from the same state.

Output formats follow real devices closely enough for adbutils and venusctl's
parsers: `wm size`, `dumpsys window`, `dumpsys display`, `getprop`, `pm`, `cmd
package query-activities --brief`, `am`, `ime`, `settings`, `uiautomator dump`,
`screencap`, and `input` with every sub-command drivers use.
"""

from __future__ import annotations

import base64
import shlex
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from venusctl.sim.phone import hierarchy, render
from venusctl.sim.phone.app import ADB_IME, KEYCODES, SCREEN_ACTIVITY
from venusctl.sim.phone.shell import Result

if TYPE_CHECKING:
    from venusctl.sim.phone.phone import FakePhone

INPUT_USAGE = (b"Usage: input [<source>] <command> [<arg>...]\n\nThe commands and default "
               b"sources are:\n      text <string> (Default: touchscreen)\n      keyevent "
               b"<key code number or name> ...\n      tap <x> <y>\n      swipe <x1> <y1> <x2> "
               b"<y2> [duration(ms)]\n")
SOURCES = {"touchscreen", "keyboard", "mouse", "dpad", "stylus", "touchpad", "trackball"}


def ok(text: str = "") -> Result:
    return Result(text.encode())


def fail(text: str, code: int = 1) -> Result:
    return Result(err=text.encode(), code=code)


IDLE_ERROR = b"ERROR: could not get idle state.\n"
"""What `uiautomator dump` prints (exit code 0) when the screen never settles."""


class Commands:
    """`argv` in, `Result` out; everything recorded on the phone.

    Commands that take time on a real phone (see `PhoneConfig.realistic`) wait
    before they act, outside the phone's lock, so screenshots go on meanwhile."""

    def __init__(self, phone: FakePhone) -> None:
        self.phone = phone

    def line(self) -> Callable[[list[str], bytes], Result]:
        """The commands for one shell line: its `input` commands share one duration, as
        two processes started together on a phone take about the same time."""
        input_s = self.phone.seconds(self.phone.config.input_s)
        return lambda argv, stdin: self(argv, stdin, input_s)

    def __call__(self, argv: list[str], stdin: bytes, input_s: float = 0.0) -> Result:
        self.phone.executed.append(shlex.join(argv))
        handler = getattr(self, "cmd_" + argv[0].replace("-", "_"), None)
        if handler is None:
            return fail(f"/system/bin/sh: {argv[0]}: inaccessible or not found\n", 127)
        if argv[0] == "uiautomator":
            return self.cmd_uiautomator(argv[1:])
        if argv[0] == "input" and input_s:
            time.sleep(input_s)
        with self.phone.apps.lock:
            return handler(argv[1:])

    # ------------------------------------------------------------------- input
    def cmd_input(self, args: list[str]) -> Result:
        if args and args[0] in SOURCES:
            args = args[1:]
        if not args:
            return Result(err=INPUT_USAGE, code=1)
        sub, rest = args[0], args[1:]
        apps = self.phone.apps
        scale = self.phone.input_point
        try:
            if sub == "tap":
                apps.tap(*scale(rest[0], rest[1]))
            elif sub == "swipe":
                apps.swipe(scale(rest[0], rest[1]), scale(rest[2], rest[3]), _ms(rest[4:], 300))
            elif sub == "draganddrop" and self.phone.config.draganddrop:
                apps.drag(scale(rest[0], rest[1]), scale(rest[2], rest[3]), _ms(rest[4:], 300))
            elif sub == "text":
                return self._input_text(" ".join(rest))
            elif sub == "keyevent":
                for key in rest:
                    apps.key(int(key) if key.isdigit() else KEYCODES[key])
            else:
                return Result(err=b"Error: Unknown command: " + sub.encode() + b"\n" + INPUT_USAGE,
                              code=1)
        except (IndexError, ValueError, KeyError) as exc:
            return fail(f"Error: bad arguments for input {sub}: {exc}\n")
        return ok()

    def _input_text(self, text: str) -> Result:
        if any(ord(ch) > 126 or ord(ch) < 32 for ch in text):
            return fail("Exception occurred while executing 'text':\njava.lang.RuntimeException:"
                        " unable to map characters to key events\n", 255)
        self.phone.apps.insert(text.replace("%s", " "))
        return ok()

    # ----------------------------------------------------------------- screens
    def cmd_screencap(self, args: list[str]) -> Result:
        image = self.phone.frame()
        png = "-p" in args
        paths = [a for a in args if not a.startswith("-")]
        data = render.png_frame(image) if png else render.raw_frame(image, self.phone.config.sdk)
        if paths:
            self.phone.state.files[paths[-1]] = data
            return ok()
        if png or self.phone.config.raw_screencap:
            return Result(data)
        return fail("screencap: raw output is not supported on this phone\n")

    def cmd_wm(self, args: list[str]) -> Result:
        config = self.phone.config
        if args[:1] == ["size"]:
            text = "Physical size: {}x{}\n".format(*config.size)
            if config.override_size:
                text += "Override size: {}x{}\n".format(*config.override_size)
            return ok(text)
        if args[:1] == ["density"]:
            text = f"Physical density: {config.density}\n"
            if config.override_density:
                text += f"Override density: {config.override_density}\n"
            return ok(text)
        return fail(f"Unknown command: wm {' '.join(args)}\n")

    def cmd_dumpsys(self, args: list[str]) -> Result:
        package, activity = SCREEN_ACTIVITY[self.phone.state.screen]
        component = f"{package}/{package}{activity}" if activity.startswith(".") else activity
        service = args[0] if args else ""
        if service == "window":
            return ok(
                "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
                "  Window #0 Window{1f2e3d4 u0 com.android.systemui/StatusBar}:\n"
                f"  mCurrentFocus=Window{{8a7b6c5 u0 {component}}}\n"
                f"  mFocusedApp=ActivityRecord{{5c6d7e8 u0 {package}/{activity} t17}}\n")
        if service == "display":
            w, h = self.phone.logical_size()
            rotation = self.phone.config.rotation
            return ok(f"DISPLAY MANAGER (dumpsys display)\n  mViewports=[DisplayViewport{{type="
                      f"INTERNAL, valid=true, isActive=true, displayId=0, orientation={rotation},"
                      f" logicalFrame=Rect(0, 0 - {w}, {h}), deviceWidth={w}, "
                      f"deviceHeight={h}}}]\n")
        if service == "activity":
            record = f"ActivityRecord{{5c6d7e8 u0 {package}/{activity} t17}}"
            return ok(f"  mResumedActivity: {record}\n")
        return ok("")

    def cmd_uiautomator(self, args: list[str]) -> Result:
        """`uiautomator dump [PATH]`; on a realistic phone it takes seconds and fails
        when the screen animates at any time during them."""
        if args[:1] != ["dump"]:
            return fail("Usage: uiautomator <subcommand> [options]\n")
        path = args[1] if len(args) > 1 and not args[1].startswith("-") else \
            "/sdcard/window_dump.xml"
        seconds = self.phone.seconds(self.phone.config.dump_s)
        started = time.monotonic()
        if seconds:
            time.sleep(seconds)
        with self.phone.apps.lock:
            if seconds and self.phone.state.animate_until > started:
                return Result(err=IDLE_ERROR)
            screen = self.phone.state.screen
            xml = hierarchy.dump(self.phone.apps.widgets(), SCREEN_ACTIVITY[screen][0],
                                 self.phone.config.rotation)
            self.phone.state.files[path] = xml.encode()
        return ok(f"UI hierchary dumped to: {path}\n")

    # ------------------------------------------------------------------ system
    def cmd_getprop(self, args: list[str]) -> Result:
        props = self.phone.properties()
        if args:
            return ok(props.get(args[0], "") + "\n")
        return ok("".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())))

    def cmd_pm(self, args: list[str]) -> Result:
        if args[:2] == ["list", "packages"]:
            wanted = [a for a in args[2:] if not a.startswith("-")]
            packages = [p for p in self.phone.packages() if not wanted or wanted[0] in p]
            return ok("".join(f"package:{p}\n" for p in packages))
        if args[:1] == ["path"] and len(args) > 1 and args[1] in self.phone.packages():
            return ok(f"package:/data/app/{args[1]}-1/base.apk\n")
        return fail("Error: unknown or failed pm command\n")

    def cmd_cmd(self, args: list[str]) -> Result:
        if args[:2] == ["package", "query-activities"]:
            lines = [f"{len(self.phone.launchable())} activities found:"]
            for i, (package, activity) in enumerate(self.phone.launchable()):
                lines += [f"  Activity #{i}:", "    priority=0 preferredOrder=0 match=0x108000 "
                          "specificIndex=-1 isDefault=false", f"    {package}/{activity}"]
            return ok("\n".join(lines) + "\n")
        if args[:1] == ["package"]:
            return self.cmd_pm(args[1:])
        return fail(f"cmd: Can't find service: {args[0] if args else ''}\n", 20)

    def cmd_am(self, args: list[str]) -> Result:
        if args[:1] == ["start"]:
            component = _option(args, "-n")
            package = component.split("/")[0] if component else None
            if package is None or not self.phone.apps.launch(package):
                return Result(b"Starting: Intent { cmp=%s }\n" % (component or "").encode(),
                              b"Error: Activity class {%s} does not exist.\n"
                              % (component or "").encode(), 1)
            return ok(f"Starting: Intent {{ act=android.intent.action.MAIN cmp={component} }}\n")
        if args[:1] == ["broadcast"]:
            return self._broadcast(args[1:])
        if args[:1] == ["force-stop"]:
            return ok()
        return fail("Error: unknown am command\n")

    def _broadcast(self, args: list[str]) -> Result:
        action = _option(args, "-a") or ""
        self.phone.state.broadcasts.append(shlex.join(["am", "broadcast", *args]))
        state, apps = self.phone.state, self.phone.apps
        if action in ("ADB_INPUT_B64", "ADB_INPUT_TEXT") and self.phone.config.adb_keyboard \
                and state.ime == ADB_IME:
            message = _extra(args, "msg")
            if message is not None:
                text = base64.b64decode(message).decode() if action == "ADB_INPUT_B64" \
                    else message
                apps.insert(text)
        elif action == "clipper.set" and self.phone.config.clipper:
            state.clipboard = _extra(args, "text") or ""
        elif action == "android.intent.action.MEDIA_SCANNER_SCAN_FILE":
            self.phone.scanned.append(_option(args, "-d") or "")
        return ok(f"Broadcasting: Intent {{ act={action} flg=0x400000 }}\n"
                  "Broadcast completed: result=0\n")

    def cmd_monkey(self, args: list[str]) -> Result:
        package = _option(args, "-p")
        if package and self.phone.apps.launch(package):
            return ok("  bash arg: -p\nEvents injected: 1\n")
        return fail("** No activities found to run, monkey aborted.\n", 252)

    def cmd_ime(self, args: list[str]) -> Result:
        state = self.phone.state
        installed = self.phone.imes()
        if args[:1] == ["list"]:
            shown = installed if "-a" in args else [i for i in installed
                                                    if i in state.enabled_imes]
            return ok("".join(f"{i}\n" for i in shown))
        if args[:1] in (["enable"], ["set"]) and len(args) > 1:
            if args[1] not in installed:
                return fail(f"Unknown input method {args[1]} cannot be enabled for user #0\n")
            state.enabled_imes.add(args[1])
            if args[0] == "set":
                state.ime = args[1]
                return ok(f"Input method {args[1]} selected for user #0\n")
            return ok(f"Input method {args[1]}: now enabled for user #0\n")
        return fail("Unknown ime command\n")

    def cmd_settings(self, args: list[str]) -> Result:
        if args[:3] == ["get", "secure", "default_input_method"]:
            return ok(self.phone.state.ime + "\n")
        if args[:1] == ["get"]:
            return ok("null\n")
        if args[:1] == ["put"]:
            return ok()
        return fail("usage: settings get|put NAMESPACE KEY [VALUE]\n")

    # ------------------------------------------------------------------- files
    def cmd_cat(self, args: list[str]) -> Result:
        out = b""
        for path in args:
            if path not in self.phone.state.files:
                return Result(out, f"cat: {path}: No such file or directory\n".encode(), 1)
            out += self.phone.state.files[path]
        return Result(out)

    def cmd_rm(self, args: list[str]) -> Result:
        for path in (a for a in args if not a.startswith("-")):
            self.phone.state.files.pop(path, None)
        return ok()

    def cmd_mkdir(self, args: list[str]) -> Result:
        return ok()


def _ms(rest: list[str], default: int) -> int:
    return int(rest[0]) if rest else default


def _option(args: list[str], flag: str) -> str | None:
    """The word after `flag`."""
    if flag not in args:
        return None
    index = args.index(flag) + 1
    return args[index] if index < len(args) else None


def _extra(args: list[str], key: str) -> str | None:
    """A string extra of an intent: `--es KEY VALUE` or `-e KEY VALUE`."""
    for i, word in enumerate(args[:-2]):
        if word in ("--es", "-e") and args[i + 1] == key:
            return args[i + 2]
    return None

