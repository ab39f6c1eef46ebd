"""Which model answers each task of a batch, and how several tasks share models.

- Scripted answers named by a task (`answers:`) play back for that task alone,
  unless the command line names a model (`--model`, `--server`).
- Several OpenAI-compatible servers (`--server` repeated): every request goes to the
  server with the fewest requests in flight; among equals, the one this task used
  last (its prompt prefix is cached there; new tasks take turns). A server that
  fails is skipped for that request, so one dead machine slows a batch down instead
  of failing it.
- One local GGUF: loaded once, at the first question the trajectory cache cannot
  answer, and shared; answers are produced one at a time (a lock), while the other
  tasks observe, act and settle on their own surfaces.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter

from venusctl.batch.taskfile import TaskSpec
from venusctl.core.actions import Surface
from venusctl.core.errors import ModelError
from venusctl.model.base import Completion, Message, Model, OnText, SamplingOptions
from venusctl.run.build import ModelOptions, open_model


class Balancer:
    """Requests in flight per server, shared by every task of a batch."""

    def __init__(self, urls: tuple[str, ...]) -> None:
        self.urls = urls
        self.in_flight = dict.fromkeys(urls, 0)
        self.answered: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._turn = itertools.count()

    def home(self) -> str:
        """The server a new task starts on: the next in turn, so tasks alternate."""
        with self._lock:
            return self.urls[next(self._turn) % len(self.urls)]

    def order(self, preferred: str) -> list[str]:
        """Servers to try, best first: the least busy, then the task's own."""
        with self._lock:
            start = self.urls.index(preferred)
            rotation = {url: (i - start) % len(self.urls) for i, url in enumerate(self.urls)}
            return sorted(self.urls, key=lambda u: (self.in_flight[u], rotation[u]))

    def begin(self, url: str) -> None:
        with self._lock:
            self.in_flight[url] += 1

    def end(self, url: str, answered: bool) -> None:
        with self._lock:
            self.in_flight[url] -= 1
            if answered:
                self.answered[url] += 1


class SpreadModel:
    """One task's view of several servers; each request goes where the balancer says."""

    supports_grammar = False

    def __init__(self, options: ModelOptions, urls: tuple[str, ...], balancer: Balancer,
                 surface: Surface) -> None:
        from venusctl.model.server import base_url, public_url

        self.options = options
        self.balancer = balancer
        self.surface = surface
        self.urls = urls
        self.models: dict[str, Model] = {}
        self.used: Counter[str] = Counter()
        self.last = balancer.home()
        self.name = "server:" + ",".join(public_url(base_url(u)) for u in urls)

    def complete(self, messages: list[Message], options: SamplingOptions,
                 on_text: OnText | None = None) -> Completion:
        error: ModelError | None = None
        for url in self.balancer.order(self.last):
            self.balancer.begin(url)
            answered = False
            try:
                completion = self._model(url).complete(messages, options, on_text)
                answered = True
            except ModelError as exc:
                error = exc
                continue
            finally:
                self.balancer.end(url, answered)
            self.last = url
            self.used[url] += 1
            return completion
        raise error or ModelError("no model server answered")

    def _model(self, url: str) -> Model:
        if url not in self.models:
            options = self.options.replace(server=url, model=None, answers=None)
            self.models[url] = open_model(options, self.surface)
        return self.models[url]

    def close(self) -> None:
        for model in self.models.values():
            model.close()


class SharedModel:
    """A task's handle on the batch's one local model; closing it leaves the model loaded."""

    def __init__(self, inner: Model, lock: threading.Lock, surface: Surface) -> None:
        self.inner = inner
        self.lock = lock
        self.surface = surface
        self.name = inner.name
        self.supports_grammar = inner.supports_grammar

    def complete(self, messages: list[Message], options: SamplingOptions,
                 on_text: OnText | None = None) -> Completion:
        with self.lock:
            if hasattr(self.inner, "surface"):
                self.inner.surface = self.surface  # the action grammar follows the task
            return self.inner.complete(messages, options, on_text)

    def close(self) -> None:
        return None


class ModelSource:
    """Opens the model for each task; owns what tasks share and closes it at the end."""

    def __init__(self, options: ModelOptions, servers: tuple[str, ...] = ()) -> None:
        self.options = options
        self.servers = servers
        self.explicit = bool(servers) or options.model is not None or options.server is not None
        self.balancer = Balancer(servers) if servers else None
        self._local: Model | None = None
        self._local_lock = threading.Lock()
        self._answer_lock = threading.Lock()
        self._kind: str | None = None

    def uses_answers(self, task: TaskSpec) -> bool:
        return task.answers is not None and not self.explicit

    def for_task(self, task: TaskSpec, surface: Surface) -> Model:
        if self.uses_answers(task):
            from venusctl.model.scripted import ScriptedModel

            assert task.answers is not None
            return ScriptedModel.from_file(task.answers)
        if self.balancer is not None:
            return SpreadModel(self.options, self.servers, self.balancer, surface)
        if self._backend() == "server":
            return open_model(self.options, surface)
        return SharedModel(self._shared(surface), self._answer_lock, surface)

    def _backend(self) -> str:
        if self._kind is None:
            from venusctl.model.select import backend
            from venusctl.model.settings import resolve

            self._kind = backend(resolve(self.options.flags()))
        return self._kind

    def _shared(self, surface: Surface) -> Model:
        with self._local_lock:
            if self._local is None:
                self._local = open_model(self.options, surface, load_later=True)
            return self._local

    def served(self) -> dict[str, int]:
        """Answers per server so far (empty without `--server`)."""
        return dict(self.balancer.answered) if self.balancer else {}

    def close(self) -> None:
        if self._local is not None:
            self._local.close()
            self._local = None
