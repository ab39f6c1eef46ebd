"""The model behind an OpenAI-compatible chat-completions server.

llama.cpp's `llama-server`, vLLM, LM Studio, Ollama and llama-cpp-python's server
all speak `POST {base}/chat/completions`. What differs is handled here, once:
reasoning arrives inside the text (`…</think>`), in `reasoning_content` (llama-server,
older vLLM) or in `reasoning` (newer vLLM, Ollama), and is normalised to
`<think>…</think>`; thinking is switched with `chat_template_kwargs.enable_thinking`
(llama-server, vLLM; others ignore it) and, like the authors' harness, sent only to
turn thinking off (on is the template's default); the repetition penalty goes under
both of its names; timings and cached-token counts are read where the server reports
them. Screenshots go as they are unless an image budget is set (`venusctl.model.images`).

The API key travels only in the Authorization header. It is never part of the
model's name, a log line, an error message or the run record.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from venusctl.core.actions import Surface, normalize_answer
from venusctl.core.errors import ModelError, UsageError
from venusctl.model.base import Completion, ImagePart, Message, OnText, SamplingOptions
from venusctl.model.images import fit

log = logging.getLogger(__name__)

RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
MAX_BACKOFF_S = 30.0
_REASONING_KEYS = ("reasoning_content", "reasoning")


@dataclass(frozen=True)
class ServerSettings:
    url: str
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 120.0
    connect_timeout_s: float = 10.0
    retries: int = 3
    backoff_s: float = 1.0
    grammar: bool = False  # send GBNF grammars (llama-server and llama-cpp-python accept them)
    image_max_tokens: int | None = None  # scale screenshots down to this many 32x32 cells


def base_url(url: str) -> str:
    """The API root: `http://h:8080` -> `http://h:8080/v1`; a full endpoint URL is trimmed."""
    text = url.strip()
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--server must be an http(s) URL, not '{url}'")
    path = parts.path.rstrip("/")
    for suffix in ("/chat/completions", "/completions"):
        path = path.removesuffix(suffix)
    if not path:
        path = "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def public_url(url: str) -> str:
    """The URL without any user:password part, fit for names and messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


class ServerModel:
    """Answers through a chat-completions server; one HTTP client per run."""

    def __init__(
        self,
        settings: ServerSettings,
        surface: Surface | None = None,
        client: httpx.Client | None = None,
    ) -> None:
        self.settings = settings
        self.surface = surface
        self.base = base_url(settings.url)
        self.supports_grammar = settings.grammar
        headers = {"Accept": "application/json, text/event-stream"}
        if settings.api_key:
            headers["Authorization"] = f"Bearer {settings.api_key}"
        self.client = client or httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(settings.timeout_s, connect=settings.connect_timeout_s),
        )
        self.served = settings.model or self._discover_model()
        self.name = f"server:{self.served}@{public_url(self.base)}"

    # ---------------------------------------------------------------- public
    def complete(
        self, messages: list[Message], options: SamplingOptions, on_text: OnText | None = None
    ) -> Completion:
        body = self.request_body(messages, options)
        started = time.perf_counter()
        for attempt in range(self.settings.retries + 1):
            try:
                return self._stream(body, started, on_text)
            except _Retryable as exc:
                if attempt >= self.settings.retries:
                    raise ModelError(f"{public_url(self.base)}: {exc} (gave up after "
                                     f"{attempt + 1} attempts)") from None
                delay = exc.retry_after or self._backoff(attempt)
                log.warning("model server: %s; retrying in %.1f s", exc, delay)
                time.sleep(delay)
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.client.close()

    def request_body(self, messages: list[Message], options: SamplingOptions) -> dict[str, Any]:
        """The JSON sent to the server (tests and --verbose look at it, minus images)."""
        body: dict[str, Any] = {
            "model": self.served,
            "messages": [self._fitted(m).to_openai() for m in messages],
            "max_tokens": options.max_tokens,
            "temperature": options.temperature,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if options.top_p != 1.0:
            body["top_p"] = options.top_p
        if not options.thinking:
            body["chat_template_kwargs"] = {"enable_thinking": False}
        if options.repeat_penalty != 1.0:
            body["repeat_penalty"] = options.repeat_penalty  # llama.cpp, LM Studio
            body["repetition_penalty"] = options.repeat_penalty  # vLLM
        if options.frequency_penalty:
            body["frequency_penalty"] = options.frequency_penalty
        if options.seed is not None:
            body["seed"] = options.seed
        grammar = options.grammar or self._navigation_grammar(options)
        if grammar and self.supports_grammar:
            body["grammar"] = grammar
        return body

    def _fitted(self, message: Message) -> Message:
        budget = self.settings.image_max_tokens
        if budget is None or not message.images:
            return message
        parts = tuple(fit(p, budget) if isinstance(p, ImagePart) else p for p in message.parts)
        return Message(message.role, parts)

    def _navigation_grammar(self, options: SamplingOptions) -> str | None:
        """The surface's action grammar, when the server takes GBNF (`[server] grammar`).

        The Qwen3.5 template opens `<think>` in the prompt when thinking is on and
        writes an empty closed think block when it is off; the grammar starts there.
        The whole answer is held to `max_tokens` bytes (so tokens): the server cannot be
        asked to close a long thought in time, so the thought gets at most half of it,
        and the action what the thought leaves. A model held to the grammar always ends
        in an action.
        """
        if not self.supports_grammar or self.surface is None:
            return None
        from venusctl.model.grammar import GrammarOptions, action_grammar

        return action_grammar(self.surface, GrammarOptions(
            thinking=options.thinking, budget=options.max_tokens, bounded_thought=True))

    # ------------------------------------------------------------- internals
    def _backoff(self, attempt: int) -> float:
        return min(self.settings.backoff_s * (2 ** attempt), MAX_BACKOFF_S)

    def _discover_model(self) -> str:
        """The one model the server serves, so `--server-model` is needed only when it has
        several (vLLM and Ollama check the name; llama-server ignores it)."""
        for attempt in range(self.settings.retries + 1):
            try:
                response = self.client.get(f"{self.base}/models")
                break
            except httpx.TransportError as exc:
                if attempt >= self.settings.retries:
                    raise ModelError(f"cannot reach the model server at "
                                     f"{public_url(self.base)}: {_describe(exc)}") from None
                time.sleep(self._backoff(attempt))
        if response.status_code in (401, 403):
            raise ModelError(f"{public_url(self.base)} refused the API key "
                             f"(HTTP {response.status_code}); check --api-key-env or the keyring")
        if response.status_code != 200:
            return "default"
        ids = [m.get("id") for m in _json(response).get("data", []) if isinstance(m, dict)]
        ids = [i for i in ids if isinstance(i, str)]
        if len(ids) > 1:
            raise UsageError(f"{public_url(self.base)} serves several models "
                             f"({', '.join(ids[:8])}); choose one with --server-model")
        return ids[0] if ids else "default"

    def _stream(self, body: dict[str, Any], started: float, on_text: OnText | None) -> Completion:
        url = f"{self.base}/chat/completions"
        try:
            with self.client.stream("POST", url, json=body) as response:
                self._check(response)
                kind = response.headers.get("content-type", "")
                if "text/event-stream" not in kind:
                    response.read()
                    return self._whole(_json(response), started, on_text)
                return _Collector(started, on_text).run(_events(response.iter_lines()))
        except httpx.TransportError as exc:
            raise _Retryable(_describe(exc)) from None

    def _check(self, response: httpx.Response) -> None:
        if response.status_code == 200:
            return
        response.read()
        detail = self._redact(_error_text(response))
        if response.status_code in RETRY_STATUS:
            raise _Retryable(f"HTTP {response.status_code} {detail}".strip(),
                             _retry_after(response))
        if response.status_code in (401, 403):
            raise ModelError(f"{public_url(self.base)} refused the API key "
                             f"(HTTP {response.status_code}); check --api-key-env or the keyring")
        raise ModelError(f"{public_url(self.base)} answered HTTP {response.status_code}: {detail}")

    def _whole(self, data: dict[str, Any], started: float, on_text: OnText | None) -> Completion:
        collector = _Collector(started, on_text)
        choices = data.get("choices") or [{}]
        collector.add(choices[0].get("message") or {})
        collector.usage(data)
        return collector.finish()

    def _redact(self, text: str) -> str:
        key = self.settings.api_key
        return text.replace(key, "***") if key else text


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _Collector:
    """Gathers streamed deltas into one `Completion`."""

    def __init__(self, started: float, on_text: OnText | None) -> None:
        self.started = started
        self.on_text = on_text
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self.first_token: float | None = None
        self.pieces = 0
        self.stats: dict[str, Any] = {}

    def run(self, events: Iterator[dict[str, Any]]) -> Completion:
        for event in events:
            if isinstance(event.get("error"), (dict, str)):
                error = event["error"]
                message = error.get("message", error) if isinstance(error, dict) else error
                raise ModelError(f"the model server failed mid-answer: {message}")
            for choice in event.get("choices") or []:
                self.add(choice.get("delta") or {})
            self.usage(event)
        return self.finish()

    def add(self, delta: dict[str, Any]) -> None:
        text = delta.get("content")
        thought = next((delta[k] for k in _REASONING_KEYS if isinstance(delta.get(k), str)), None)
        for piece, bucket in ((thought, self.reasoning), (text, self.content)):
            if isinstance(piece, str) and piece:
                if self.first_token is None:
                    self.first_token = time.perf_counter()
                bucket.append(piece)
                self.pieces += 1
                if self.on_text is not None:
                    self.on_text(piece)

    def usage(self, event: dict[str, Any]) -> None:
        usage = event.get("usage")
        if isinstance(usage, dict):
            self.stats["prompt_tokens"] = usage.get("prompt_tokens")
            self.stats["completion_tokens"] = usage.get("completion_tokens")
            details = usage.get("prompt_tokens_details")
            if isinstance(details, dict):
                self.stats["reused_tokens"] = details.get("cached_tokens")
        timings = event.get("timings")  # llama-server
        if isinstance(timings, dict):
            self.stats["prefill_s"] = _ms(timings.get("prompt_ms"))
            self.stats["decode_s"] = _ms(timings.get("predicted_ms"))
            self.stats["reused_tokens"] = timings.get("cache_n")

    def finish(self) -> Completion:
        ended = time.perf_counter()
        content = "".join(self.content)
        reasoning = "".join(self.reasoning) or None
        first = self.first_token or ended
        text = normalize_answer(content, reasoning) if reasoning or _has_think(content) \
            else content
        return Completion(
            text=text,
            reasoning=reasoning,
            prompt_tokens=_int(self.stats.get("prompt_tokens")),
            completion_tokens=_int(self.stats.get("completion_tokens")) or self.pieces,
            reused_tokens=_int(self.stats.get("reused_tokens")),
            prefill_s=self.stats.get("prefill_s") or (first - self.started),
            decode_s=self.stats.get("decode_s") or (ended - first),
            total_s=ended - self.started,
        )


def _has_think(text: str) -> bool:
    lowered = text.lower()
    return "</think>" in lowered or "<think>" in lowered


def _events(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """Server-sent events: `data: {json}` lines until `data: [DONE]`."""
    for line in lines:
        if not line.startswith("data:"):
            continue
        payload = line[5:].strip()
        if payload == "[DONE]":
            return
        try:
            event = json.loads(payload)
        except json.JSONDecodeError:
            log.debug("model server: ignoring a malformed event: %.200s", payload)
            continue
        if isinstance(event, dict):
            yield event


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        value = response.json()
    except ValueError:
        raise ModelError(f"the model server sent something that is not JSON: "
                         f"{response.text[:120]!r}") from None
    return value if isinstance(value, dict) else {}


def _error_text(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return " ".join(response.text.split())[:200]
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        error = error.get("message") or error.get("detail") or error
    return " ".join(str(error).split())[:200]


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return min(float(response.headers.get("retry-after", "")), MAX_BACKOFF_S)
    except ValueError:
        return None


def _describe(exc: httpx.TransportError) -> str:
    kind = {
        httpx.ConnectError: "connection refused or host unknown",
        httpx.ConnectTimeout: "timed out connecting",
        httpx.ReadTimeout: "timed out waiting for the answer",
        httpx.RemoteProtocolError: "the connection broke",
    }
    for cls, words in kind.items():
        if isinstance(exc, cls):
            return words
    return type(exc).__name__


def _ms(value: Any) -> float | None:
    return float(value) / 1000.0 if isinstance(value, (int, float)) else None


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) else 0
