"""The analyses a build holds until its derive share one object per name, kind and offset
(:mod:`wikikv.compile.shared_values`), and equal the analyses as decoded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from wikikv.compile import pipeline
from wikikv.compile.model import DocAnalysis
from wikikv.compile.pipeline import Compiler
from wikikv.compile.shared_values import shared
from wikikv.llm.base import MentionOut, SentenceSpan
from wikikv.store.store import Store


def test_shared_analyses_equal_the_decoded_ones_and_share_their_strings() -> None:
    m = MentionOut("john smith", "John Smith", "person", 1, 200, 300)
    spans = [SentenceSpan(200, 300), SentenceSpan(300, 70_000)]
    d = DocAnalysis("a", "T", "en", "fp", sentences=spans, mentions=[m, m], version="v1")
    codec = msgspec.msgpack.Decoder(list[DocAnalysis])
    decoded = codec.decode(msgspec.msgpack.encode([d, d]))
    assert len({id(x.kind) for a in decoded for x in a.mentions}) == 4  # one copy each
    out = [shared(a) for a in decoded]
    assert out == decoded
    for field in ("key", "surface", "kind", "start", "end"):
        assert len({id(getattr(x, field)) for a in out for x in a.mentions}) == 1
    assert out[0].version is out[1].version
    assert out[0].sentences[0].end is out[1].sentences[1].start is out[0].mentions[0].end
    assert out[0].sentences[1].end == 70_000  # past the shared offsets: kept as it is


def test_a_build_derives_from_analyses_sharing_their_strings(
    store: Store, hotpot_slice: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[dict[str, DocAnalysis]] = []
    derive = pipeline.derive_full

    def spy(docs: dict[str, DocAnalysis], *args: Any) -> Any:
        seen.append(docs)
        return derive(docs, *args)

    monkeypatch.setattr(pipeline, "derive_full", spy)
    Compiler(store.create_kb("kb")).build(hotpot_slice)
    (docs,) = seen
    for field in ("key", "surface", "kind", "start"):
        values = [getattr(m, field) for a in docs.values() for m in a.mentions]
        assert len(values) > 1000
        assert len({id(v) for v in values}) == len(set(values)), field  # one per distinct
