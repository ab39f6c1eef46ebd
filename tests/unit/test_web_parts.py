"""The web driver's pure parts: paused requests as data, element facts as an Element."""

from __future__ import annotations

import base64

from venusctl.drivers.web.describe import MAX_LABEL, clean_label, element_from
from venusctl.drivers.web.gate import _placed, held_request


def paused(**request: object) -> dict:
    base = {"url": "https://shop.example/pay", "method": "post",
            "headers": {"Content-Type": "application/json", "Origin": "https://shop.example"}}
    return {"requestId": "r1", "frameId": "F", "resourceType": "XHR",
            "request": {**base, **request}}


def test_a_paused_request_as_the_judge_sees_it():
    held = held_request(paused(postData='{"a": 1}'), "frame", "https://shop.example/")
    assert held.method == "POST" and held.kind == "XHR" and held.frame == "frame"
    assert held.body == '{"a": 1}' and held.headers["content-type"] == "application/json"
    assert held.initiator == "https://shop.example" and not held.navigation


def test_bodies_come_from_post_data_entries_and_redirects_are_marked():
    entries = [{"bytes": base64.b64encode(b"cardnumber=4111").decode()}]
    params = paused(hasPostData=True, postDataEntries=entries)
    params["redirectedRequestId"] = "r0"
    held = held_request(params, "main", None)
    assert held.body == "cardnumber=4111"
    assert held.redirected_from == "(an earlier request)"
    named = held_request(params, "main", None, "https://shop.example/r/302")
    assert named.redirected_from == "https://shop.example/r/302"


def test_frames_are_placed_by_their_target():
    assert _placed({"type": "page", "browserContextId": "C"}, "C") == (True, "main")
    assert _placed({"type": "page", "browserContextId": "C", "openerId": "X"}, "C") \
        == (True, "popup")
    assert _placed({"type": "iframe", "browserContextId": "D"}, "C") == (False, "frame")
    assert _placed({"type": "service_worker", "browserContextId": "C"}, "C") == (True, "worker")


def test_labels_lose_invisible_characters_and_keep_both_ends():
    assert clean_label("P\u200ba\u00ady  now\n") == "Pay now"
    long = "x" * MAX_LABEL + " Pay now"
    kept = clean_label(long)
    assert kept.endswith("Pay now") and kept.startswith("xxx") and len(kept) < len(long) + 5


def test_element_facts_follow_the_contract():
    facts = {"tag": "input", "id": "card", "resource_id": "card", "text": "", "value": None,
             "input_type": "text", "autocomplete": "cc-number", "href": None,
             "form_action": "https://shop.example/pay", "hint": "Card number",
             "dialog": "", "form_buttons": ["Back", "Pay"], "default_button": "Pay",
             "form_fields": ["cardnumber cc-number"], "frame_origin": "https://pay.example",
             "media": False, "beneath": "", "editable": False, "rect": [1, 2, 3, 4]}
    element = element_from(facts, "textbox", "Card number", (10, 20, 3, 4))
    assert element.role == "textbox" and element.name == "Card number"
    assert element.extra["hint"] == "Card number" and element.extra["default_button"] == "Pay"
    assert element.extra["form_buttons"] == ["Back", "Pay"]
    assert element.extra["frame_origin"] == "https://pay.example"
    assert "nameless" not in element.extra and element.bounds == (10, 20, 3, 4)

    drawn = element_from({**facts, "tag": "canvas", "input_type": None, "media": True,
                          "hint": ""}, "canvas", "", (0, 0, 9, 9))
    assert drawn.extra["nameless"] is True
    covered = element_from({**facts, "beneath": "Pay now"}, "button", "Continue", (0, 0, 1, 1))
    assert covered.extra["description"] == "shown beneath it: Pay now"
