"""A kb started from a few notes outgrows the sample its cold start read: its dimensions are
induced again when it has doubled (until a full sample has been read), so a first note about
one person does not leave every later person under /topics. A full sample sticks."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikikv.compile import state
from wikikv.compile.pipeline import CompileOptions, Compiler
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import Store, open_store

FIRST = {"fujino": "Fujino Genkurō was a Japanese writer who taught Lu Xun in Sendai.\n"}
MORE = {
    name.lower().replace(" ", "-"): f"{name} was a Japanese writer. {name} lived in Tokyo.\n"
    for name in ("Natsume Sōseki", "Mori Ōgai", "Akutagawa Ryūnosuke")
}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = open_store(f"lmdb://{tmp_path / 'store'}?sync=false")
    yield s
    s.close()


def notes(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    return folder


def wiki(kb: KnowledgeBase) -> set[str]:
    return {p for p in kb.prefix("/") if not p.startswith("/sources")}


def fresh(store: Store, folder: Path) -> set[str]:
    kb = store.create_kb("fresh")
    Compiler(kb).build(folder)
    return wiki(kb)


def test_a_kb_grown_by_builds_gets_the_dimensions_a_fresh_build_has(
    store: Store, tmp_path: Path
) -> None:
    folder = notes(tmp_path / "notes", FIRST)
    kb = store.create_kb("k")
    Compiler(kb).build(folder)
    assert "/topics/Fujino Genkurō" in wiki(kb)  # one person: no /people yet
    notes(folder, MORE)
    report = Compiler(kb).build(folder)
    assert report.rescaffolded
    got = wiki(kb)
    assert "/people/Fujino Genkurō" in got
    assert "/people/Natsume Sōseki" in got
    assert "/topics/Fujino Genkurō" not in got
    assert got == fresh(store, folder)
    schema = state.load_schema(kb)
    assert schema is not None
    assert len(schema.sample_ids) == 4


def test_adds_induce_the_dimensions_again_each_time_the_kb_doubles(
    store: Store, tmp_path: Path
) -> None:
    kb = store.create_kb("k")
    Compiler(kb).build(notes(tmp_path / "first", FIRST))
    sizes = []
    for i, (name, text) in enumerate(MORE.items()):
        report = Compiler(kb).add(notes(tmp_path / f"add{i}", {name: text}))
        schema = state.load_schema(kb)
        assert schema is not None
        sizes.append(len(schema.sample_ids))
        if i == 0:
            assert report.rescaffolded  # two people now: /people, by a full derive
            assert report.model_reads == {}
    assert sizes == [2, 2, 4]  # 1 -> 2 and 2 -> 4 documents; 3 is not twice 2
    assert "/people/Akutagawa Ryūnosuke" in wiki(kb)
    assert wiki(kb) == fresh(store, notes(tmp_path / "all", {**FIRST, **MORE}))


def test_a_full_sample_sticks(store: Store, tmp_path: Path) -> None:
    kb = store.create_kb("k")
    options = CompileOptions(sample_size=1)
    Compiler(kb, options=options).build(notes(tmp_path / "first", FIRST))
    before = state.load_schema(kb)
    report = Compiler(kb, options=options).build(notes(tmp_path / "first", MORE))
    assert not report.rescaffolded
    assert state.load_schema(kb) == before
    assert "/topics/Natsume Sōseki" in wiki(kb)  # the scaffold of the first build stands


def test_a_dimension_kept_keeps_its_routing(store: Store, tmp_path: Path) -> None:
    from wikikv.compile.schema import RoutingPlan

    folder = notes(tmp_path / "notes", {**FIRST, "tokyo": "Tokyo is the capital of Japan.\n"})
    kb = store.create_kb("k")
    Compiler(kb).build(folder)
    schema = state.load_schema(kb)
    assert schema is not None
    assert "places" in {d.name for d in schema.dimensions}
    plan = RoutingPlan(groups={"capitals": "capitals"}, other="other places")
    schema.routing = {"places": plan, "gone": RoutingPlan(other="x")}  # as evolve writes them
    state.write(kb, [state.schema_op(kb, schema)])
    notes(folder, MORE)
    assert Compiler(kb).build(folder).rescaffolded
    grown = state.load_schema(kb)
    assert grown is not None
    assert "people" in {d.name for d in grown.dimensions}
    assert grown.routing == {"places": plan}
