"""The content-addressed response cache: reruns make zero calls, erasure deletes responses."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from wikikv.llm.callcache import (
    CacheStorage,
    CallCache,
    MemoryCacheStorage,
    cache_key,
)
from wikikv.llm.openai_compat import OpenAICompatProvider
from wikikv.llm.prompts import build_request, render_messages
from wikikv.llm.types import ChatMessage, RoleRequest, Usage
from wikikv.store.callcache_storage import BackendCacheStorage
from wikikv.store.keys import KBKeys
from wikikv.store.store import Store, open_store
from wikikv.testing.llm_server import ScriptedLLMServer, schema_invalid

Factory = Callable[..., OpenAICompatProvider]


def page_request(doc_id: str, text: str) -> RoleRequest:
    return build_request("page", [text], [doc_id], context={"dimensions": "people, places"})


def test_cache_key_covers_every_input() -> None:
    msgs = [ChatMessage("system", "s"), ChatMessage("user", "u")]
    schema = {"type": "object"}
    base = cache_key("m", "v1", msgs, schema)
    assert base == cache_key("m", "v1", list(msgs), {"type": "object"})
    assert len(base) == 64
    variants = [
        cache_key("m2", "v1", msgs, schema),
        cache_key("m", "v2", msgs, schema),
        cache_key("m", "v1", [msgs[0], ChatMessage("user", "u!")], schema),
        cache_key("m", "v1", msgs, {"type": "array"}),
    ]
    assert base not in variants
    assert len(set(variants)) == 4


def test_rerun_makes_zero_calls(llm_server: ScriptedLLMServer, make_provider: Factory) -> None:
    cache = CallCache()
    docs = {f"doc-{i}": f"Person {i} lived in Shaoxing. They wrote a story." for i in range(5)}
    requests = [page_request(d, t) for d, t in docs.items()]
    first = make_provider(cache=cache).map_concurrent(requests)
    assert all(r.ok for r in first)
    assert len(llm_server.completions) == 5

    rerun_provider = make_provider(cache=cache)  # a new run, same cache
    rerun = rerun_provider.map_concurrent(requests)
    assert len(llm_server.completions) == 5, "a rerun with the same inputs must make zero calls"
    assert [r.value for r in rerun] == [r.value for r in first]
    assert rerun_provider.usage == Usage(cache_hits=5)

    changed = page_request("doc-1", "Person 1 moved to Beijing.")
    rerun_provider.complete_json(changed)
    assert len(llm_server.completions) == 6


def test_invalid_answers_are_not_cached(
    llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    cache = CallCache()
    llm_server.script(schema_invalid(), schema_invalid())
    provider = make_provider(cache=cache, output_retries=1)
    with pytest.raises(Exception, match="schema"):
        provider.complete_json(page_request("d", "Lu Xun was a writer."))
    assert len(cache) == 0
    provider.complete_json(page_request("d", "Lu Xun was a writer."))
    assert len(cache) == 1
    assert len(llm_server.completions) == 3


@pytest.fixture(params=["memory", "backend-memory", "backend-lmdb"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[CacheStorage]:
    if request.param == "memory":
        yield MemoryCacheStorage()
        return
    url = "memory://" if request.param == "backend-memory" else f"lmdb://{tmp_path / 'store'}"
    store = open_store(url)
    try:
        yield BackendCacheStorage.for_kb(store.create_kb("cachekb"))
    finally:
        store.backend.close()


def test_erasing_a_document_deletes_its_responses(
    storage: CacheStorage, llm_server: ScriptedLLMServer, make_provider: Factory
) -> None:
    cache = CallCache(storage)
    provider = make_provider(cache=cache)
    a = page_request("a", "Alice lived in Paris.")
    b = page_request("b", "Bob lived in Rome.")
    both = build_request("descriptor", ["Alice lived in Paris.", "Bob lived in Rome."], ["a", "b"])
    for req in (a, b, both):
        provider.complete_json(req)
    assert len(cache) == 3
    assert cache.erase_documents(["a"]) == 2  # a's page call and the sample call citing a
    assert len(cache) == 1
    assert cache.erase_documents(["a"]) == 0
    calls = len(llm_server.completions)
    provider.complete_json(b)
    assert len(llm_server.completions) == calls, "b's response must survive a's erasure"
    provider.complete_json(a)
    provider.complete_json(both)
    assert len(llm_server.completions) == calls + 2


def test_backend_storage_lives_in_the_c_keyspace() -> None:
    store: Store = open_store("memory://")
    kb = store.create_kb("k1")
    other = store.create_kb("k2")
    cache = CallCache(BackendCacheStorage.for_kb(kb))
    msgs = render_messages(page_request("x/y 文档", "text"))
    key = cache_key("m", "v", msgs, {})
    cache.put(key, {"ok": 1}, Usage(10, 2, 1), ["x/y 文档"], "m", "v")
    start, end = KBKeys("k1").space_range("C")
    raw = [k for k, _ in store.backend.scan(start, end)]
    assert len(raw) == 2  # the response and one erasure-index entry
    assert list(kb.walk("/")) == ["/"]  # invisible to the tree
    # a second cache over the same backend (another process, a later run) sees it
    again = CallCache(BackendCacheStorage.for_kb(store.kb("k1")))
    hit = again.get(key)
    assert hit is not None
    assert hit.result == {"ok": 1}
    assert hit.usage.prompt_tokens == 10
    assert CallCache(BackendCacheStorage.for_kb(other)).get(key) is None
    assert again.erase_documents(["x/y 文档"]) == 1
    assert list(store.backend.scan(start, end)) == []


def test_corrupt_entry_is_a_miss() -> None:
    storage = MemoryCacheStorage()
    storage.save("k", b"\xff not json", [])
    cache = CallCache(storage)
    assert cache.get("k") is None
    assert (cache.hits, cache.misses) == (0, 1)
