"""Trajectory cache entries: keys, fingerprints, the file format and the folder."""

from __future__ import annotations

import io
import json
import os
import stat

import pytest
from PIL import Image, ImageDraw

from venusctl.cache.entry import CachedStep, EntryError, Trajectory, element_label, read_entry
from venusctl.cache.fingerprint import distance, fingerprint, pixel_digest
from venusctl.cache.key import TrajectoryKey, normalise_task, place_of
from venusctl.cache.options import DEFAULT_MAX_DISTANCE, CacheMode, resolve_cache
from venusctl.cache.store import CacheUnusable, TrajectoryStore
from venusctl.core.errors import UsageError
from venusctl.core.grid import ScreenSize
from venusctl.drivers.base import Screen, ScreenContext


def page(boxes: list[tuple[int, int, int, int]], text: str = "", size=(320, 200)) -> bytes:
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    for box in boxes:
        draw.rectangle(box, fill=(30, 60, 200))
    if text:
        draw.text((10, 170), text, fill="black")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def screen(data: bytes, url: str | None = "https://Shop.Example:8443/cart",
           app: str | None = None) -> Screen:
    return Screen(data, "image/png", ScreenSize(1280, 800), ScreenContext(app=app, url=url))


def step(number: int, action: str, kind: str, **extra) -> CachedStep:
    fields = {"prompt": "Current Screenshot:", "fingerprint": "0" * 64, "pixels": "p"}
    fields.update(extra)
    return CachedStep(step=number, answer=f"<think>t{number}</think>\n<action>{action}</action>",
                      action=action, action_kind=kind, **fields)


def trajectory(*steps: CachedStep) -> Trajectory:
    steps = steps or (step(1, "Click(point=(10, 20))", "Click",
                           element={"role": "button", "name": "Go"}),
                      step(2, "Finished(content='done')", "Finished"))
    key = TrajectoryKey("open the cart", "browser", "shop.example", 1280, 800)
    return Trajectory(key, "Open the cart.", tuple(steps), "run-1", "scripted", 1.0)


# ------------------------------------------------------------------ keys


def test_the_same_task_written_differently_has_one_key():
    assert normalise_task("  Order a GREEN one.\n") == normalise_task("order  a green one")
    assert normalise_task("Ｏrder　a green one！") == "order a green one"  # full-width forms
    assert normalise_task("order a green one") != normalise_task("order a red one")


def test_the_key_names_the_site_without_its_port_or_the_app():
    assert place_of(screen(b"", url="https://Shop.Example:8443/cart")) == "shop.example"
    assert place_of(screen(b"", url=None, app="com.example.notes")) == "com.example.notes"
    assert place_of(screen(b"", url=None)) == ""
    first = TrajectoryKey.of("Open the cart.", "browser", screen(b""))
    again = TrajectoryKey.of("open the cart", "browser",
                             screen(b"", url="http://shop.example/other"))
    assert first == again and first.id == again.id and len(first.id) == 16
    wider = Screen(b"", "image/png", ScreenSize(1920, 1080), ScreenContext(url="http://x/"))
    assert TrajectoryKey.of("open the cart", "browser", wider).id != first.id


# ------------------------------------------------------------ fingerprints


def test_fingerprints_tell_a_changed_screen_from_the_same_one():
    form = page([(20, 20, 300, 50), (20, 80, 120, 110)])
    same = page([(20, 20, 300, 50), (20, 80, 120, 110)])
    banner = page([(20, 20, 300, 50), (20, 80, 120, 110), (0, 120, 320, 160)])
    assert distance(fingerprint(form), fingerprint(same)) == 0
    assert distance(fingerprint(form), fingerprint(banner)) > DEFAULT_MAX_DISTANCE
    assert pixel_digest(form) == pixel_digest(same) != pixel_digest(banner)
    jpeg = io.BytesIO()
    Image.open(io.BytesIO(form)).save(jpeg, format="JPEG", quality=80)
    assert distance(fingerprint(form), fingerprint(jpeg.getvalue())) <= DEFAULT_MAX_DISTANCE


def test_an_element_is_remembered_by_role_and_name_or_its_text():
    assert element_label({"role": "button", "name": "Pay", "text": "Pay now",
                          "bounds": [1, 2, 3, 4]}) == {"role": "button", "name": "Pay"}
    assert element_label({"role": "TextView", "text": "Save"}) == {"role": "TextView",
                                                                   "text": "Save"}
    assert element_label(None) is None and element_label({"bounds": [1, 2, 3, 4]}) is None


# ------------------------------------------------------------ file format


def test_an_entry_reads_back_as_written():
    written = trajectory()
    assert read_entry(written.to_json()) == written


@pytest.mark.parametrize(("change", "says"), [
    (lambda d: d["steps"][0].update(action="Click(point=(900, 900))"), "checksum"),
    (lambda d: d.update(schema="venusctl.trajectory/0"), "schema"),
])
def test_an_edited_or_foreign_entry_is_refused(change, says):
    data = json.loads(trajectory().to_json())
    change(data)
    with pytest.raises(EntryError, match=says):
        read_entry(json.dumps(data))


def test_an_entry_must_agree_with_todays_parser_and_end_the_task():
    wrong_action = trajectory(step(1, "Click(point=(10, 20))", "Click"),
                              step(2, "Finished(content='done')", "Finished"))
    data = wrong_action.payload()
    data["steps"][0]["answer"] = "<think>x</think>\n<action>Click(point=(11, 20))</action>"
    from venusctl.cache.entry import digest

    with pytest.raises(EntryError, match="does not match its own action"):
        read_entry(json.dumps({**data, "digest": digest(data)}))
    unfinished = trajectory(step(1, "Click(point=(10, 20))", "Click"))
    with pytest.raises(EntryError, match="does not end the task"):
        read_entry(unfinished.to_json())
    with pytest.raises(EntryError, match="not JSON"):
        read_entry('{"schema": "venusctl.trajectory/1", "steps": [')


def test_secrets_stay_placeholders_in_an_entry():
    typed = trajectory(step(1, "Type(content='{{secret:bank_pin}}')", "Type"),
                       step(2, "Finished(content='ok')", "Finished"))
    text = typed.to_json()
    assert "{{secret:bank_pin}}" in text
    assert read_entry(text).steps[0].action == "Type(content='{{secret:bank_pin}}')"


# ------------------------------------------------------------------ folder


def test_entries_are_private_files_written_atomically(tmp_path):
    store = TrajectoryStore(tmp_path / "cache")
    path = store.save(trajectory())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.folder.stat().st_mode) == 0o700
    assert [p.name for p in store.folder.iterdir()] == [path.name]  # no temporary left
    assert store.load(trajectory().key) == trajectory()
    newer = trajectory(step(1, "Finished(content='at once')", "Finished"))
    store.save(newer)
    assert store.load(newer.key) == newer


def test_an_entry_others_can_write_is_not_used(tmp_path):
    store = TrajectoryStore(tmp_path)
    path = store.save(trajectory())
    os.chmod(path, 0o666)
    with pytest.raises(CacheUnusable, match="writable by other users"):
        store.load(trajectory().key)


def test_an_entry_under_another_name_is_not_used(tmp_path):
    store = TrajectoryStore(tmp_path)
    path = store.save(trajectory())
    other = TrajectoryKey("something else", "browser", "shop.example", 1280, 800)
    path.rename(store.path_for(other))
    with pytest.raises(CacheUnusable, match="belongs to another task"):
        store.load(other)


def test_a_folder_that_is_not_one_is_unusable(tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("not a folder")
    with pytest.raises(CacheUnusable, match="is not a folder"):
        TrajectoryStore(blocker).load(trajectory().key)
    with pytest.raises(CacheUnusable, match="cannot write"):
        TrajectoryStore(blocker / "inner").save(trajectory())


def test_entries_are_listed_found_and_cleared(tmp_path):
    store = TrajectoryStore(tmp_path)
    first = store.save(trajectory())
    (tmp_path / "0123456789abcdef.json").write_text("{broken")
    os.chmod(tmp_path / "0123456789abcdef.json", 0o600)
    listed = store.entries()
    assert {e.id for e in listed} == {first.stem, "0123456789abcdef"}
    broken = next(e for e in listed if e.trajectory is None)
    assert "not JSON" in (broken.problem or "")
    assert store.find(first.stem[:6]) == first
    with pytest.raises(UsageError, match="not a cache entry id"):
        store.find("../etc")
    assert store.clear() == 2 and store.entries() == []


# ------------------------------------------------------------------ options


def test_modes_narrow_and_settings_resolve(monkeypatch, tmp_path):
    assert CacheMode.ON.narrowed(CacheMode.READ) is CacheMode.READ
    assert CacheMode.WRITE.narrowed(CacheMode.READ) is CacheMode.OFF
    assert CacheMode.parse(False) is CacheMode.OFF  # YAML reads `cache: off` as false
    with pytest.raises(UsageError, match="on, off, read or write"):
        CacheMode.parse("sometimes")
    assert resolve_cache(config={}).mode is CacheMode.ON
    assert resolve_cache(config={"mode": "read"}).mode is CacheMode.READ
    monkeypatch.setenv("VENUSCTL_CACHE", "write")
    assert resolve_cache(config={"mode": "read"}).mode is CacheMode.WRITE
    assert resolve_cache("off", config={"mode": "read"}).mode is CacheMode.OFF
    monkeypatch.setenv("VENUSCTL_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert resolve_cache(config={}).where() == tmp_path / "elsewhere"


def test_the_config_file_cache_table_is_checked(monkeypatch, tmp_path):
    config = tmp_path / "config.toml"
    monkeypatch.setenv("VENUSCTL_CONFIG", str(config))
    config.write_text('[cache]\nmode = "read"\ndir = "traj"\nmax_distance = 6\n')
    options = resolve_cache()
    assert options.mode is CacheMode.READ and options.max_distance == 6
    assert options.where() == (tmp_path / "traj").resolve()
    config.write_text('[cache]\nmood = "on"\n')
    with pytest.raises(UsageError, match="no setting mood"):
        resolve_cache()
    config.write_text('[cache]\nmax_distance = 999\n')
    with pytest.raises(UsageError, match="max_distance"):
        resolve_cache()
