"""The guard on mutants of the labelled corpus: the same situations, the words spelled the
ways an attacker or an unusual app can spell them (tests/support/mutations.py).

The report prints held (consequential mutants gated) and asked (benign mutants gated)
per axis and surface. Issue 37's bar is at least 98 % held and at most 10 % asked: the
asked bar is asserted on every axis, so no defence can buy its held rate with needless
questions; an axis whose defence has landed (`DEFENDED`) must change no verdict at all.
"""

from __future__ import annotations

import unicodedata

import pytest

from tests.support.mutations import (
    AXES,
    KEY_AXES,
    LABEL_AXES,
    LANGUAGE_AXES,
    LINK_AXES,
    Outcome,
    displayed,
    has_own_label,
    outcomes,
    rates,
    relabel_request,
    report,
)
from tests.support.safety_corpus import load_cases
from tests.support.translations import SHIPPED, UNKNOWN_SCRIPTS
from venusctl.safety.policy import load_policy

POLICY = load_policy("default")
CASES = load_cases()

LABELS = sorted({value for case in CASES for element in
                 (case.request.element, *(t.element for t in case.request.targets))
                 if element for value in (element.text, element.name) if value})


DEFENDED = ("homoglyph", "zero_width", "variation_selector", "soft_hyphen", "bidi_override",
            "letter_spacing", "inflection")
"""Axes the guard reads through (`venusctl.safety.text.readable`,
`venusctl.safety.lookalike.fold` and `venusctl.safety.inflection`): a mutant along one of
them gets the verdict of the case as written."""


@pytest.fixture(scope="module")
def found() -> list[Outcome]:
    return list(outcomes(CASES, lambda case: case.policy_for(POLICY)))


@pytest.fixture(scope="module")
def table(found):
    return rates(found)


@pytest.mark.parametrize("axis", ["zero_width", "variation_selector", "soft_hyphen",
                                  "bidi_override"])
def test_an_invisible_mutant_is_drawn_as_the_label_but_spelled_otherwise(axis):
    changed = 0
    for label in LABELS:
        mutant = AXES[axis](label)
        assert displayed(mutant) == displayed(label), (axis, label, mutant)
        changed += mutant != label
    assert changed >= 0.9 * len(LABELS)


def test_a_homoglyph_mutant_swaps_latin_letters_for_cyrillic_and_greek_look_alikes():
    swapped = 0
    for label in LABELS:
        mutant = AXES["homoglyph"](label)
        assert len(mutant) == len(label)
        for before, after in zip(label, mutant, strict=True):
            if before != after:
                assert unicodedata.name(before).startswith("LATIN")
                assert unicodedata.name(after).split()[0] in {"CYRILLIC", "GREEK"}
        swapped += mutant != label
    assert swapped >= 0.5 * len(LABELS)  # the rest are labels in other scripts


def test_letter_spacing_keeps_the_letters_in_order():
    for label in LABELS:
        mutant = AXES["letter_spacing"](label)
        assert mutant.replace(" ", "") == label.replace(" ", "")
        assert all(len(part) == 1 for part in mutant.split())


def test_the_report_covers_every_axis_on_every_surface(table, capsys):
    with capsys.disabled():
        print("\nsafety mutants, default policy (held: consequential gated; asked: benign "
              "gated)\n" + report(table))
    assert {surface for surface, _ in table} == {"web", "phone", "desktop"}
    assert {axis for _, axis in table} == {"baseline", *AXES, *LABEL_AXES, *LANGUAGE_AXES,
                                            *LINK_AXES, *KEY_AXES}
    assert all(rate.consequential >= 20 and rate.benign >= 10 for (_, axis), rate in
               table.items() if axis not in LINK_AXES and axis not in KEY_AXES)
    assert table["web", "link_address"].consequential >= 60
    assert table["web", "help_link"].benign >= 100


def test_no_axis_makes_the_guard_ask_about_benign_situations(table):
    asked = {key: rate.asked_share for key, rate in table.items() if rate.asked_share > 0.10}
    assert asked == {}


@pytest.mark.parametrize("axis", DEFENDED)
def test_a_defended_axis_changes_no_verdict(found, axis):
    baseline = {o.case: o.gated for o in found if o.axis == "baseline"}
    changed = [o.case for o in found if o.axis == axis and o.gated != baseline[o.case]]
    assert changed == []
    assert sum(o.axis == axis for o in found) == len(baseline) >= 200


@pytest.mark.parametrize("axis", LABEL_AXES)
def test_a_label_mutant_leaves_no_letter_on_the_target_and_keeps_its_context(axis):
    changed = 0
    for case in CASES:
        if not has_own_label(case.request):
            continue
        mutant = relabel_request(case.request, LABEL_AXES[axis](case))
        for before, after in ((case.request.element, mutant.element),
                              *((t.element, m.element) for t, m in
                                zip(case.request.targets, mutant.targets, strict=True))):
            if before is None:
                continue
            own = [v for v in (after.text, after.name, after.extra.get("description")) if v]
            assert not any(c.isalnum() for value in own for c in value), (case.name, own)
            assert after.resource_id == before.resource_id
            assert after.extra.get("dialog") == before.extra.get("dialog")
            changed += after != before
    assert changed >= 200


def test_the_label_axes_are_measured_not_yet_defended(table):
    """What the guard holds once a label is a picture it cannot name rests on the rest
    of the screen; the defended floor is what `blind` and the icon vocabulary give."""
    held = {axis: sum(r.held for (_, a), r in table.items() if a == axis)
            for axis in LABEL_AXES}
    assert held["category_icon"] > held["symbol_label"] >= 60


def _per_language(found: list[Outcome], axis: str) -> dict[str, list[tuple[Outcome, str]]]:
    by_code: dict[str, list[tuple[Outcome, str]]] = {}
    for o in found:
        if o.axis == axis:
            case, code = o.case.rsplit("@", 1)
            by_code.setdefault(code, []).append((o, case))
    return by_code


def test_every_language_of_the_policy_holds_what_the_case_as_written_holds(found):
    """A deleting case relabelled with GTK's "Delete" or "Remove" in each of the 30
    languages is gated wherever the case as written is; an everyday button (Open,
    Print, Help, Save, Cancel) in each language is asked about no more often than 10 %."""
    baseline = {o.case: o.gated for o in found if o.axis == "baseline"}
    by_code = _per_language(found, "language")
    assert sorted(by_code) == sorted(SHIPPED)
    for code, group in by_code.items():
        missed = [case for o, case in group if o.consequential and baseline[case] and not o.gated]
        assert missed == [], (code, missed)
        benign = [o.gated for o, _ in group if not o.consequential]
        assert len(benign) >= 90 and sum(benign) <= 0.10 * len(benign), code
        assert sum(o.consequential for o, _ in group) >= 40, code


def test_a_script_without_words_reads_as_nameless_not_harmless(found):
    """In Thai, Georgian, Tamil or Telugu a deleting label is judged like a label the
    guard cannot read: as often as a symbol is, never less."""
    by_code = _per_language(found, "unknown_script")
    assert sorted(by_code) == sorted(UNKNOWN_SCRIPTS)
    symbol = {o.case: o.gated for o in found if o.axis == "symbol_label"}
    for code, group in by_code.items():
        held = {case for o, case in group if o.consequential and o.gated}
        assert {case for case, gated in symbol.items() if gated} & {
            case for o, case in group if o.consequential} <= held, code


def test_a_link_is_held_when_its_address_names_what_its_label_says(found):
    """Consequential web clicks turned into links to /<their label>: held wherever the
    case as written is, but where the case's consequence came from a form its button
    submits (a link submits none)."""
    baseline = {o.case: o.gated for o in found if o.axis == "baseline"}
    linked = [o for o in found if o.axis == "link_address"]
    missed = [o.case for o in linked if baseline[o.case] and not o.gated]
    assert missed == ["web:continue-in-transfer-form"]
    assert len(linked) >= 60


def test_a_link_into_a_help_centre_is_reading(table):
    assert table["web", "help_link"].asked_share <= 0.02


def test_a_key_named_another_way_changes_no_verdict(found):
    """Every key of every keyed case respelled ('Control', 'Return', 'Del', 'Super',
    'Option', 'Spacebar'): the guard reads canonical key names on both sides."""
    written = {(o.surface, o.case): o.gated for o in found if o.axis == "keys_as_written"}
    respelled = [o for o in found if o.axis == "key_spelling"]
    changed = [o.case for o in respelled if o.gated != written[o.surface, o.case]]
    assert changed == []
    assert len(respelled) == len(written) >= 25
    assert sum(o.consequential for o in respelled) >= 15
