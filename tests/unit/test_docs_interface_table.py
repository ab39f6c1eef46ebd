"""The docs' interface table is the profile table: generated from it, kept equal."""

from __future__ import annotations

from pathlib import Path

from venusctl.interface.profile import SURFACES, TABLE, table_markdown

PAGE = Path(__file__).resolve().parents[2] / "docs" / "model-interface.md"


def test_the_docs_show_the_profile_table_verbatim():
    assert table_markdown() in PAGE.read_text(encoding="utf-8")


def test_every_setting_has_a_source_beside_each_value():
    for row in TABLE:
        assert row.facts, row.field
        for surface, fact in row.facts.items():
            assert surface in SURFACES
            assert fact.source.strip(), (row.field, surface)
