"""The README's interface table is the profile table: generated from it, kept equal."""

from __future__ import annotations

from pathlib import Path

from venusctl.interface.profile import SURFACES, TABLE, table_markdown

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_shows_the_profile_table_verbatim():
    assert table_markdown() in README.read_text(encoding="utf-8")


def test_every_setting_has_a_source_beside_each_value():
    for row in TABLE:
        assert row.facts, row.field
        for surface, fact in row.facts.items():
            assert surface in SURFACES
            assert fact.source.strip(), (row.field, surface)
