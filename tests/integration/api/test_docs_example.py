"""The Python API example of docs/python-api.md, run as written against the shop app
and Chromium."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.cli import write_answers
from tests.support.tools import chromium
from venusctl.sim.web import ShopServer

PAGE = Path(__file__).resolve().parents[3] / "docs" / "python-api.md"
ORDER = [
    "<think>The name field is first.</think><action>Click(point=(234, 150))</action>",
    "<think>Type the name.</think><action>Type(content='Ada Lovelace')</action>",
    "<think>Open the colour list.</think><action>Click(point=(156, 275))</action>",
    "<think>Green is option 1.</think><action>SelectOption(index=1)</action>",
    "<think>Submit.</think><action>Click(point=(161, 414))</action>",
    "<think>Done.</think><action>Finished(content='Ordered a green one for Ada')</action>",
]


def docs_example() -> str:
    section = PAGE.read_text(encoding="utf-8").split("# Python API", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the Python API section has no example"
    return match.group(1)


def test_the_docs_example_orders_through_the_api(tmp_path):
    script = tmp_path / "example.py"
    script.write_text(docs_example(), encoding="utf-8")
    answers = write_answers(tmp_path / "answers.jsonl", ORDER)
    bin_dir = Path(chromium()).parent  # the example finds Chromium on PATH, as a user's would
    with ShopServer() as shop:
        env = {**os.environ, "SHOP_URL": shop.url, "ANSWERS": str(answers),
               "PATH": f"{bin_dir}:{os.environ['PATH']}"}
        done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=240)
        orders = list(shop.state.orders)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert ("asked: click point (161, 414) on button 'Submit order | submit', by click "
            "[payment]") in lines
    assert "confirming step 5" in lines
    assert "step 5: Click(point=(161, 414)) -> confirm" in lines
    assert re.search(r"^finished: Ordered a green one for Ada \(run \S+\)$", done.stdout, re.M)
    assert orders == [{"name": "Ada Lovelace", "colour": "Green"}]
    assert (tmp_path / "after-order.png").stat().st_size > 1000
    assert lines[-2:] == ["performed Click(point=(500, 60)) on 1024x768 as "
                          "Click(point=(512, 46)) (pixels)", "target: heading 'Order received'"]
    assert "Traceback" not in done.stderr
