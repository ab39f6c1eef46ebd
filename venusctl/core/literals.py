"""A tiny literal-only reader for `Name(key=value, …)` calls.

Why not `ast.literal_eval`? The model writes strings with raw newlines and stray
apostrophes (`content='It's here'`) that Python's parser rejects, and adversarial
text can drive Python's parser into deep recursion. This reader accepts exactly
what the action language needs (names, keywords, integers, decimals, quoted
strings, tuples, lists and, inside lists, nested calls), bounds its depth, and can
only ever produce plain values: there is no path from its input to code execution.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_DEPTH = 6
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0"}
_CLOSERS = ",)]"
_CONSTANTS: dict[str, Any] = {"True": True, "False": False, "None": None}


class LiteralSyntaxError(ValueError):
    """The text is not a call made of literals; the message says where and why."""


@dataclass(frozen=True)
class Call:
    """A parsed `Name(…)`: its keyword arguments in order, and any positional ones."""

    name: str
    keywords: tuple[tuple[str, Any], ...] = ()
    positional: tuple[Any, ...] = field(default=())


def parse_call(text: str) -> Call:
    """Read the whole of `text` as one call; trailing text is an error."""
    reader = _Reader(text)
    reader.skip_space()
    call = reader.call(depth=0)
    reader.skip_space()
    if reader.pos != len(text):
        raise LiteralSyntaxError(f"unexpected text after the call at position {reader.pos}")
    return call


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    # -- low level
    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def expect(self, char: str) -> None:
        self.skip_space()
        if self.peek() != char:
            found = repr(self.peek()) if self.peek() else "the end"
            raise LiteralSyntaxError(f"expected '{char}' at position {self.pos}, found {found}")
        self.pos += 1

    def name(self) -> str:
        self.skip_space()
        start = self.pos
        while self.pos < len(self.text) and (
            self.text[self.pos].isascii()
            and (self.text[self.pos].isalnum() or self.text[self.pos] == "_")
        ):
            self.pos += 1
        word = self.text[start:self.pos]
        if not word or word[0].isdigit():
            raise LiteralSyntaxError(f"expected a name at position {start}")
        return word

    # -- grammar
    def call(self, depth: int) -> Call:
        if depth > MAX_DEPTH:
            raise LiteralSyntaxError("the action is nested too deeply")
        name = self.name()
        self.expect("(")
        keywords: list[tuple[str, Any]] = []
        positional: list[Any] = []
        self.skip_space()
        while self.peek() != ")":
            if not self.peek():
                raise LiteralSyntaxError(f"'{name}(' is never closed")
            if self._at_keyword():
                key = self.name()
                self.expect("=")
                keywords.append((key, self.value(depth + 1)))
            else:
                positional.append(self.value(depth + 1))
            self.skip_space()
            if self.peek() == ",":
                self.pos += 1
                self.skip_space()
            elif not self.peek():
                raise LiteralSyntaxError(f"'{name}(' is never closed")
            elif self.peek() != ")":
                raise LiteralSyntaxError(f"expected ',' or ')' at position {self.pos}")
        self.pos += 1
        return Call(name, tuple(keywords), tuple(positional))

    def _at_keyword(self) -> bool:
        save = self.pos
        try:
            self.name()
            self.skip_space()
            return self.peek() == "=" and self.text[self.pos + 1: self.pos + 2] != "="
        except LiteralSyntaxError:
            return False
        finally:
            self.pos = save

    def value(self, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise LiteralSyntaxError("the action is nested too deeply")
        self.skip_space()
        char = self.peek()
        if char in ("'", '"'):
            return self.string(char)
        if char in "([" and char:
            return self.sequence(depth)
        if char and (char.isdigit() or char in "+-."):
            return self.number()
        if char and (char.isalpha() or char == "_"):
            return self.word_or_call(depth)
        found = repr(char) if char else "the end"
        raise LiteralSyntaxError(f"expected a value at position {self.pos}, found {found}")

    def word_or_call(self, depth: int) -> Any:
        """`True`, `False`, `None`, or a nested call such as a Sequence child."""
        start = self.pos
        word = self.name()
        self.skip_space()
        if self.peek() == "(":
            self.pos = start
            return self.call(depth)
        if word in _CONSTANTS:
            return _CONSTANTS[word]
        raise LiteralSyntaxError(
            f"'{word}' at position {start} is not a value; quote text as 'like this'"
        )

    def sequence(self, depth: int) -> tuple[Any, ...] | list[Any]:
        opener = self.text[self.pos]
        closer = ")" if opener == "(" else "]"
        self.pos += 1
        items: list[Any] = []
        self.skip_space()
        while self.peek() != closer:
            if not self.peek():
                raise LiteralSyntaxError(f"'{opener}' is never closed")
            items.append(self.value(depth + 1))
            self.skip_space()
            if self.peek() == ",":
                self.pos += 1
                self.skip_space()
            elif not self.peek():
                raise LiteralSyntaxError(f"'{opener}' is never closed")
            elif self.peek() != closer:
                raise LiteralSyntaxError(f"expected ',' or '{closer}' at position {self.pos}")
        self.pos += 1
        return tuple(items) if opener == "(" else items

    def number(self) -> int | float:
        start = self.pos
        if self.peek() in "+-":
            self.pos += 1
        while self.pos < len(self.text) and self.text[self.pos] in "0123456789.":
            self.pos += 1
        literal = self.text[start:self.pos]
        try:
            return int(literal) if "." not in literal else float(literal)
        except ValueError:
            raise LiteralSyntaxError(f"'{literal}' is not a number") from None

    def string(self, quote: str) -> str:
        """A quoted string; a quote only closes it when a delimiter follows.

        This keeps `'It's here'` whole: the inner apostrophe is followed by a letter,
        so it cannot be the end of the string.
        """
        self.pos += 1
        out: list[str] = []
        text = self.text
        while True:
            if self.pos >= len(text):
                raise LiteralSyntaxError("a quoted string is never closed")
            char = text[self.pos]
            if char == "\\" and self.pos + 1 < len(text):
                out.append(self._escape())
                continue
            if char == quote and self._closes_string():
                self.pos += 1
                return "".join(out)
            out.append(char)
            self.pos += 1

    def _escape(self) -> str:
        nxt = self.text[self.pos + 1]
        if nxt == "u" and self._is_hex(self.pos + 2, 4):
            self.pos += 6
            return chr(int(self.text[self.pos - 4: self.pos], 16))
        self.pos += 2
        return _ESCAPES.get(nxt, "\\" + nxt)

    def _is_hex(self, start: int, count: int) -> bool:
        chunk = self.text[start: start + count]
        return len(chunk) == count and all(c in "0123456789abcdefABCDEF" for c in chunk)

    def _closes_string(self) -> bool:
        after = self.pos + 1
        while after < len(self.text) and self.text[after].isspace():
            after += 1
        return after >= len(self.text) or self.text[after] in _CLOSERS
