"""The minimal provider protocol the LLM layer is written against.

A *role call* (``RoleRequest``) asks a model to play one of the prompt roles of
:mod:`wikikv.llm.prompts` over some documents and to answer with one JSON object that validates
against the role's schema. Every provider — the OpenAI-compatible HTTP one and the offline
extractive one — implements :class:`Provider`: ``complete_json(request) -> (dict, Usage)``.

Agent loops additionally need tool calling; providers that can do it implement
:class:`ChatProvider` (``chat(messages, tools) -> ChatMessage`` whose ``tool_calls`` name the
tools the model wants to run).

This module imports nothing from the rest of WikiKV except the errors, so ``llm/base.py`` (the
pipeline's provider interface) can re-export it unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from wikikv.errors import LLMOutputError

JSONObject = dict[str, Any]
Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    """One call the model asked for. ``arguments`` is the raw JSON text the model produced: it may
    be malformed or name a tool that does not exist, and the agent loop must handle both."""

    id: str
    name: str
    arguments: str

    def parsed_arguments(self) -> JSONObject:
        """The arguments as a JSON object; LLMOutputError when they are not one."""
        try:
            value = json.loads(self.arguments or "{}")
        except ValueError as exc:
            raise LLMOutputError(
                f"tool call {self.name!r} has malformed JSON arguments: {exc}"
            ) from exc
        if not isinstance(value, dict):
            raise LLMOutputError(f"tool call {self.name!r} arguments are not a JSON object")
        return value

    def to_wire(self) -> JSONObject:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True)
class ChatMessage:
    """One chat message in the OpenAI chat-completions shape."""

    role: Role
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None

    def to_wire(self) -> JSONObject:
        out: JSONObject = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [call.to_wire() for call in self.tool_calls]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            out["name"] = self.name
        return out


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model: a name, what it does, and a JSON schema of its arguments."""

    name: str
    description: str
    parameters: JSONObject

    def to_wire(self) -> JSONObject:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclass(frozen=True)
class Usage:
    """What some LLM work cost. ``calls`` counts billed model calls (answers received), and
    ``cache_hits`` the calls answered from the response cache instead. Add usages with ``+``."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    cache_hits: int = 0
    cost: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.calls + other.calls,
            self.cache_hits + other.cache_hits,
            self.cost + other.cost,
        )

    def to_dict(self) -> JSONObject:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "calls": self.calls,
            "cache_hits": self.cache_hits,
            "cost": self.cost,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage:
        return cls(
            int(data.get("prompt_tokens", 0)),
            int(data.get("completion_tokens", 0)),
            int(data.get("calls", 0)),
            int(data.get("cache_hits", 0)),
            float(data.get("cost", 0.0)),
        )


@dataclass(frozen=True)
class RoleRequest:
    """One role call.

    ``system`` and ``instructions`` are ours (trusted). ``documents`` are data: a provider places
    each inside a delimited data block (see :func:`wikikv.llm.prompts.render_messages`), never
    among the instructions. ``document_ids`` (same length as ``documents`` when given) name them
    in the blocks and key the response cache's erasure index. ``context`` holds further named data
    blocks (existing page names, the query being answered, ...) — also data, also escaped.
    """

    role: str
    system: str
    documents: Sequence[str]
    instructions: str
    schema: JSONObject
    document_ids: Sequence[str] = ()
    context: Mapping[str, str] = field(default_factory=dict)
    prompt_version: str = ""
    max_output_tokens: int | None = None
    # Error Book rules (data the model applies as constraints; see prompts.CONSTRAINT_POLICY).
    constraints: Sequence[str] = ()

    def ids(self) -> list[str]:
        """The document ids, generated (``doc-1``, ``doc-2``, ...) when none were given."""
        if self.document_ids:
            if len(self.document_ids) != len(self.documents):
                raise ValueError("document_ids and documents differ in length")
            return list(self.document_ids)
        return [f"doc-{i}" for i in range(1, len(self.documents) + 1)]


@runtime_checkable
class Provider(Protocol):
    """Anything that answers role calls with schema-valid JSON."""

    #: Short identifier stored on pages as ``compiled_by`` (e.g. ``openai:gpt-4o-mini``).
    name: str

    def complete_json(self, request: RoleRequest) -> tuple[JSONObject, Usage]:
        """Answer ``request`` with a JSON object valid against ``request.schema`` and what it
        cost. Raises LLMOutputError when no valid answer could be obtained, LLMError when the
        provider failed, BudgetExceeded when a hard cap forbids the call."""
        ...


@runtime_checkable
class ChatProvider(Protocol):
    """A provider that supports free chat with tool calling (for agent loops)."""

    name: str

    def chat(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec] = ()
    ) -> tuple[ChatMessage, Usage]:
        """The assistant's next message (possibly with tool calls) and what it cost."""
        ...
