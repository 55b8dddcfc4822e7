"""A scripted OpenAI-compatible chat-completions server on loopback, for tests.

No LLM endpoint is reachable from our machines, so the HTTP provider and the LLM-mode compile are
tested against this server: a stdlib ``ThreadingHTTPServer`` on ``127.0.0.1``, port 0, run in a
daemon thread. What it answers is decided per request, in this order:

1. the scripted queue (:meth:`ScriptedLLMServer.script`): one :class:`Reply` per request;
2. the handler (:attr:`ScriptedLLMServer.handler`): a function of the recorded request;
3. a *scenario* named in the URL, the way httpx's test app routes on path:
   ``server.url_for("slow")`` → ``http://127.0.0.1:PORT/scenario/slow/v1`` (see ``SCENARIOS``);
4. otherwise :func:`auto_reply`: a deterministic answer valid against the request's schema,
   built from the request's own documents (quotes are real sentences of the first document), so
   an end-to-end LLM-mode build runs without scripting every call.

It records every request (:attr:`requests`) and the highest number of requests in flight at once
(:attr:`max_in_flight`), for assertions such as "a rerun made zero calls" or "document text
appears only inside its data block".
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from wikikv.llm.estimate import estimate_messages_tokens, estimate_tokens
from wikikv.llm.prompts import unescape_data

JSON = dict[str, Any]
_DOC_BLOCK = re.compile(r'<document id="([^"]*)">\n(.*?)\n</document>', re.DOTALL)
_SCHEMA_LINE = re.compile(r"validate against this JSON Schema:\n(\{.*\})\s*$", re.DOTALL)
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]?")
_NAME = re.compile(r"(?:[A-Z][\w'-]+)(?:\s+[A-Z][\w'-]+)*")


@dataclass
class Reply:
    """One scripted HTTP answer: ``body`` is JSON-encoded unless it is ``str`` or ``bytes``."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    raw: bytes

    @property
    def messages(self) -> list[JSON]:
        if isinstance(self.body, dict) and isinstance(self.body.get("messages"), list):
            return list(self.body["messages"])
        return []

    def text_of(self, role: str) -> str:
        """The concatenated content of the messages of ``role``."""
        return "\n".join(m.get("content") or "" for m in self.messages if m.get("role") == role)

    @property
    def documents(self) -> list[tuple[str, str]]:
        """(id, unescaped text) of each ``<document>`` block of the user messages."""
        return [(i, unescape_data(t)) for i, t in _DOC_BLOCK.findall(self.text_of("user"))]

    @property
    def schema(self) -> JSON | None:
        """The JSON schema the request asked for: the full one from the system prompt, else the
        one in ``response_format`` (which the client may have stripped of length bounds)."""
        found = _SCHEMA_LINE.search(self.text_of("system"))
        if found:
            try:
                value = json.loads(found.group(1))
            except ValueError:
                value = None
            if isinstance(value, dict):
                return value
        body = self.body if isinstance(self.body, dict) else {}
        fmt = body.get("response_format") or {}
        if fmt.get("type") == "json_schema":
            schema = fmt.get("json_schema", {}).get("schema")
            if isinstance(schema, dict):
                return schema
        return None


# --- reply builders ----------------------------------------------------------------------------


def completion(
    content: str | None,
    *,
    tool_calls: list[JSON] | None = None,
    finish_reason: str = "stop",
    refusal: str | None = None,
    usage: JSON | None = None,
) -> JSON:
    """A chat-completions response body."""
    message: JSON = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
        finish_reason = "tool_calls"
    if refusal is not None:
        message["refusal"] = refusal
    body: JSON = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
    }
    if usage is not None:
        body["usage"] = usage
    return body


def _usage(prompt: int = 100, completion_tokens: int = 20) -> JSON:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt + completion_tokens,
    }


def good_json(obj: Any, usage: JSON | None = None) -> Reply:
    """A well-formed answer whose content is ``obj`` as JSON (with a usage block)."""
    return Reply(body=completion(json.dumps(obj, ensure_ascii=False), usage=usage or _usage()))


def no_usage(obj: Any) -> Reply:
    """A good answer without a ``usage`` block (the client must estimate)."""
    return Reply(body=completion(json.dumps(obj, ensure_ascii=False)))


def slow(reply: Reply, seconds: float) -> Reply:
    """``reply``, sent after ``seconds``."""
    return Reply(reply.status, reply.body, dict(reply.headers), seconds)


def malformed(text: str = '{"summary": "unterminated') -> Reply:
    """A 200 whose content is not valid JSON."""
    return Reply(body=completion(text, usage=_usage()))


def schema_invalid(obj: Any = None) -> Reply:
    """A 200 whose content is JSON that breaks the schema."""
    return good_json({"unexpected": True} if obj is None else obj)


def refusal(text: str = "I can't help with that.") -> Reply:
    """A refusal in the OpenAI shape (``message.refusal`` set, no content)."""
    return Reply(body=completion(None, refusal=text, usage=_usage()))


def truncated(text: str = '{"summary": "cut') -> Reply:
    return Reply(body=completion(text, finish_reason="length", usage=_usage()))


def rate_limited(retry_after: float | str | None = 1) -> Reply:
    """HTTP 429, with a ``Retry-After`` header unless ``retry_after`` is None."""
    headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
    return Reply(429, {"error": {"message": "rate limited", "type": "rate_limit"}}, headers)


def server_error(status: int = 500) -> Reply:
    return Reply(status, {"error": {"message": f"scripted {status}", "type": "server_error"}})


def bad_request(message: str) -> Reply:
    return Reply(400, {"error": {"message": message, "type": "invalid_request_error"}})


def tool_calls(*calls: tuple[str, str | JSON], content: str | None = None) -> Reply:
    """An assistant message calling tools: each call is (name, arguments as JSON text or dict);
    unknown names and malformed argument text are sent as given."""
    wire = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for i, (name, args) in enumerate(calls)
    ]
    return Reply(body=completion(content, tool_calls=wire, usage=_usage()))


# --- automatic answers -------------------------------------------------------------------------


def _first_sentence(text: str) -> str:
    for match in _SENTENCE.finditer(text):
        sentence = match.group(0).strip()
        if sentence:
            return sentence
    return text.strip()


def _fill(schema: Mapping[str, Any], key: str, doc: str) -> Any:
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        props: Mapping[str, Any] = schema.get("properties", {})
        return {name: _fill(sub, name, doc) for name, sub in props.items()}
    if kind == "array":
        count = max(1, int(schema.get("minItems", 0)))
        items = schema.get("items", {"type": "string"})
        return [_fill(items, key, doc) for _ in range(count)]
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "null":
        return None
    text = _string_for(key, doc)
    text = text[: schema.get("maxLength", len(text))]
    if len(text) < schema.get("minLength", 0):
        text = text.ljust(int(schema["minLength"]), "x")
    return text


def _string_for(key: str, doc: str) -> str:
    sentence = _first_sentence(doc)
    if key == "quote":
        return sentence or "x"
    if key in ("name", "entity", "source", "target", "title", "examples", "aliases"):
        found = _NAME.search(doc)
        return found.group(0) if found else (sentence[:20] or "Entity")
    if key in ("dimension",):
        return "topics"
    if key == "existing_path":
        return ""
    if key == "language":
        return "en"
    return sentence or key


def role_of(schema: Mapping[str, Any] | None) -> str:
    """The prompt role a request's answer schema belongs to (by its properties), or ""."""
    props = set((schema or {}).get("properties", {}))
    for role, marker in _ROLE_MARKERS:
        if marker <= props:
            return role
    return ""


_ROLE_MARKERS: tuple[tuple[str, set[str]], ...] = (
    ("page", {"key_facts", "entities", "links"}),
    ("schema", {"dimensions"}),
    ("descriptor", {"about", "audience"}),
    ("needs_deeper", {"needs_deeper"}),
    ("tie_break", {"choice"}),
    ("section", {"summary", "sources"}),
    ("corpus", {"claims"}),
    ("answer", {"answer", "citations"}),
)
_DIMENSION_NAMES = {
    "person": "people",
    "place": "places",
    "org": "organizations",
    "work": "works",
    "event": "events",
    "topic": "topics",
}


def _scaffold(schema: Mapping[str, Any]) -> JSON:
    """One dimension per entity type the schema allows (its enum), like the extractive one."""
    dim = schema["properties"]["dimensions"]["items"]
    kinds = dim["properties"]["entity_types"]["items"].get("enum") or ["topic"]
    return {
        "dimensions": [
            {
                "name": _DIMENSION_NAMES.get(k, k),
                "title": _DIMENSION_NAMES.get(k, k).title(),
                "description": f"pages of the {_DIMENSION_NAMES.get(k, k)} of the corpus",
                "entity_types": [k],
                "examples": [],
            }
            for k in kinds
        ]
    }


def counted_json(request: RecordedRequest, value: Any) -> Reply:
    """A good answer ``value`` with the usage a real server would report for ``request``."""
    content = json.dumps(value, ensure_ascii=False)
    # token counts as a real server would report them (estimated), so per-document token
    # numbers of a build against this server are meaningful
    prompt = estimate_messages_tokens(m.get("content") or "" for m in request.messages)
    return Reply(body=completion(content, usage=_usage(prompt, estimate_tokens(content))))


def auto_reply(request: RecordedRequest) -> Reply:
    """A valid answer to any request: JSON filling the request's schema from its first document
    (a schema-role answer is a valid scaffold), or a plain answer when there is no schema."""
    schema = request.schema
    docs = request.documents
    doc = docs[0][1] if docs else ""
    if schema is None:
        return Reply(body=completion("ok", usage=_usage()))
    if role_of(schema) == "schema":
        return counted_json(request, _scaffold(schema))
    return counted_json(request, _fill(schema, "", doc))


SCENARIOS: dict[str, Callable[[RecordedRequest], Reply]] = {
    "good": auto_reply,
    "model": lambda r: _model(r),
    "slow": lambda r: slow(auto_reply(r), 5.0),
    "malformed": lambda r: malformed(),
    "schema_invalid": lambda r: schema_invalid(),
    "refusal": lambda r: refusal(),
    "truncated": lambda r: truncated(),
    "rate_limited": lambda r: rate_limited(1),
    "status_500": lambda r: server_error(500),
    "status_503": lambda r: server_error(503),
    "tool_call": lambda r: tool_calls(("wiki_search", {"query": "Lu Xun"})),
    "unknown_tool": lambda r: tool_calls(("delete_everything", {})),
    "bad_arguments": lambda r: tool_calls(("wiki_read", '{"paths": ["/people"')),
    # Always asks for another tool call: the agent loop must stop on its own budget.
    "never_stopping": lambda r: tool_calls(("wiki_search", {"query": f"again {len(r.messages)}"})),
}


def _model(request: RecordedRequest) -> Reply:
    from wikikv.testing.llm_model import model_reply  # it builds on this module

    return model_reply(request)


_SCENARIO_PATH = re.compile(r"^/scenario/([a-z0-9_]+)(/.*)$")


class SleepRecorder:
    """Stands in for ``time.sleep`` in a provider so backoff is observable and costs no wall
    time (``OpenAICompatProvider(..., sleep=SleepRecorder())``)."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


# --- the server --------------------------------------------------------------------------------


class ScriptedLLMServer:
    """The loopback server; use as a context manager or call :meth:`start` / :meth:`stop`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.handler: Callable[[RecordedRequest], Reply] | None = None
        self.default: Callable[[RecordedRequest], Reply] = auto_reply
        self._queue: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._in_flight = 0
        self.max_in_flight = 0
        self._released = threading.Event()  # set: delayed replies go at once
        self._httpd = ThreadingHTTPServer((host, port), _make_handler(self))
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False  # slow handlers must not hold up stop()
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The URL to give a provider as ``base_url`` (ends in ``/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def url_for(self, scenario: str) -> str:
        """A base URL whose requests are answered by the stateless scenario ``scenario``."""
        if scenario not in SCENARIOS:
            raise KeyError(f"unknown scenario {scenario!r} (known: {', '.join(sorted(SCENARIOS))})")
        return f"http://127.0.0.1:{self.port}/scenario/{scenario}/v1"

    def start(self) -> ScriptedLLMServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},  # stop() waits for one poll: keep teardown fast
            name="scripted-llm-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._released.set()  # wakes slow replies
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- scripting and records ---

    def script(self, *replies: Reply) -> None:
        """Queue replies; each request takes the next one."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def completions(self) -> list[RecordedRequest]:
        """The chat-completions requests received."""
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self._requests.clear()
            self.max_in_flight = 0
        self.handler = None
        self.default = auto_reply

    # --- called from the handler threads ---

    def _enter(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _reply_for(self, request: RecordedRequest, scenario: str | None) -> Reply:
        with self._lock:
            queued = self._queue.popleft() if self._queue else None
        if queued is not None:
            return queued
        if self.handler is not None:
            return self.handler(request)
        if scenario is not None:
            return SCENARIOS[scenario](request)
        return self.default(request)

    def release(self) -> None:
        """Send every delayed reply now, and later ones without their delay: a test holds a
        client inside a call with ``slow(reply, long)`` until it has done what it must."""
        self._released.set()

    def _wait(self, seconds: float) -> None:
        self._released.wait(seconds)


def _make_handler(server: ScriptedLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes; with Nagle on, keep-alive clients wait ~40 ms
        # for a delayed ACK on every reply.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            """Silence the default stderr access log."""

        def _send(self, reply: Reply) -> None:
            if isinstance(reply.body, bytes):
                data = reply.body
            elif isinstance(reply.body, str):
                data = reply.body.encode("utf-8")
            else:
                data = json.dumps(reply.body, ensure_ascii=False).encode("utf-8")
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test); nothing to tell it

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = None
            path, scenario = self.path, None
            routed = _SCENARIO_PATH.match(path)
            if routed and routed.group(1) in SCENARIOS:
                scenario, path = routed.group(1), routed.group(2)
            request = RecordedRequest(self.command, self.path, dict(self.headers), body, raw)
            server._enter(request)
            try:
                if self.command == "GET" and path.endswith("/models"):
                    reply = Reply(body={"object": "list", "data": [{"id": "scripted"}]})
                elif self.command == "POST" and path.endswith("/chat/completions"):
                    if body is None:
                        reply = bad_request("request body is not JSON")
                    else:
                        try:
                            reply = server._reply_for(request, scenario)
                        except Exception as exc:  # a broken test handler: say so, stay up
                            reply = Reply(500, {"error": {"message": f"handler failed: {exc!r}"}})
                else:
                    reply = Reply(404, {"error": {"message": f"no route {self.path}"}})
                if reply.delay > 0:
                    server._wait(reply.delay)
                self._send(reply)
            finally:
                server._leave()

        def do_POST(self) -> None:
            self._handle()

        def do_GET(self) -> None:
            self._handle()

    return Handler
