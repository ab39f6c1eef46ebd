"""The forms shipped beside the keyword files are what scripts/word_forms.py makes of
them. Regenerating reads simplemma's dictionaries of every shipped language (21 million
forms, about a minute on two cores), so the check runs with the integration tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_shipped_forms_are_what_the_generator_makes_of_the_keyword_files():
    found = subprocess.run([sys.executable, str(ROOT / "scripts" / "word_forms.py"), "--check"],
                           capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert found.returncode == 0, found.stdout + found.stderr
