"""`venusctl cache list|show|clear` on a folder with a good and a damaged entry."""

from __future__ import annotations

import json

from tests.unit.test_cache_entry import step, trajectory
from venusctl.cache.store import TrajectoryStore
from venusctl.cli import run_cli


def test_list_show_and_clear(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("VENUSCTL_CACHE_DIR", str(tmp_path / "traj"))
    store = TrajectoryStore(tmp_path / "traj")
    hostile = trajectory(step(1, "Click(point=(10, 20))", "Click",
                              element={"role": "button", "name": "Go\x1b[2J now"}),
                         step(2, "Finished(content='done')", "Finished"))
    good = store.save(hostile)
    broken = tmp_path / "traj" / "00000000deadbeef.json"
    broken.write_text('{"schema": "venusctl.trajectory/1"}')
    broken.chmod(0o600)

    assert run_cli(["cache", "list"]) == 0
    listed = capsys.readouterr().out
    assert good.stem in listed and "open the cart" not in listed  # the task as written
    assert "Open the cart." in listed and "2  browser" in listed
    assert "00000000deadbeef  unusable:" in listed and "checksum" in listed

    assert run_cli(["cache", "show", good.stem[:5]]) == 0
    shown = capsys.readouterr().out
    assert "button Go [2J now" in shown and "\x1b" not in shown  # no escape reaches a TTY
    assert "browser · shop.example · 1280x800" in shown

    assert run_cli(["cache", "show", good.stem, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["id"] == good.stem and len(data["steps"]) == 2

    assert run_cli(["cache", "show", "00000000"]) == 2
    assert "checksum does not match" in capsys.readouterr().err
    assert run_cli(["cache", "show", "feed"]) == 2
    assert "no cache entry 'feed'" in capsys.readouterr().err

    assert run_cli(["cache", "clear", "00000000"]) == 0
    assert capsys.readouterr().out == "removed 00000000deadbeef\n"
    assert run_cli(["cache", "clear"]) == 0
    assert "removed 1 cached trajectory" in capsys.readouterr().out
    assert run_cli(["cache", "list"]) == 0
    assert "no stored trajectories" in capsys.readouterr().err
