"""A full derive's model is written (:func:`wikikv.compile.persisted.write_full`) letting go of
the derive's per-document resolutions and candidate counts as it writes them, and the records
are the same as before."""

from __future__ import annotations

from pathlib import Path

from wikikv.compile import persisted, state
from wikikv.compile.model import derive_full
from wikikv.compile.pipeline import Compiler
from wikikv.store.store import Store


def test_write_full_empties_what_it_wrote_and_writes_the_same_records(
    store: Store, hotpot_slice: Path
) -> None:
    kb = store.create_kb("kb")
    Compiler(kb).build(hotpot_slice)
    start = kb.keys.system(persisted.PREFIX)
    built = {k: item.value for k, item in kb.backend.scan(start, start + b"\xff")}
    docs = state.load_docs(kb)
    schema = state.load_schema(kb)
    assert schema is not None
    derived = derive_full(docs, schema)
    assert derived.resolved
    assert derived.candidates
    persisted.write_full(kb, derived, docs, schema.folder_corpus, schema)
    assert not derived.resolved
    assert not derived.candidates
    assert derived.model.entities  # the render's input stays
    again = {k: item.value for k, item in kb.backend.scan(start, start + b"\xff")}
    assert again.keys() == built.keys()
    assert {k for k in built if built[k] != again[k]} <= {kb.keys.system(persisted.META)}
