"""A scripted OpenAI-compatible model server on 127.0.0.1 that counts what it is asked.

Each script is the list of answers for one task, recognised by the task text at the
end of the system prompt. The answer given is the one for the step being asked: the
step after the script's answers that the conversation's last assistant messages
hold (the browser's interface keeps only the last two turns, so counting them would
not do). So a run whose first steps came from somewhere else (the trajectory cache)
and whose history holds those answers is answered from the right step on, as a real
model would carry on.

`delay_s` makes every answer take that long (a model on a GPU box takes seconds).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Asked:
    """One chat-completions request: for which task, at which step, with which texts."""

    task: str
    step: int
    texts: list[tuple[str, str]] = field(default_factory=list)  # (role, text) per message


class ScriptServer:
    """`with ScriptServer({"order a green one": [...answers]}) as model: model.url`."""

    def __init__(self, scripts: dict[str, list[str]], delay_s: float = 0.0) -> None:
        self.scripts = dict(scripts)
        self.delay_s = delay_s
        self.asked: list[Asked] = []
        self._last: dict[str, int] = {}
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ScriptServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def steps_asked(self, task: str | None = None) -> list[int]:
        with self.lock:
            return [a.step for a in self.asked if task is None or a.task == task]

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        messages = body.get("messages") or []
        texts = [(m.get("role", ""), _text(m.get("content"))) for m in messages]
        system = next((text for role, text in texts if role == "system"), "")
        task = next((t for t in self.scripts if system.rstrip().endswith(t)), None)
        if task is None:
            return 400, {"error": {"message": "no script for this task"}}
        said = [_action(text) for role, text in texts if role == "assistant"]
        with self.lock:
            step = self._step(task, said)
            self.asked.append(Asked(task, step, texts))
        script = self.scripts[task]
        if step > len(script):
            return 400, {"error": {"message": f"the script has no answer for step {step}"}}
        time.sleep(self.delay_s)
        return 200, {"object": "chat.completion", "model": "scripted",
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": script[step - 1]}}],
                     "usage": {"prompt_tokens": 100, "completion_tokens": 20}}


    def _step(self, task: str, said: list[str]) -> int:
        """The step whose answer follows the answers `said` last (the earliest such
        place at or after the step asked last, where the script repeats itself)."""
        if not said:
            self._last[task] = 1
            return 1
        script = [_action(a) for a in self.scripts[task]]
        k = len(said)
        ends = [i for i in range(k, len(script) + 1) if script[i - k:i] == said]
        later = [i for i in ends if i + 1 > self._last.get(task, 0)]
        chosen = later or ends
        step = chosen[0] + 1 if chosen else len(said) + 1
        self._last[task] = step
        return step


def _action(text: str) -> str:
    """An answer's action, which is what a conversation's history keeps verbatim."""
    found = re.search(r"<action>(.*?)</action>", text, re.S)
    return (found.group(1) if found else text).strip()


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _handler(server: ScriptServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return None

        def _send(self, status: int, data: dict[str, Any]) -> None:
            body = json.dumps(data).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": "scripted"}]})
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._send(400, {"error": {"message": "not JSON"}})
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": "not found"}})
                return
            self._send(*server.answer(body))

    return Handler
