"""Grammar samplers for one vocabulary, each grammar parsed once.

Our action grammars run to a megabyte of GBNF, and llama.cpp parses that text afresh
for every sampler it makes from it: ~22 ms a grammar on this project's 2-core test
machine, paid on every answer and again on every grammar swap within one. A parsed
grammar can instead be copied (`llama_sampler_clone` copies the rules and a fresh
parse state, ~2 ms), so the first sampler for a text is kept as a template, never
fed a token, and every sampler handed out is a copy of it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from venusctl.core.errors import ModelError
from venusctl.model.llama import logs as llama_logs

KEPT = 4
"""Templates kept per vocabulary: one surface's action grammar and its follow-ups
(a grammar swapped in mid-answer, a thought-closed variant) are about that many."""


class ParsedGrammars:
    """Templates keyed by the grammar's text, the least recently used dropped first."""

    def __init__(self, llama: Any, vocab: Any) -> None:
        self._llama = llama
        self._vocab = vocab
        self._templates: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def sampler(self, grammar: str) -> Any:
        """A grammar sampler for `grammar` in its start state, owned by the caller (who
        frees it with `llama_sampler_free`)."""
        with self._lock:
            template = self._templates.get(grammar)
            if template is None:
                template = self._parse(grammar)
                self._templates[grammar] = template
                while len(self._templates) > KEPT:
                    _, dropped = self._templates.popitem(last=False)
                    self._llama.llama_sampler_free(dropped)
            else:
                self._templates.move_to_end(grammar)
            return self._llama.llama_sampler_clone(template)

    def _parse(self, grammar: str) -> Any:
        bookmark = llama_logs.mark()
        parsed = self._llama.llama_sampler_init_grammar(self._vocab, grammar.encode(), b"root")
        if not parsed:
            reason = llama_logs.last_problem(bookmark, "the grammar could not be parsed")
            raise ModelError(f"invalid grammar: {reason}")
        return parsed

    def __len__(self) -> int:
        return len(self._templates)

    def close(self) -> None:
        with self._lock:
            while self._templates:
                self._llama.llama_sampler_free(self._templates.popitem()[1])
