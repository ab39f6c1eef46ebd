"""Shell commands in typed text, read as the shell would split them (`shlex`).

A keyword list cannot tell `rm -rf ~/x` from a sentence that mentions rm, nor see
`sudo` behind `FOO=1 nice -n 5 sudo make install`. So typed text is cut into lines,
pipelines and simple commands; leading variable assignments are skipped; wrappers
(`sudo`, `env`, `nohup`, `timeout`, `xargs`, ...) count as themselves and as the
command they run; `bash -c '…'`, `eval '…'`, `$(…)`, `<(…)` and backticks are read
as commands of their own, and what they feed into counts as a pipe.

A policy lists commands as *specs*, written like a command line:

    rm -r               rm with the short option r (alone or in a cluster: -rf, -fr)
    rm --recursive      a long option (a value after `=` is ignored)
    rm -r /             ... with `/` among its arguments (globs allowed: of=/dev/*)
    git reset --hard    a word such as a subcommand must appear among the arguments
    mkfs*               program names are globs, compared without their directory
    curl | *sh          a pipeline: a command matching the left feeds one matching the right

Programs are compared case-insensitively by their base name (`/usr/bin/sudo` is `sudo`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache

SEPARATORS = frozenset({";", "&&", "||", "&", "(", ")", ";;", "\n"})
PIPES = frozenset({"|", "|&"})
REDIRECTS = frozenset({">", ">>", "<", "<<", "<<<", "&>", "&>>", ">&", "<&", ">|"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SUBSTITUTION = re.compile(r"\$\(([^()]*)\)|<\(([^()]*)\)|>\(([^()]*)\)|`([^`]*)`")
MAX_DEPTH = 4
MARK = "__SUBSTITUTION__"
_OPERATOR_CHARS = frozenset(";&|()")

# wrapper -> its options that take a value (the wrapped command follows the options)
WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T"}),
    "doas": frozenset({"-u", "-C"}),
    "pkexec": frozenset({"--user"}),
    "run0": frozenset({"-u", "--user"}),
    "env": frozenset({"-u", "-C", "-S"}),
    "nohup": frozenset(), "time": frozenset(), "command": frozenset(), "builtin": frozenset(),
    "exec": frozenset({"-a"}), "nice": frozenset({"-n"}), "ionice": frozenset({"-c", "-n"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}), "xargs": frozenset({"-I", "-n", "-P", "-d", "-a"}),
    "timeout": frozenset({"-s", "-k"}), "watch": frozenset({"-n"}), "chroot": frozenset(),
    "strace": frozenset({"-o", "-e", "-p"}), "setsid": frozenset(), "unbuffer": frozenset(),
}
_SKIPS_FIRST_WORD = frozenset({"timeout", "chroot"})  # a duration / a new root comes first
SHELLS_WITH_C = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "busybox"})


@dataclass(frozen=True)
class Command:
    """One simple command: its program's base name, its options and its other words."""

    program: str
    options: tuple[str, ...] = ()
    words: tuple[str, ...] = ()

    @property
    def letters(self) -> frozenset[str]:
        """Short option letters (`-rf` gives r and f)."""
        return frozenset(c for o in self.options
                         if o.startswith("-") and not o.startswith("--") for c in o[1:])


@dataclass(frozen=True)
class Stage:
    """One stage of a pipeline: every command it runs (a wrapper and what it wraps)."""

    commands: tuple[Command, ...]


Pipeline = tuple[Stage, ...]


# ------------------------------------------------------------------------ parsing


def pipelines(text: str) -> list[Pipeline]:
    """Every pipeline the shell would run for `text` (one command is a pipeline of one)."""
    return list(_pipelines(text, 0))


def _pipelines(text: str, depth: int) -> Iterator[Pipeline]:
    if depth > MAX_DEPTH or not text.strip():
        return
    for line in re.split(r"[\r\n]+", text):
        inner, flat = _substitutions(line)
        fed = [p for sub in inner for p in _pipelines(sub, depth + 1)]
        yield from fed
        for pipeline in _split_pipelines(_tokens(flat)):
            stages = tuple(Stage(tuple(_expand(words, depth))) for words in pipeline)
            if any(s.commands for s in stages):
                yield tuple(s for s in stages if s.commands)
            yield from _nested(stages, depth)
            yield from _fed(fed, pipeline, stages)


def _substitutions(line: str) -> tuple[list[str], str]:
    """The commands inside `$(…)`, `<(…)` and backticks, and the line with them replaced."""
    found: list[str] = []

    def keep(match: re.Match[str]) -> str:
        found.append(next(g for g in match.groups() if g is not None))
        return MARK
    return found, _SUBSTITUTION.sub(keep, line)


def _fed(fed: list[Pipeline], words: list[list[str]], stages: Pipeline) -> Iterator[Pipeline]:
    """`bash <(curl …)`, `sh -c "$(curl …)"`: a substitution feeds the rest of the pipeline."""
    for index, stage_words in enumerate(words):
        if any(MARK in word for word in stage_words):
            rest = tuple(s for s in stages[index:] if s.commands)
            for pipeline in fed:
                yield (*pipeline, *rest)
            return


def _tokens(line: str) -> list[str]:
    """Shell words and operators; an unfinished quote is closed rather than refused."""
    for suffix in ("", '"', "'"):
        lexer = shlex.shlex(line + suffix, posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        lexer.commenters = ""
        try:
            return list(lexer)
        except ValueError:
            continue
    return line.split()


def _split_pipelines(tokens: list[str]) -> list[list[list[str]]]:
    """Tokens cut into pipelines (by ; && || &) and pipelines into stages (by |)."""
    result: list[list[list[str]]] = []
    pipeline: list[list[str]] = []
    words: list[str] = []
    skip_next = False
    for token in tokens:
        if skip_next:
            skip_next = False
            words.append(token)  # a redirection's target still counts as a word
            continue
        if token in PIPES:
            pipeline.append(words)
            words = []
        elif token in SEPARATORS or (token and set(token) <= _OPERATOR_CHARS):
            pipeline.append(words)
            result.append([w for w in pipeline if w])
            pipeline, words = [], []
        elif token in REDIRECTS:
            skip_next = True
        else:
            words.append(token)
    pipeline.append(words)
    result.append([w for w in pipeline if w])
    return [p for p in result if p]


def _expand(words: list[str], depth: int) -> Iterator[Command]:
    """The command these words run and, through wrappers, every command inside."""
    words = list(words)
    while words and _ASSIGNMENT.match(words[0]):
        words.pop(0)
    if not words:
        return
    command = _command(words)
    yield command
    inner = _wrapped(command.program, words[1:])
    if inner:
        yield from _expand(inner, depth)


def _command(words: list[str]) -> Command:
    program = words[0].rsplit("/", 1)[-1].lower()
    options = tuple(w.split("=", 1)[0] if w.startswith("--") else w
                    for w in words[1:] if w.startswith("-") and len(w) > 1)
    others = tuple(w for w in words[1:] if not (w.startswith("-") and len(w) > 1))
    return Command(program, options, others)


def _wrapped(program: str, rest: list[str]) -> list[str]:
    """The command line a wrapper runs (after its own options), or [] when none."""
    if program not in WRAPPERS:
        return []
    valued = WRAPPERS[program]
    index = 0
    while index < len(rest) and (rest[index].startswith("-") or _ASSIGNMENT.match(rest[index])):
        index += 2 if rest[index] in valued else 1
    if program in _SKIPS_FIRST_WORD:
        index += 1
    return rest[index:]


def _nested(stages: Pipeline, depth: int) -> Iterator[Pipeline]:
    """`bash -c '…'` and `eval '…'`: the string is a command line of its own."""
    for stage in stages:
        for command in stage.commands:
            if command.program == "eval" and command.words:
                yield from _pipelines(" ".join(command.words), depth + 1)
            elif command.program in SHELLS_WITH_C and "-c" in command.options and command.words:
                yield from _pipelines(command.words[0], depth + 1)


# ------------------------------------------------------------------------ matching


@dataclass(frozen=True)
class CommandSpec:
    """One listed command (see the module docstring); `text` is how the policy wrote it."""

    text: str
    stages: tuple[Command, ...]

    def matches(self, found: Iterable[Pipeline]) -> bool:
        return any(self._in(pipeline) for pipeline in found)

    def _in(self, pipeline: Pipeline) -> bool:
        """The spec's stages appear in this order among the pipeline's stages."""
        position = 0
        for stage in pipeline:
            if position < len(self.stages) and any(
                    _command_matches(c, self.stages[position]) for c in stage.commands):
                position += 1
        return position == len(self.stages)


@lru_cache(maxsize=4096)
def compile_spec(text: str) -> CommandSpec:
    """A spec from its text; ValueError when it names no program."""
    stages = []
    for part in text.split("|"):
        words = part.split()
        if not words:
            raise ValueError(f"command '{text}' has an empty part around '|'")
        stages.append(_command(words))
    return CommandSpec(text, tuple(stages))


def _command_matches(command: Command, spec: Command) -> bool:
    if not fnmatchcase(command.program, spec.program):
        return False
    for option in spec.options:
        if option.startswith("--") or len(option) > 2:
            letters_ok = not option.startswith("--") and set(option[1:]) <= command.letters
            if option not in command.options and not letters_ok:
                return False
        elif option[1:] not in command.letters:
            return False
    return all(any(fnmatchcase(word, w) for word in command.words) for w in spec.words)


def matching(specs: Iterable[CommandSpec], text: str) -> str | None:
    """The first spec any command in `text` matches, as the policy wrote it."""
    found = pipelines(text)
    if not found:
        return None
    return next((spec.text for spec in specs if spec.matches(found)), None)
