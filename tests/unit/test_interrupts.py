"""Ctrl-C and SIGTERM held back during calls that must not be cut (core.interrupts),
with real signals sent to this process."""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType

import pytest

from venusctl.core import interrupts


def _signal(signum: int = signal.SIGINT) -> None:
    """Send a signal to ourselves; Python runs its handler before the next bytecode."""
    os.kill(os.getpid(), signum)


@pytest.fixture(autouse=True)
def python_handlers():
    """Python's own SIGINT handler and the CLI's SIGTERM one, as `venusctl` runs."""
    def to_interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    before = {s: signal.getsignal(s) for s in interrupts.SIGNALS}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, to_interrupt)
    yield
    for signum, handler in before.items():
        signal.signal(signum, handler)


def test_a_signal_inside_is_raised_when_the_block_ends():
    reached = []
    with pytest.raises(KeyboardInterrupt), interrupts.deferred():
        _signal()
        reached.append("after the signal")
    assert reached == ["after the signal"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):  # outside a block, Ctrl-C works at once again
        _signal()


def test_nested_blocks_deliver_once_at_the_outermost_end():
    reached = []
    with pytest.raises(KeyboardInterrupt), interrupts.deferred():
        with interrupts.deferred():
            _signal()
        reached.append("inner block ended")
    assert reached == ["inner block ended"]


def test_sigterm_reaches_the_handler_it_was_meant_for():
    with pytest.raises(KeyboardInterrupt), interrupts.deferred():
        _signal(signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is not interrupts._remember


def test_a_second_signal_is_raised_at_once_as_forced():
    reached = []
    with pytest.raises(interrupts.Forced), interrupts.deferred():
        _signal()
        reached.append("first kept")
        _signal()
        reached.append("never")
    assert reached == ["first kept"]
    _signal(signal.SIGCHLD)  # nothing is left over to deliver later
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_block_without_signals_ends_quietly():
    with interrupts.deferred():
        value = 1 + 1
    assert value == 2


def test_allowed_lets_a_prompt_be_interrupted_and_delivers_what_was_kept():
    with interrupts.deferred():
        with pytest.raises(KeyboardInterrupt), interrupts.allowed():
            _signal()  # at a prompt: at once
        assert signal.getsignal(signal.SIGINT) is interrupts._remember  # held again
        _signal()
        with pytest.raises(KeyboardInterrupt), interrupts.allowed():
            pass  # the one kept before the prompt is delivered on entering it
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_ignored_signal_stays_ignored():
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with interrupts.deferred():
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        _signal()
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_other_threads_are_left_alone():
    seen = []

    def worker() -> None:
        with interrupts.deferred():
            seen.append(signal.getsignal(signal.SIGINT))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [signal.default_int_handler]
