"""Fixtures shared by the query tests that talk to the scripted loopback LLM server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from wikikv.llm.openai_compat import OpenAICompatProvider
from wikikv.testing.llm_server import ScriptedLLMServer


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    srv = ScriptedLLMServer().start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def provider(server: ScriptedLLMServer) -> Iterator[OpenAICompatProvider]:
    """An OpenAI-compatible provider on the scripted server: one retry, no sleeping."""
    p = OpenAICompatProvider(
        server.base_url, "test-model", timeout=5.0, max_retries=1, sleep=lambda s: None
    )
    yield p
    p.close()
