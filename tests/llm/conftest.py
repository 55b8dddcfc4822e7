"""Fixtures of the LLM tests: a scripted OpenAI-compatible server and providers pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from wikikv.llm.openai_compat import OpenAICompatProvider
from wikikv.testing.llm_server import ScriptedLLMServer, SleepRecorder


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    """A fresh scripted server on 127.0.0.1, port 0, per test.

    Per test rather than per session because tests assert on what it recorded (request counts,
    peak in-flight requests) and script its queue; starting one costs about a millisecond. It is
    stopped by handle in ``finally``, which also wakes any reply still sleeping in a slow scenario.
    """
    server = ScriptedLLMServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def make_provider(
    llm_server: ScriptedLLMServer, sleeps: SleepRecorder
) -> Iterator[Callable[..., OpenAICompatProvider]]:
    """Build providers against ``llm_server`` (recorded sleeps, fixed jitter seed); all are
    closed at teardown."""
    made: list[OpenAICompatProvider] = []

    def make(**kwargs: Any) -> OpenAICompatProvider:
        options: dict[str, Any] = {
            "timeout": 5.0,
            "max_retries": 3,
            "concurrency": 2,
            "sleep": sleeps,
            "seed": 7,
        }
        options.update(kwargs)
        base_url = options.pop("base_url", llm_server.base_url)
        provider = OpenAICompatProvider(base_url, options.pop("model", "test-model"), **options)
        made.append(provider)
        return provider

    yield make
    for provider in made:
        provider.close()
