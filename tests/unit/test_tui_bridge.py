"""Pause, single-step, take-over and abort as the agent's thread sees them."""

from __future__ import annotations

import threading

import pytest

from venusctl.tui.bridge import TAKEOVER_NOTE, Ask, Control, LiveBridge


def in_thread(target):
    result: dict = {}

    def run():
        try:
            result["value"] = target()
        except BaseException as exc:
            result["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, result


def test_free_running_never_blocks():
    control = Control()
    assert control.wait_turn() is None and control.may_act()


def test_paused_blocks_until_resumed():
    control = Control(start_paused=True)
    thread, result = in_thread(control.wait_turn)
    thread.join(0.15)
    assert thread.is_alive()
    assert control.toggle_pause() is False
    thread.join(2)
    assert not thread.is_alive() and result == {"value": None}


def test_single_step_lets_exactly_one_step_through():
    control = Control(start_paused=True)
    control.single_step()
    assert control.wait_turn() is None
    assert control.paused
    thread, _ = in_thread(control.wait_turn)
    thread.join(0.15)
    assert thread.is_alive()
    control.abort()
    thread.join(2)
    assert not thread.is_alive()


def test_take_over_refuses_the_pending_action_and_leaves_a_note():
    control = Control()
    control.take_over()
    assert control.may_act() is False
    thread, result = in_thread(control.wait_turn)
    thread.join(0.15)
    assert thread.is_alive()
    assert control.hand_back() is True
    thread.join(2)
    assert result["value"] == TAKEOVER_NOTE
    assert control.wait_turn() is None  # the note is given once
    assert control.hand_back() is False


def test_abort_raises_keyboard_interrupt_in_the_loop_thread():
    control = Control(start_paused=True)
    thread, result = in_thread(control.wait_turn)
    control.abort()
    thread.join(2)
    assert isinstance(result["error"], KeyboardInterrupt)
    with pytest.raises(KeyboardInterrupt):
        control.may_act()


def test_confirm_waits_for_the_answer_and_gives_up_on_abort():
    posted: list = []
    bridge = LiveBridge(posted.append)
    thread, result = in_thread(lambda: bridge.ask_user("which colour?"))
    thread.join(0.15)
    ask = posted[-1]
    assert isinstance(ask, Ask) and ask.kind == "question" and ask.payload == "which colour?"
    ask.answer.put(" green ")
    thread.join(2)
    assert result["value"] == "green"
    thread, result = in_thread(lambda: bridge.ask_user("again?"))
    thread.join(0.1)
    bridge.control.abort()
    thread.join(2)
    assert isinstance(result["error"], KeyboardInterrupt)
