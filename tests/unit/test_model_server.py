"""The OpenAI-compatible backend against a scripted transport (no sockets)."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import keyring
import pytest
from keyring.backend import KeyringBackend

from venusctl.core.actions import Surface
from venusctl.core.errors import ModelError, UsageError
from venusctl.model.base import ImagePart, Message, SamplingOptions, TextPart
from venusctl.model.select import api_key
from venusctl.model.server import ServerModel, ServerSettings, base_url, public_url

KEY = "sk-test-0123456789"
MESSAGES = [Message("system", (TextPart("be brief"),)),
            Message("user", (TextPart("Current Screenshot:"), ImagePart(b"img", "image/png")))]
Handler = Callable[[httpx.Request], httpx.Response]


def sse(*events: dict) -> httpx.Response:
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})


def delta(**fields: str) -> dict:
    return {"choices": [{"index": 0, "delta": fields}]}


class Server:
    """Serves /models and /chat/completions from scripted replies; records requests."""

    def __init__(self, *replies: httpx.Response, models: list[str] | None = None) -> None:
        self.replies = list(replies)
        self.models = models if models is not None else ["venus"]
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": [{"id": m} for m in self.models]})
        return self.replies.pop(0)

    def model(self, **settings) -> ServerModel:
        options = {"url": "http://127.0.0.1:9/v1", "retries": 2, "backoff_s": 0.0, **settings}
        client = httpx.Client(transport=httpx.MockTransport(self),
                              headers={"Authorization": f"Bearer {options.get('api_key')}"}
                              if options.get("api_key") else {})
        return ServerModel(ServerSettings(**options), Surface.BROWSER, client=client)

    def body(self, index: int = -1) -> dict:
        return json.loads(self.requests[index].content)


def test_reasoning_content_is_normalised_to_think_tags():
    server = Server(sse(delta(reasoning_content="find the "), delta(reasoning_content="box"),
                        delta(content="<action>Wait()</action>"),
                        {"choices": [], "usage": {"prompt_tokens": 900,
                                                  "completion_tokens": 7}}))
    seen: list[str] = []
    completion = server.model().complete(MESSAGES, SamplingOptions(), on_text=seen.append)
    assert completion.text == "<think>find the box</think>\n<action>Wait()</action>"
    assert completion.reasoning == "find the box"
    assert (completion.prompt_tokens, completion.completion_tokens) == (900, 7)
    assert "".join(seen) == "find the box<action>Wait()</action>"


def test_reasoning_field_and_a_bare_closing_tag_are_handled():
    server = Server(sse(delta(reasoning="look"), delta(content="<action>Wait()</action>")),
                    sse(delta(content="looking\n</think>\n<action>Wait()</action>")))
    model = server.model()
    assert model.complete(MESSAGES, SamplingOptions()).text.startswith("<think>look</think>")
    text = model.complete(MESSAGES, SamplingOptions()).text
    assert text == "<think>looking</think>\n<action>Wait()</action>"


def test_request_carries_images_thinking_switch_and_sampling():
    server = Server(sse(delta(content="[1,2]")))
    server.model().complete(MESSAGES, SamplingOptions(
        thinking=False, temperature=0.0, max_tokens=64, seed=7, repeat_penalty=1.05,
        frequency_penalty=0.3, top_p=0.7))
    body = server.body()
    assert body["model"] == "venus" and body["stream"] is True
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["max_tokens"] == 64 and body["seed"] == 7
    assert body["repeat_penalty"] == body["repetition_penalty"] == 1.05
    assert body["frequency_penalty"] == 0.3 and body["top_p"] == 0.7
    image = body["messages"][1]["content"][1]
    assert image == {"type": "image_url", "image_url": {"url": "data:image/png;base64,aW1n"}}
    assert "grammar" not in body


def test_thinking_on_and_neutral_sampling_leave_the_server_its_defaults():
    server = Server(sse(delta(content="x")))
    server.model().complete(MESSAGES, SamplingOptions(thinking=True))
    body = server.body()
    for absent in ("chat_template_kwargs", "top_p", "repetition_penalty", "frequency_penalty"):
        assert absent not in body


def test_an_image_budget_shrinks_screenshots_before_they_are_sent():
    import base64
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (1080, 2400), (20, 40, 60)).save(buffer, format="PNG")
    big = [Message("user", (TextPart("Current Screenshot:\n"), ImagePart(buffer.getvalue())))]
    server = Server(sse(delta(content="x")), sse(delta(content="x")))
    server.model().complete(big, SamplingOptions())
    server.model(image_max_tokens=1280).complete(big, SamplingOptions())
    sizes = []
    for index in (1, 3):
        url = server.body(index)["messages"][0]["content"][1]["image_url"]["url"]
        data = base64.b64decode(url.split(",", 1)[1])
        sizes.append(Image.open(io.BytesIO(data)).size)
    assert sizes[0] == (1080, 2400)  # unresized by default
    width, height = sizes[1]
    assert width % 32 == 0 and height % 32 == 0 and (width // 32) * (height // 32) <= 1280
    assert abs(width / height - 1080 / 2400) < 0.03


def test_grammar_is_sent_only_when_the_server_takes_it():
    server = Server(sse(delta(content="x")), sse(delta(content="x")))
    server.model(grammar=True).complete(MESSAGES, SamplingOptions(grammar='root ::= "x"'))
    assert server.body()["grammar"] == 'root ::= "x"'
    server.model(grammar=True).complete(MESSAGES, SamplingOptions())
    assert "\nact-click-s0 ::=" in server.body()["grammar"]  # the surface's action grammar


def test_non_streaming_servers_are_understood():
    reply = httpx.Response(200, json={
        "choices": [{"message": {"content": "<action>Wait()</action>",
                                 "reasoning_content": "ok"}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3}})
    completion = Server(reply).model().complete(MESSAGES, SamplingOptions())
    assert completion.text == "<think>ok</think>\n<action>Wait()</action>"
    assert completion.completion_tokens == 3


def test_llama_server_timings_are_recorded():
    server = Server(sse(delta(content="x"), {"choices": [], "timings": {
        "prompt_ms": 1500.0, "predicted_ms": 250.0, "cache_n": 812}}))
    completion = server.model().complete(MESSAGES, SamplingOptions())
    assert (completion.prefill_s, completion.decode_s) == (1.5, 0.25)
    assert completion.reused_tokens == 812


def test_overload_is_retried_with_backoff_then_succeeds():
    busy = httpx.Response(503, json={"error": {"message": "loading model"}})
    server = Server(busy, busy, sse(delta(content="done")))
    assert server.model(retries=2).complete(MESSAGES, SamplingOptions()).text == "done"
    assert len([r for r in server.requests if r.url.path.endswith("/completions")]) == 3


def test_giving_up_names_the_last_error():
    busy = httpx.Response(429, text="slow down")
    with pytest.raises(ModelError, match=r"HTTP 429 slow down \(gave up after 2 attempts\)"):
        Server(busy, busy).model(retries=1).complete(MESSAGES, SamplingOptions())


def test_refused_key_is_reported_without_the_key():
    refused = httpx.Response(401, json={"error": {"message": f"bad key {KEY}"}})
    server = Server(refused)
    with pytest.raises(ModelError, match="refused the API key") as caught:
        server.model(api_key=KEY).complete(MESSAGES, SamplingOptions())
    assert KEY not in str(caught.value)
    assert server.requests[-1].headers["authorization"] == f"Bearer {KEY}"


def test_server_errors_are_redacted():
    echo = httpx.Response(400, json={"error": {"message": f"cannot parse {KEY}"}})
    with pytest.raises(ModelError) as caught:
        Server(echo).model(api_key=KEY).complete(MESSAGES, SamplingOptions())
    assert KEY not in str(caught.value) and "***" in str(caught.value)


def test_stream_error_event_stops_the_answer():
    with pytest.raises(ModelError, match="context overflow"):
        Server(sse({"error": {"message": "context overflow"}})).model().complete(
            MESSAGES, SamplingOptions())


def test_model_name_is_discovered_and_several_need_a_choice():
    model = Server().model()
    assert model.name == "server:venus@http://127.0.0.1:9/v1"
    with pytest.raises(UsageError, match="--server-model"):
        Server(models=["a", "b"]).model()
    assert Server(models=["a", "b"]).model(model="b").served == "b"


def test_unreachable_server_is_a_model_error():
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    client = httpx.Client(transport=httpx.MockTransport(refuse))
    with pytest.raises(ModelError, match="cannot reach the model server"):
        ServerModel(ServerSettings("http://127.0.0.1:9", retries=1, backoff_s=0.0),
                    client=client)


@pytest.mark.parametrize(("given", "expected"), [
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080/v1"),
    ("127.0.0.1:1234", "http://127.0.0.1:1234/v1"),
    ("http://h:11434/v1/", "http://h:11434/v1"),
    ("https://h/api/v1/chat/completions", "https://h/api/v1"),
])
def test_base_url(given, expected):
    assert base_url(given) == expected


def test_public_url_drops_credentials():
    assert public_url("http://user:pw@h:8000/v1") == "http://h:8000/v1"
    with pytest.raises(UsageError):
        base_url("ftp://h")


class MemoryKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.store.get((service, username))

    def set_password(self, service, username, password):
        self.store[(service, username)] = password

    def delete_password(self, service, username):
        self.store.pop((service, username), None)


def test_api_key_order_env_flag_then_default_env_then_keyring(monkeypatch):
    ring = MemoryKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(ring)
    try:
        monkeypatch.delenv("VENUSCTL_API_KEY", raising=False)
        assert api_key("http://h:8080", None) is None
        ring.set_password("venusctl", "http://h:8080/v1", "from-ring")
        assert api_key("http://h:8080", None) == "from-ring"
        monkeypatch.setenv("VENUSCTL_API_KEY", "from-default-env")
        assert api_key("http://h:8080", None) == "from-default-env"
        monkeypatch.setenv("MY_KEY", "from-named-env")
        assert api_key("http://h:8080", "MY_KEY") == "from-named-env"
        with pytest.raises(UsageError, match="NOT_SET: that environment variable is not set"):
            api_key("http://h:8080", "NOT_SET")
    finally:
        keyring.set_keyring(previous)
