"""llama-cpp-python's own OpenAI-compatible server, serving the tiny test model."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.tiny_model import (  # noqa: F401 - fixtures
    ModelFiles,
    grammatical_model,
    tiny_model,
)

API_KEY = "sk-venus-test-6f1c0ffee"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tiny_model: ModelFiles, tmp_path_factory: pytest.TempPathFactory,  # noqa: F811
                 ) -> Iterator[str]:
    """The server's URL, serving the random tiny model; it needs API_KEY. Its log is
    kept for failures."""
    yield from _serve(tiny_model, tmp_path_factory)


@pytest.fixture(scope="module")
def grammatical_server(grammatical_model: ModelFiles,  # noqa: F811
                       tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The same server, serving the model that answers one valid Click at every step:
    for multi-step runs, whose time must not depend on what a random model writes."""
    yield from _serve(grammatical_model, tmp_path_factory)


def _serve(files: ModelFiles, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log_path: Path = tmp_path_factory.mktemp("llama-server") / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(files.model),
        "--clip_model_path", str(files.mmproj), "--chat_format", "mtmd",
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192",
        "--flash_attn", "true", "--api_key", API_KEY,
    ]
    with log_path.open("w") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, process, log_path)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_ready(url: str, process: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"llama_cpp.server exited ({process.returncode}):\n"
                        f"{log_path.read_text()[-3000:]}")
        try:
            reply = httpx.get(f"{url}/v1/models", timeout=2,
                              headers={"Authorization": f"Bearer {API_KEY}"})
            if reply.status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    pytest.fail(f"llama_cpp.server did not start:\n{log_path.read_text()[-3000:]}")
