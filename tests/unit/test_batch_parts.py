"""The batch's parts that need no surface: phones and slots, the server balancer,
results files and resume, checks that need no driver."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest

from venusctl.batch.checks import CheckContext, run_checks
from venusctl.batch.models import Balancer, SharedModel, SpreadModel
from venusctl.batch.pool import PhoneSpec, PoolOptions, SlotPool, build_slots
from venusctl.batch.results import Attempt, ResultsWriter, TaskResult, read_results, summarise
from venusctl.batch.taskfile import Check, TaskSpec
from venusctl.core.errors import ModelError, UsageError
from venusctl.drivers.android.adb import AdbAddress
from venusctl.drivers.factory import DriverOptions, open_driver
from venusctl.model.base import Completion, SamplingOptions
from venusctl.run.build import ModelOptions


def spec(driver: str = "web", device: str | None = None, task_id: str = "t") -> TaskSpec:
    return TaskSpec(id=task_id, task="do it", driver=driver, index=1, device=device)


def test_phone_specs_name_a_serial_and_maybe_its_adb_server():
    assert PhoneSpec.parse("emulator-5554") == PhoneSpec("emulator-5554", None)
    assert PhoneSpec.parse("10.0.0.7:5555@lab:5037") == PhoneSpec(
        "10.0.0.7:5555", AdbAddress("lab", 5037))
    assert PhoneSpec.parse("@lab:5037") == PhoneSpec(None, AdbAddress("lab", 5037))
    with pytest.raises(UsageError, match="HOST:PORT"):
        PhoneSpec.parse("x@lab")


def test_one_reader_of_adb_server_addresses():
    assert AdbAddress.parse("lab-pc:5037") == AdbAddress("lab-pc", 5037)
    assert AdbAddress.parse("[::1]:5038") == AdbAddress("::1", 5038)
    for bad in ("lab-pc", ":5037", "lab:", "lab:50x7", ""):
        assert AdbAddress.parse(bad) is None, bad
    with pytest.raises(UsageError, match="the adb server must be HOST:PORT, not 'lab'"):
        open_driver(DriverOptions(driver="android", adb_server="lab"))


def test_slots_follow_the_tasks_and_pinned_phones_go_to_their_phone():
    tasks = (spec("web"), spec("android", "B@lab:5037", "p"), spec("desktop", task_id="d"))
    slots = build_slots(tasks, PoolOptions(concurrency=3, phones=("A@lab:5037",)))
    labels = [s.label for s in slots]
    assert labels == ["web-1", "web-2", "web-3", "A@lab:5037", "B@lab:5037", "desktop"]
    pool = SlotPool(slots)
    pinned = pool.try_take(spec("android", "B", "p"))
    assert pinned is not None and pinned.serial == "B" and pinned.options.adb_server == "lab:5037"
    assert pool.try_take(spec("android", "B", "p")) is None  # busy until given back
    assert pool.try_take(spec("desktop")) is not None and pool.try_take(spec("desktop")) is None
    pool.give_back(pinned)
    assert pool.try_take(spec("android", "B@lab:5037")) is pinned
    assert not pool.can_run(spec("android", "C"))


def test_remote_browsers_are_shared_round_robin_by_the_web_slots():
    slots = build_slots((spec("web"),), PoolOptions(
        concurrency=3, browser_servers=("ws://a/x",), cdp_endpoints=("http://b:9222",)))
    assert [(s.options.browser_server, s.options.cdp_url) for s in slots] == [
        ("ws://a/x", None), (None, "http://b:9222"), ("ws://a/x", None)]


class FakeServer:
    """Answers after `gate` opens, so tests can hold requests in flight."""

    def __init__(self, name: str, fail: bool = False) -> None:
        self.name = name
        self.fail = fail
        self.supports_grammar = False
        self.calls = 0
        self.gate = threading.Event()
        self.gate.set()

    def complete(self, messages, options, on_text=None):
        self.calls += 1
        if self.fail:
            raise ModelError(f"{self.name} is down")
        self.gate.wait(5)
        return Completion(text=self.name)

    def close(self):
        return None


def spread(servers: dict[str, FakeServer], balancer: Balancer) -> SpreadModel:
    model = SpreadModel(ModelOptions(), tuple(servers), balancer, surface=None)  # type: ignore[arg-type]
    model.models = dict(servers)  # opened already
    return model


def test_requests_go_to_the_least_busy_server_and_tasks_alternate():
    servers = {"http://a:1": FakeServer("a"), "http://b:1": FakeServer("b")}
    balancer = Balancer(tuple(servers))
    first, second = spread(servers, balancer), spread(servers, balancer)
    servers["http://a:1"].gate.clear()
    holder = threading.Thread(target=first.complete, args=([], SamplingOptions()))
    holder.start()
    while balancer.in_flight["http://a:1"] == 0:
        threading.Event().wait(0.01)
    assert second.complete([], SamplingOptions()).text == "b"  # a is busy
    servers["http://a:1"].gate.set()
    holder.join()
    assert first.used == {"http://a:1": 1} and second.used == {"http://b:1": 1}
    assert first.complete([], SamplingOptions()).text == "a"  # its cache is there
    assert balancer.answered == {"http://a:1": 2, "http://b:1": 1}


def test_a_failing_server_is_skipped_for_that_request():
    servers = {"http://down:1": FakeServer("down", fail=True), "http://up:1": FakeServer("up")}
    model = spread(servers, Balancer(tuple(servers)))
    assert [model.complete([], SamplingOptions()).text for _ in range(3)] == ["up"] * 3
    dead = {"http://down:1": FakeServer("down", fail=True)}
    with pytest.raises(ModelError, match="down is down"):
        spread(dead, Balancer(tuple(dead))).complete([], SamplingOptions())


def test_a_shared_local_model_answers_one_task_at_a_time_with_its_surface():
    inner = FakeServer("local")
    inner.surface = None  # type: ignore[attr-defined]
    seen = []
    original = inner.complete

    def complete(messages, options, on_text=None):
        seen.append(inner.surface)  # type: ignore[attr-defined]
        return original(messages, options, on_text)

    inner.complete = complete  # type: ignore[method-assign]
    lock = threading.Lock()
    SharedModel(inner, lock, "browser").complete([], SamplingOptions())  # type: ignore[arg-type]
    SharedModel(inner, lock, "mobile").complete([], SamplingOptions())  # type: ignore[arg-type]
    assert seen == ["browser", "mobile"]


def result(task_id: str, passed: bool) -> TaskResult:
    attempt = Attempt(1, "finished" if passed else "failed", 0 if passed else 1, passed,
                      steps=2, seconds=1.5, run_dir=f"/runs/{task_id}")
    return TaskResult.from_attempts(task_id, "t", "web", "web-1", [attempt])


def test_results_are_appended_and_read_back_for_resume(tmp_path: Path):
    out = tmp_path / "r.jsonl"
    writer = ResultsWriter(out, [result("old", True)])
    writer.write(result("a", True))
    writer.write(result("b", False))
    with out.open("a") as fh:
        fh.write('{"id": "c", "pass')  # a batch killed mid-line
    found = read_results(out)
    assert sorted(found) == ["a", "b", "old"]
    assert found["a"].passed and not found["b"].passed
    assert found["a"].run_dir == "/runs/a" and found["a"].attempts[0]["seconds"] == 1.5
    lines = [json.loads(line) for line in out.read_text().splitlines()[:3]]
    assert [line["id"] for line in lines] == ["old", "a", "b"]


def test_a_damaged_line_in_the_middle_is_refused(tmp_path: Path):
    out = tmp_path / "r.jsonl"
    out.write_text('{"id": "a", "task": "t", "driver": "web", "slot": null, "passed": true, '
                   '"status": "finished", "exit_code": 0}\nnot json\n{"id": "b"}\n')
    with pytest.raises(UsageError, match=r"r\.jsonl:2"):
        read_results(out)


def test_summary_counts_passed_failed_and_skipped():
    results = [result("a", True), result("b", False),
               TaskResult.skipped("c", "t", "web", "not run")]
    summary = summarise(results, 12.0)
    assert (summary.total, summary.passed, summary.failed, summary.skipped) == (3, 1, 1, 1)
    assert summary.steps == 4 and round(summary.rate, 3) == 0.333


def test_checks_without_a_surface(tmp_path: Path):
    (tmp_path / "made.txt").write_text("x")
    context = CheckContext(None, "The answer is 42", {"PATH": "/usr/bin:/bin", "X": "1"},
                           tmp_path)
    checks = (Check("file_exists", "made.txt"), Check("file_exists", "missing.txt"),
              Check("answer_matches", r"\b42\b"), Check("shell", 'test "$X" = 1'),
              Check("shell", "exit 3"), Check("url_matches", "x"))
    results = run_checks(checks, context)
    assert [r.passed for r in results] == [True, False, True, True, False, False]
    assert results[4].detail.startswith("exit 3")
    assert results[5].detail == "the browser is gone"


def test_the_live_display_shows_running_tasks_and_a_line_per_result():
    import io

    from rich.console import Console

    from venusctl.batch.display import BatchDisplay, summary_table

    stream = io.StringIO()
    display = BatchDisplay(Console(file=stream, force_terminal=True, width=120), live=True)
    display.begin(total=2, resumed=0)
    display.task_started(spec(task_id="alpha"), "web-1", 1)
    display.task_step("alpha", 3, "Click(point=(1, 2))")
    done = result("alpha", False)
    done.checks = [{"kind": "url_matches", "passed": False, "detail": "url http://x/"}]
    display.task_finished(done)
    display.close()
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", stream.getvalue())
    assert "alpha on web-1" in text and "3/30" in text
    assert "FAIL" in text and "check url_matches failed: url http://x/" in text
    plain = Console(file=io.StringIO(), width=120)
    plain.print(summary_table([done], summarise([done], 1.0)))
    assert "0/1 ✗ url_matches" in plain.file.getvalue()
