"""Provider for any OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek, vLLM, Ollama,
llama.cpp server, ...).

* ``complete_json``: a role call rendered by :func:`~wikikv.llm.prompts.render_messages`, sent
  with ``response_format`` ``json_schema`` (falling back to ``json_object`` once when the server
  rejects it), answered from the response cache when possible, validated against the role schema.
  Malformed JSON, a schema violation, a truncated answer or a refusal is retried with a short
  correction message, then raises :class:`~wikikv.errors.LLMOutputError`.
* ``chat``: free chat with tool calling, for agent loops (tool calls are returned raw; the loop
  validates names and arguments).
* Transport: 429, 5xx, timeouts and connection errors are retried with exponential backoff and
  jitter; a ``Retry-After`` header is honoured (capped). Other HTTP errors fail at once.
  :func:`map_errors` turns every httpx exception into :class:`~wikikv.errors.LLMError`.
* At most ``concurrency`` requests are in flight per provider (a semaphore, shared by
  :meth:`map_concurrent` and by callers on their own threads).
* Usage comes from the response's ``usage`` or is estimated; cost from :class:`Prices`; an
  optional :class:`~wikikv.llm.estimate.TokenBudget` is checked before every call.
"""

from __future__ import annotations

import contextlib
import email.utils
import functools
import json
import os
import random
import re
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx

from wikikv.errors import ConfigError, LLMError, LLMOutputError, WikiKVError
from wikikv.llm.callcache import CallCache, cache_key
from wikikv.llm.estimate import Prices, TokenBudget, estimate_messages_tokens, estimate_tokens
from wikikv.llm.prompts import render_messages
from wikikv.llm.schema import validate, wire_schema
from wikikv.llm.types import ChatMessage, JSONObject, RoleRequest, ToolCall, ToolSpec, Usage

RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n(.*?)\n?\s*```\s*$", re.DOTALL)
_VERSIONED = re.compile(r"/v\d+[a-z0-9]*$")
_EXCERPT = 300


@contextlib.contextmanager
def map_errors(what: str = "LLM request") -> Iterator[None]:
    """Turn httpx exceptions raised inside the block into LLMError (``from`` the original), so
    no httpx exception reaches a caller."""
    try:
        yield
    except httpx.TimeoutException as exc:
        raise LLMError(f"{what} timed out: {exc!r}") from exc
    except httpx.HTTPError as exc:
        raise LLMError(f"{what} failed: {exc!r}") from exc


@dataclass(frozen=True)
class RoleResult:
    """The outcome of one request of :meth:`OpenAICompatProvider.map_concurrent`."""

    request: RoleRequest
    value: JSONObject | None
    usage: Usage
    error: WikiKVError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@functools.cache
def _default_ssl_context() -> ssl.SSLContext:
    """One TLS context per process, from the system's trust store. httpx builds a new one from
    certifi per client (about 0.3 s here); sharing one keeps providers cheap to create."""
    return ssl.create_default_context()


class _Retry(Exception):
    """Internal: the attempt failed in a way worth retrying after ``delay`` seconds."""

    def __init__(self, reason: str, delay: float | None = None) -> None:
        super().__init__(reason)
        self.delay = delay


class _Fallback(_Retry):
    """Internal: the server refused structured outputs; resend at once in JSON mode."""


def chat_url(base_url: str) -> str:
    """``…/chat/completions`` under ``base_url``; adds ``/v1`` unless the URL names a version."""
    base = base_url.rstrip("/")
    if not _VERSIONED.search(base):
        base += "/v1"
    return base + "/chat/completions"


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class OpenAICompatProvider:
    """Role calls and tool-calling chat against an OpenAI-compatible endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key_env: str = "WIKIKV_LLM_API_KEY",
        timeout: float = 120.0,
        max_retries: int = 4,
        concurrency: int = 4,
        *,
        prices: Prices | None = None,
        cache: CallCache | None = None,
        budget: TokenBudget | None = None,
        output_retries: int = 2,
        response_format: str = "auto",
        temperature: float | None = 0.0,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        max_retry_after: float = 120.0,
        transport: httpx.BaseTransport | None = None,
        verify: ssl.SSLContext | bool | None = None,
        sleep: Callable[[float], None] = time.sleep,
        seed: int | None = None,
    ) -> None:
        if concurrency < 1:
            raise ConfigError("concurrency must be >= 1")
        if response_format not in ("auto", "json_schema", "json_object", "none"):
            raise ConfigError(f"unknown response_format mode {response_format!r}")
        self.model = model
        self.name = f"openai:{model}"
        self.url = chat_url(base_url)
        self.timeout = timeout
        self.max_retries = max(0, max_retries)
        self.output_retries = max(0, output_retries)
        self.concurrency = concurrency
        self.prices = prices or Prices()
        self.cache = cache
        self.budget = budget
        self.temperature = temperature
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_retry_after = max_retry_after
        self._format = "json_schema" if response_format == "auto" else response_format
        self._auto_format = response_format == "auto"
        self._sleep = sleep
        self._rng = random.Random(seed)
        self._slots = threading.BoundedSemaphore(concurrency)
        self._lock = threading.Lock()
        self._usage = Usage()
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(api_key_env, "")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        with map_errors("creating the HTTP client"):
            self._client = httpx.Client(
                headers=headers,
                timeout=httpx.Timeout(timeout),
                transport=transport,
                verify=_default_ssl_context() if verify is None else verify,
                limits=httpx.Limits(
                    max_connections=concurrency, max_keepalive_connections=concurrency
                ),
            )

    @classmethod
    def from_env(cls, **kwargs: Any) -> OpenAICompatProvider:
        """A provider configured by ``WIKIKV_LLM_BASE_URL`` and ``WIKIKV_LLM_MODEL``
        (``WIKIKV_LLM_MAX_RETRIES``: transport retries, default 4)."""
        base = os.environ.get("WIKIKV_LLM_BASE_URL")
        model = os.environ.get("WIKIKV_LLM_MODEL")
        if not base or not model:
            raise ConfigError("set WIKIKV_LLM_BASE_URL and WIKIKV_LLM_MODEL to use the LLM mode")
        retries = os.environ.get("WIKIKV_LLM_MAX_RETRIES")
        if retries is not None and "max_retries" not in kwargs:
            if not retries.isdigit():
                raise ConfigError(f"WIKIKV_LLM_MAX_RETRIES={retries!r} is not a whole number")
            kwargs["max_retries"] = int(retries)
        return cls(base, model, **kwargs)

    # --- lifecycle and accounting ----------------------------------------------------------

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAICompatProvider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def usage(self) -> Usage:
        """Everything this provider has spent and saved so far."""
        with self._lock:
            return self._usage

    @property
    def response_format_mode(self) -> str:
        return self._format

    def _account(self, usage: Usage) -> None:
        with self._lock:
            self._usage = self._usage + usage
        if self.budget is not None:
            self.budget.charge(usage)

    def _usage_of(self, body: JSONObject, sent: Sequence[ChatMessage], answer: str) -> Usage:
        raw = body.get("usage")
        prompt = completion = None
        if isinstance(raw, dict):
            prompt = raw.get("prompt_tokens")
            completion = raw.get("completion_tokens")
        if not isinstance(prompt, int):
            prompt = estimate_messages_tokens(m.content or "" for m in sent)
        if not isinstance(completion, int):
            completion = estimate_tokens(answer)
        return Usage(prompt, completion, 1, 0, self.prices.cost(prompt, completion))

    # --- transport ---------------------------------------------------------------------------

    def _backoff(self, attempt: int) -> float:
        ceiling = min(self.backoff_max, self.backoff_base * (2.0**attempt))
        return ceiling * (0.5 + self._rng.random() / 2)

    def _post(self, build: Callable[[], JSONObject]) -> JSONObject:
        """POST a payload, retrying what is worth retrying; the decoded response body."""
        last = "no attempt"
        attempt = 0
        while True:
            try:
                return self._attempt(build())
            except _Fallback:
                continue  # the payload changed shape; this try does not count
            except _Retry as exc:
                last = str(exc)
                if attempt == self.max_retries:
                    break
                delay = exc.delay if exc.delay is not None else self._backoff(attempt)
                self._sleep(delay)
                attempt += 1
        raise LLMError(f"{self.url}: gave up after {self.max_retries + 1} attempts: {last}")

    def _attempt(self, payload: JSONObject) -> JSONObject:
        try:
            with self._slots, map_errors(f"POST {self.url}"):
                response = self._client.post(self.url, json=payload)
        except LLMError as exc:
            raise _Retry(str(exc)) from exc
        status = response.status_code
        if status == 200:
            try:
                body = response.json()
            except ValueError:
                raise _Retry(
                    f"HTTP 200 with a body that is not JSON: {response.text[:_EXCERPT]!r}"
                ) from None
            if not isinstance(body, dict):
                raise _Retry("HTTP 200 with a body that is not a JSON object")
            return body
        excerpt = response.text[:_EXCERPT]
        if status in RETRY_STATUSES:
            wait = parse_retry_after(response.headers.get("Retry-After"))
            if wait is not None:
                wait = min(wait, self.max_retry_after)
            raise _Retry(f"HTTP {status}: {excerpt}", wait)
        if (
            status == 400
            and self._auto_format
            and self._format == "json_schema"
            and ("response_format" in excerpt or "json_schema" in excerpt)
        ):
            # The server does not do structured outputs: fall back to JSON mode for good.
            self._format = "json_object"
            raise _Fallback("server rejected json_schema; falling back to json_object")
        raise LLMError(f"{self.url}: HTTP {status}: {excerpt}")

    def _payload(
        self,
        messages: Sequence[ChatMessage],
        schema: JSONObject | None = None,
        role: str = "answer",
        max_tokens: int | None = None,
        tools: Sequence[ToolSpec] = (),
    ) -> JSONObject:
        payload: JSONObject = {
            "model": self.model,
            "messages": [m.to_wire() for m in messages],
        }
        if self.temperature is not None:
            payload["temperature"] = self.temperature
        if max_tokens is not None:
            payload["max_tokens"] = max_tokens
        if tools:
            payload["tools"] = [tool.to_wire() for tool in tools]
            payload["tool_choice"] = "auto"
        if schema is not None and self._format == "json_schema":
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": re.sub(r"[^A-Za-z0-9_-]", "_", role) or "answer",
                    "schema": wire_schema(schema),
                    "strict": True,
                },
            }
        elif schema is not None and self._format == "json_object":
            payload["response_format"] = {"type": "json_object"}
        return payload

    # --- role calls ----------------------------------------------------------------------------

    def complete_json(self, request: RoleRequest) -> tuple[JSONObject, Usage]:
        # docstring inherited from wikikv.llm.types.Provider
        messages = render_messages(request)
        version = request.prompt_version or request.role
        key = cache_key(self.model, version, messages, request.schema)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                saved = Usage(cache_hits=1)
                self._account(saved)
                return hit.result, saved
        total = Usage()
        convo = list(messages)
        problem = "no attempt"
        for _ in range(self.output_retries + 1):
            if self.budget is not None:
                self.budget.check(estimate_messages_tokens(m.content or "" for m in convo))
            sent = list(convo)
            body = self._post(
                functools.partial(
                    self._payload, sent, request.schema, request.role, request.max_output_tokens
                )
            )
            answer = _content_of(body)
            usage = self._usage_of(body, sent, answer)
            total = total + usage
            self._account(usage)
            try:
                result = _parse_answer(body, request.schema)
            except LLMOutputError as exc:
                problem = str(exc)
                convo = [
                    *messages,
                    ChatMessage(
                        "user",
                        f"Your previous answer was rejected: {problem[:600]}. Answer again with "
                        "only one JSON object that validates against the schema.",
                    ),
                ]
                continue
            if self.cache is not None:
                self.cache.put(key, result, total, request.ids(), self.model, version)
            return result, total
        raise LLMOutputError(
            f"role {request.role!r}: no valid answer after {self.output_retries + 1} attempts: "
            f"{problem}"
        )

    def map_concurrent(self, requests: Sequence[RoleRequest]) -> list[RoleResult]:
        """Run role calls on ``concurrency`` threads; results in request order. A failed call
        (LLMError, LLMOutputError, BudgetExceeded) becomes a result with ``error`` set; the
        others go on, so one bad document never stops a batch."""

        def one(request: RoleRequest) -> RoleResult:
            try:
                value, usage = self.complete_json(request)
            except WikiKVError as exc:
                return RoleResult(request, None, Usage(), exc)
            return RoleResult(request, value, usage)

        if not requests:
            return []
        workers = min(self.concurrency, len(requests))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="wikikv-llm") as pool:
            return list(pool.map(one, requests))

    # --- tool-calling chat -------------------------------------------------------------------

    def chat(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec] = ()
    ) -> tuple[ChatMessage, Usage]:
        # docstring inherited from wikikv.llm.types.ChatProvider
        if self.budget is not None:
            self.budget.check(estimate_messages_tokens(m.content or "" for m in messages))
        sent = list(messages)
        body = self._post(functools.partial(self._payload, sent, tools=tools))
        message = _message_of(body)
        calls = tuple(_tool_call(i, raw) for i, raw in enumerate(message.get("tool_calls") or ()))
        content = message.get("content")
        text = content if isinstance(content, str) else None
        spoken = (text or "") + "".join(c.name + c.arguments for c in calls)
        usage = self._usage_of(body, sent, spoken)
        self._account(usage)
        return ChatMessage("assistant", text, calls), usage


# --- response parsing --------------------------------------------------------------------------


def _message_of(body: JSONObject) -> JSONObject:
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise LLMOutputError("response has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise LLMOutputError("response choice has no message")
    return message


def _content_of(body: JSONObject) -> str:
    try:
        content = _message_of(body).get("content")
    except LLMOutputError:
        return ""
    return content if isinstance(content, str) else ""


def _parse_answer(body: JSONObject, schema: JSONObject) -> JSONObject:
    """The schema-valid JSON object in a completion; LLMOutputError saying why not."""
    message = _message_of(body)
    choice = body["choices"][0]
    refusal = message.get("refusal")
    if refusal:
        raise LLMOutputError(f"the model refused: {str(refusal)[:_EXCERPT]}")
    finish = choice.get("finish_reason")
    if finish == "content_filter":
        raise LLMOutputError("the answer was withheld by the server's content filter")
    if finish == "length":
        raise LLMOutputError("the answer was cut off at the token limit")
    content = message.get("content")
    if not isinstance(content, str) or not content.strip():
        raise LLMOutputError("the answer is empty")
    fenced = _FENCE.match(content)
    text = fenced.group(1) if fenced else content
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise LLMOutputError(
            f"the answer is not valid JSON ({exc}): {content[:_EXCERPT]!r}"
        ) from exc
    if not isinstance(value, dict):
        raise LLMOutputError("the answer is JSON but not an object")
    errors = validate(value, schema)
    if errors:
        raise LLMOutputError("the answer does not match the schema: " + "; ".join(errors[:5]))
    return value


def _tool_call(index: int, raw: Any) -> ToolCall:
    if not isinstance(raw, dict) or not isinstance(raw.get("function"), dict):
        raise LLMOutputError(f"tool call {index} is malformed")
    function = raw["function"]
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise LLMOutputError(f"tool call {index} has no function name")
    args = function.get("arguments", "")
    if not isinstance(args, str):
        # Some servers send the arguments as an object rather than a JSON string.
        args = json.dumps(args, ensure_ascii=False)
    call_id = raw.get("id")
    return ToolCall(
        call_id if isinstance(call_id, str) and call_id else f"call-{index}", name, args
    )
