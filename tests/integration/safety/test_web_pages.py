"""The default policy on real pages, as Chromium describes their elements.

Each page in tests/corpus/safety/pages marks its targets with `data-gate` (the
category the default policy must confirm them under, or "none") and, for fields,
`data-type` (the text typed after clicking into them). The test clicks or types
exactly as the agent would: the screenshot first, then the driver's description of
every place the action touches, then the guard phase's reading of the pixels there
(Tesseract), and asks the guard about all of it. pixels.html holds targets whose
name and pixels disagree (a transparent "Continue" over a picture of "Pay €49", an
image of "Pay now" whose alt text says "Cancel", a "Cancel" drawn as "Delete all").
"""

from __future__ import annotations

import pytest

from venusctl.core.actions import Click, Launch, Type
from venusctl.drivers.web.driver import WebDriver, WebOptions
from venusctl.safety.guard import Decision, GuardRequest
from venusctl.safety.ocr import TesseractReader, tessdata_dir
from venusctl.safety.policy import load_policy
from venusctl.safety.policy_guard import PolicyGuard
from venusctl.safety.reading import needs_ocr, read_unnamed
from venusctl.safety.targets import describe_targets, first_element

POLICY = load_policy("default")


@pytest.fixture(scope="module")
def reader():
    folder = tessdata_dir()
    if folder is None:
        pytest.fail("Tesseract's language files are missing; run scripts/test.sh", pytrace=False)
    opened = TesseractReader(folder)
    yield opened
    opened.close()


def targets(driver: WebDriver) -> list[dict]:
    return driver.page.evaluate("""() => Array.from(document.querySelectorAll('[data-gate]'))
        .map(e => { const r = e.getBoundingClientRect();
          return {gate: e.dataset.gate, type: e.dataset.type ?? null,
                  x: Math.round(r.left + r.width / 2), y: Math.round(r.top + r.height / 2),
                  html: e.outerHTML.slice(0, 80)}; })""")


def verdict_for(driver: WebDriver, reader: TesseractReader, target: dict):
    point = (target["x"], target["y"])
    if target["type"] is None:
        action = Click(point)
    else:
        driver.perform(Click(point))
        action = Type(target["type"])
    screen = driver.screenshot()
    targets = describe_targets(driver, action)
    if needs_ocr(action, targets):
        targets = read_unnamed(reader, action, targets, screen)
    return PolicyGuard(POLICY).check(GuardRequest(1, action, action, first_element(targets),
                                                  screen.context, "", targets))


def test_real_pages_are_gated_as_labelled(site, browser_path, reader, capsys):
    driver = WebDriver(WebOptions(url=site.url + "/checkout.html", browser_path=browser_path))
    results = []
    try:
        for page in site.pages():
            driver.perform(Launch(f"{site.url}/{page}"))
            for target in targets(driver):
                verdict = verdict_for(driver, reader, target)
                results.append((page, target, verdict))
    finally:
        driver.close()
    consequential = [(p, t, v) for p, t, v in results if t["gate"] != "none"]
    benign = [(p, t, v) for p, t, v in results if t["gate"] == "none"]
    missed = [f"{p} {t['html']}" for p, t, v in consequential
              if v.decision is Decision.ALLOW or v.category != t["gate"]]
    alarms = [f"{p} {t['html']} ({v.rule})" for p, t, v in benign
              if v.decision is not Decision.ALLOW]
    with capsys.disabled():
        print(f"\nreal pages, default policy: consequential gated "
              f"{len(consequential) - len(missed)}/{len(consequential)}; benign gated "
              f"{len(alarms)}/{len(benign)}")
    assert len(consequential) >= 12 and len(benign) >= 12
    assert missed == []
    assert len(alarms) <= len(benign) // 10
