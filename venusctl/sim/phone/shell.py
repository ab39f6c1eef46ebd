"""A small POSIX-ish shell for the simulated phone: `;`, `&&`, `||`, `&`, `wait` and pipes.

adbd runs every shell service through `/system/bin/sh -c`; drivers rely on quoting,
command lists and background jobs (two taps in the double-tap window), so the fake
phone parses them as a shell would instead of matching strings.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Result:
    out: bytes = b""
    err: bytes = b""
    code: int = 0


Command = Callable[[list[str], bytes], Result]
ENVIRONMENT = {"HOME": "/", "PATH": "/product/bin:/apex/com.android.runtime/bin:/system/bin"}


class Op(str):
    """An unquoted operator (`;`, `&`, `&&`, `|`, `||`), told apart from a quoted word."""


def tokenize(line: str) -> list[str]:
    """Words and operators, with the device shell's quoting rules.

    Single quotes keep everything; double quotes keep everything but `\\"`, `\\\\`,
    `\\$` and `` \\` `` escapes; a backslash outside quotes keeps the next character.
    """
    tokens: list[str] = []
    word: list[str] | None = None
    i = 0
    while i < len(line):
        ch = line[i]
        if ch in " \t\n":
            if word is not None:
                tokens.append("".join(word))
                word = None
            i += 1
            continue
        if ch in ";&|":
            if word is not None:
                tokens.append("".join(word))
                word = None
            double = line[i:i + 2] in ("&&", "||")
            tokens.append(Op(line[i:i + 2] if double else ch))
            i += 2 if double else 1
            continue
        word = word if word is not None else []
        i = _read_quoted(line, i, word)
    if word is not None:
        tokens.append("".join(word))
    return tokens


def _read_quoted(line: str, i: int, word: list[str]) -> int:
    """Append one character or one quoted run at `i` to `word`; return the next index."""
    ch = line[i]
    if ch == "'":
        end = line.find("'", i + 1)
        if end < 0:
            raise ValueError("unterminated single quote")
        word.append(line[i + 1:end])
        return end + 1
    if ch == '"':
        i += 1
        while i < len(line) and line[i] != '"':
            if line[i] == "\\" and i + 1 < len(line) and line[i + 1] in '"\\$`':
                word.append(line[i + 1])
                i += 2
            elif line[i] in "$`":
                i = _expand(line, i, word)
            else:
                word.append(line[i])
                i += 1
        if i >= len(line):
            raise ValueError("unterminated double quote")
        return i + 1
    if ch == "\\" and i + 1 < len(line):
        word.append(line[i + 1])
        return i + 2
    if ch in "$`":
        return _expand(line, i, word)
    if ch in "()<>":
        raise ValueError(f"unexpected '{ch}' (redirections and subshells are not simulated)")
    word.append(ch)
    return i + 1


def _expand(line: str, i: int, word: list[str]) -> int:
    """`$NAME` expands (the phone's environment is nearly empty); `$?` is kept for later;
    command substitution is refused, so a driver that forgets to quote is caught."""
    if line[i] == "`" or line[i + 1:i + 2] == "(":
        raise ValueError("command substitution is not simulated (quote the text)")
    if line[i + 1:i + 2] == "?":
        word.append("$?")
        return i + 2
    match = re.match(r"\{?([A-Za-z_][A-Za-z0-9_]*)\}?", line[i + 1:])
    if not match:
        word.append("$")
        return i + 1
    word.append(ENVIRONMENT.get(match.group(1), ""))
    return i + 1 + match.end()


def split_lists(tokens: list[str]) -> list[tuple[list[list[str]], str]]:
    """[(pipeline, separator)] where a pipeline is a list of argv lists."""
    out: list[tuple[list[list[str]], str]] = []
    pipeline: list[list[str]] = []
    words: list[str] = []
    for token in tokens:
        if isinstance(token, Op) and token == "|":
            pipeline.append(words)
            words = []
        elif isinstance(token, Op):
            pipeline.append(words)
            out.append((pipeline, token))
            pipeline, words = [], []
        else:
            words.append(token)
    if words or pipeline:
        pipeline.append(words)
        out.append((pipeline, ";"))
    return [(p, sep) for p, sep in out if any(p)]


@dataclass
class Shell:
    """Runs one `sh -c` line against the phone's commands."""

    run_command: Command
    jobs: list[threading.Thread] = field(default_factory=list)
    status: int = 0

    def run(self, line: str) -> Result:
        try:
            lists = split_lists(tokenize(line))
        except ValueError as exc:
            return Result(err=f"/system/bin/sh: syntax error: {exc}\n".encode(), code=2)
        total = Result()
        skip = False
        for pipeline, separator in lists:
            if not skip:
                if separator == "&":
                    self._background(pipeline)
                    self.status = 0
                else:
                    result = self._pipeline(pipeline)
                    total.out += result.out
                    total.err += result.err
                    self.status = result.code
            skip = (separator == "&&" and self.status != 0) or (
                separator == "||" and self.status == 0)
        for job in self.jobs:
            job.join()
        total.code = self.status
        return total

    def _background(self, pipeline: list[list[str]]) -> None:
        job = threading.Thread(target=self._pipeline, args=(pipeline,), daemon=True)
        job.start()
        self.jobs.append(job)

    def _pipeline(self, pipeline: list[list[str]]) -> Result:
        stdin = b""
        result = Result()
        err = b""
        for argv in pipeline:
            argv = [word.replace("$?", str(self.status)) for word in argv]
            result = self._simple(argv, stdin)
            stdin = result.out
            err += result.err
        return Result(result.out, err, result.code)

    def _simple(self, argv: list[str], stdin: bytes) -> Result:
        if not argv:
            return Result()
        name = argv[0]
        if name == "echo":
            return Result((" ".join(argv[1:]) + "\n").encode())
        if name == "sleep":
            time.sleep(min(float(argv[1]) if len(argv) > 1 else 0.0, 30.0))
            return Result()
        if name == "wait":
            for job in self.jobs:
                job.join()
            self.jobs.clear()
            return Result()
        if name == "true":
            return Result()
        if name == "false":
            return Result(code=1)
        if name == "grep":
            return grep(argv[1:], stdin)
        return self.run_command(argv, stdin)


def grep(args: list[str], stdin: bytes) -> Result:
    """`grep [-E] [-F] [-i] [-v] [-o] PATTERN` over standard input."""
    flags = {a for a in args if a.startswith("-") and len(a) > 1}
    words = [a for a in args if a not in flags]
    if not words:
        return Result(err=b"grep: no pattern\n", code=2)
    pattern = re.escape(words[0]) if any("F" in f for f in flags) else words[0]
    regex = re.compile(pattern, re.IGNORECASE if any("i" in f for f in flags) else 0)
    invert = any("v" in f for f in flags)
    only = any("o" in f for f in flags)
    lines = []
    for line in stdin.decode("utf-8", "replace").splitlines():
        found = regex.findall(line) if only else ([line] if regex.search(line) else [])
        if invert:
            found = [] if regex.search(line) else [line]
        lines.extend(m if isinstance(m, str) else m[0] for m in found)
    text = "".join(f"{line}\n" for line in lines)
    return Result(text.encode(), code=0 if lines else 1)
