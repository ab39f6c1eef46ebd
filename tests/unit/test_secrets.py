"""Secrets: the keyring store, the CLI, the typing wrapper and the scrubbing around it."""

from __future__ import annotations

import io
import logging

import pytest
from PIL import Image, ImageStat

from tests.support.fakes import FakeDriver
from tests.support.keyring_env import file_keyring_backend
from venusctl.cli import run_cli
from venusctl.core.actions import Sequence, Surface, Type
from venusctl.core.errors import ActionFailed, DeviceError, UsageError
from venusctl.core.grid import ScreenSize
from venusctl.drivers.base import Element, Screen
from venusctl.drivers.capabilities import Capability
from venusctl.records.store import StepRecord
from venusctl.run.observers import RedactingObservers
from venusctl.safety.redact import Redactor, install_log_filter
from venusctl.safety.secret_driver import SecretDriver
from venusctl.safety.secrets import SecretStore, names_in, placeholder

VALUE = "c4n4ry-Zq81-value"


@pytest.fixture
def file_keyring():
    yield from file_keyring_backend()


def test_the_store_keeps_values_in_the_keyring_and_names_in_an_index(file_keyring):
    store = SecretStore()
    assert store.names() == []
    store.set("bank_pin", VALUE)
    store.set("desktop_password", "pw-123")
    assert store.names() == ["bank_pin", "desktop_password"]
    assert store.get("bank_pin") == VALUE
    assert VALUE.encode() not in file_keyring.read_bytes()  # the file backend encodes values
    store.delete("bank_pin")
    assert store.names() == ["desktop_password"] and store.get("bank_pin") is None
    with pytest.raises(UsageError, match="no secret named 'bank_pin'"):
        store.delete("bank_pin")
    with pytest.raises(UsageError, match="not a valid secret name"):
        store.set("two words", "x")
    with pytest.raises(UsageError, match="empty value"):
        store.set("empty", "")


def test_placeholders():
    assert placeholder("pin") == "{{secret:pin}}"
    assert names_in("a {{secret:pin}} b {{ secret:pin }} {{secret:other}}") == ["pin", "other"]


def test_the_secret_commands(file_keyring, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(VALUE + "\n"))
    assert run_cli(["secret", "set", "bank_pin"]) == 0
    assert SecretStore().get("bank_pin") == VALUE  # the trailing newline is not kept
    assert run_cli(["secret", "list"]) == 0
    assert run_cli(["secret", "list", "--json"]) == 0
    assert run_cli(["secret", "delete", "bank_pin"]) == 0
    assert run_cli(["secret", "delete", "bank_pin"]) == 2
    out = capsys.readouterr()
    assert "bank_pin\t{{secret:bank_pin}}" in out.out and '["bank_pin"]' in out.out
    assert "no secret named 'bank_pin'" in out.err
    assert VALUE not in out.out + out.err


class LeakyDriver(FakeDriver):
    """Echoes what it typed in errors and labels, and shows a password field."""

    capabilities = frozenset({Capability.SENSITIVE_REGIONS})

    def perform(self, action):
        if isinstance(action, Type) and "fail" in action.content:
            raise ActionFailed(f"could not type {action.content!r}")
        if isinstance(action, Type) and "gone" in action.content:
            raise DeviceError(f"device lost while typing {action.content}")
        return super().perform(action)

    def describe(self, x, y):
        typed = [a.content for a in self.performed if isinstance(a, Type)]
        return Element(text=f"Thank you, {typed[-1] if typed else ''}", bounds=(0, 0, 10, 10))

    def sensitive_regions(self):
        return [(100, 100, 200, 50)]


def wrapped(file_keyring, **values):
    store = SecretStore()
    for name, value in values.items():
        store.set(name, value)
    inner = LeakyDriver(surface=Surface.BROWSER)
    return SecretDriver(inner, store, Redactor()), inner


def test_the_wrapper_types_the_value_and_scrubs_it_from_what_comes_back(file_keyring):
    driver, inner = wrapped(file_keyring, pin=VALUE, fail="fail-" + VALUE)
    driver.perform(Type("{{secret:pin}}\n"))
    assert inner.performed[-1] == Type(VALUE + "\n")
    driver.perform(Sequence((Type("user"), Type("{{secret:pin}}"))))
    assert inner.performed[-1] == Sequence((Type("user"), Type(VALUE)))
    element = driver.describe(1, 1)
    assert element.text.strip() == "Thank you, [secret:pin]" and element.bounds == (0, 0, 10, 10)
    with pytest.raises(ActionFailed) as failed:
        driver.perform(Type("{{secret:fail}}"))
    assert VALUE not in str(failed.value) and "[secret:fail]" in str(failed.value)
    with pytest.raises(ActionFailed, match=r"no secret named 'nope'.*venusctl secret set nope"):
        driver.perform(Type("{{secret:nope}}"))


def test_device_errors_are_scrubbed_too(file_keyring):
    driver, _ = wrapped(file_keyring, gone="gone-" + VALUE)
    with pytest.raises(DeviceError) as lost:
        driver.perform(Type("{{secret:gone}}"))
    assert VALUE not in str(lost.value)


def test_password_fields_are_blurred_in_the_screenshot(file_keyring):
    """The field at (100, 100, 200, 50) in 1000x500 screen units, on a 500x250 image."""
    driver, inner = wrapped(file_keyring)
    noisy = Image.effect_noise((500, 250), 90).convert("RGB")
    data = io.BytesIO()
    noisy.save(data, "PNG")
    inner.screenshot = lambda: Screen(data.getvalue(), "image/png", ScreenSize(1000, 500))
    shown = Image.open(io.BytesIO(driver.screenshot().data)).convert("RGB")
    field = (50, 50, 150, 75)
    assert _spread(shown.crop(field)) < _spread(noisy.crop(field)) / 3
    elsewhere = (200, 120, 400, 240)
    assert shown.crop(elsewhere).tobytes() == noisy.crop(elsewhere).tobytes()


def _spread(image: Image.Image) -> float:
    return ImageStat.Stat(image.convert("L")).stddev[0]


def test_observers_and_logs_get_scrubbed_text(caplog):
    redactor = Redactor()
    redactor.add("pin", VALUE)

    class Keep:
        def __init__(self):
            self.seen = []

        def step_finished(self, record):
            self.seen.append(record)

        def model_text(self, step, text):
            self.seen.append(text)

    keep = Keep()
    observers = RedactingObservers(redactor, [keep])
    record = StepRecord(step=1, started_at=0.0, raw=f"I see {VALUE}", error=f"x {VALUE}",
                        element={"text": VALUE, "bounds": [1, 2, 3, 4]})
    observers.step_finished(record)
    observers.model_text(1, f"thinking about {VALUE}")
    assert VALUE not in repr(keep.seen) and "[secret:pin]" in keep.seen[0].raw
    assert keep.seen[0].element["bounds"] == [1, 2, 3, 4]
    handler = logging.StreamHandler(io.StringIO())
    logging.getLogger().addHandler(handler)
    try:
        install_log_filter(redactor)
        logging.getLogger("venusctl.test").warning("typed %s", VALUE)
        assert VALUE not in handler.stream.getvalue()
        assert "[secret:pin]" in handler.stream.getvalue()
    finally:
        logging.getLogger().removeHandler(handler)
