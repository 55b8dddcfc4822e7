"""error_book.yaml export / import, the CLI commands, and the pipeline hooks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from wikikv.compile.pipeline import Compiler
from wikikv.errors import InvalidErrorBook
from wikikv.interfaces.cli import main
from wikikv.quality import errorbook as eb
from wikikv.quality import hooks, seed
from wikikv.quality import validators as v
from wikikv.quality.hooks import gated
from wikikv.quality.run import lint_kb
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import Store, open_store

from .conftest import CONFLICTING, write_corpus


def test_yaml_round_trip(clean_kb: KnowledgeBase, store: Store) -> None:
    seed.seed_errors(clean_kb, 1, seed=1, types=(v.DANGLING, v.MALFORMED))
    lint_kb(clean_kb)
    text = eb.to_yaml(eb.load(clean_kb))
    for field in (
        "phenomenon",
        "affected_paths",
        "root_cause",
        "constraint_rule",
        "verification_method",
        "status",
        "first_seen",
        "last_verified",
    ):
        assert f"{field}:" in text
    other = store.create_kb("other")
    assert eb.import_yaml(other, text) == 2
    again = eb.load(other)
    assert {k: (e.status, e.constraint, e.affected) for k, e in again.entries.items()} == {
        k: (e.status, e.constraint, e.affected) for k, e in eb.load(clean_kb).entries.items()
    }
    assert eb.to_yaml(again) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2", "not YAML"),
        ("entries: []", "'error_book' list"),
        ("error_book:\n- id: a\n  type: t\n", "phenomenon"),
        (
            "error_book:\n- {id: a, type: t, phenomenon: p, root_cause: r, constraint_rule: c, "
            "verification_method: m, status: maybe}",
            "status",
        ),
        (
            "error_book:\n- {id: a, type: t, phenomenon: p, root_cause: r, constraint_rule: c, "
            "verification_method: m, first_seen: yesterday}",
            "first_seen",
        ),
    ],
)
def test_bad_error_book_is_refused_and_changes_nothing(
    clean_kb: KnowledgeBase, text: str, message: str
) -> None:
    seed.seed_errors(clean_kb, 1, seed=1, types=(v.DANGLING,))
    lint_kb(clean_kb)
    before = eb.to_yaml(eb.load(clean_kb))
    with pytest.raises(InvalidErrorBook, match=message):
        eb.import_yaml(clean_kb, text)
    assert eb.to_yaml(eb.load(clean_kb)) == before


def test_periodic_verification_closes_a_fixed_entry(
    clean_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    ((_, path),) = seed.seed_errors(clean_kb, 1, seed=6, types=(v.INDEX,))
    lint_kb(clean_kb)
    assert eb.load(clean_kb).entries[v.INDEX].status == "open"
    lint_kb(clean_kb, fix=True)  # repaired, but verify by the pipeline, not by lint:
    book = eb.load(clean_kb)
    book.entries[v.INDEX].status = "open"
    book.batches = 0
    eb.save(clean_kb, book)
    monkeypatch.setattr(hooks, "VERIFY_EVERY", 2)
    compiler = Compiler(clean_kb, options=gated())
    compiler.add([])
    assert eb.load(clean_kb).entries[v.INDEX].status == "open"  # one batch: not yet
    compiler.add([])
    assert eb.load(clean_kb).entries[v.INDEX].status == "closed"


def test_layer_two_runs_every_n_documents(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hooks, "LLM_FIX_EVERY", 3)
    kb = store.create_kb("l2")
    Compiler(kb, options=gated()).build(write_corpus(tmp_path / "c.jsonl", CONFLICTING))
    # three documents analysed: layer 2 ran inside the build and queued the conflicts
    from wikikv.review import ReviewQueue

    assert ReviewQueue(kb).items()
    assert eb.load(kb).entries[v.CONTRADICTION].status == "open"
    assert eb.load(kb).docs_since_llm_fix == 0


def _cli(store_dir: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [*args, "--store", f"lmdb://{store_dir}"])
    return result.exit_code, result.output


def test_cli_lint_review_errorbook(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    s = open_store(f"lmdb://{store_dir}")
    kb = s.create_kb("w")
    Compiler(kb, options=gated()).build(write_corpus(tmp_path / "c.jsonl", CONFLICTING))
    s.close()
    code, out = _cli(store_dir, "lint", "--kb", "w", "--json")
    assert code == 1  # a page failed (E3)
    data = json.loads(out)
    assert data["lint"]["failed"] == 1
    assert data["after"][v.IN_PAGE] == 1
    code, out = _cli(store_dir, "review", "list", "--kb", "w", "--json")
    items = json.loads(out)
    assert {i["kind"] for i in items} >= {"quality/in_page_contradiction"}
    key = items[0]["key"]
    code, out = _cli(store_dir, "review", "show", "--kb", "w", key)
    assert code == 0
    assert "details" in out
    for it in items:
        code, out = _cli(store_dir, "review", "reject", "--kb", "w", it["key"], "--note", "ok")
        assert code == 0
    code, out = _cli(store_dir, "review", "list", "--kb", "w")
    assert "no open review items" in out
    code, out = _cli(store_dir, "lint", "--kb", "w", "--fix")
    assert code == 0, out
    assert "Error Book" in out
    dest = tmp_path / "error_book.yaml"
    code, out = _cli(store_dir, "errorbook", "export", "--kb", "w", str(dest))
    assert code == 0
    assert "cross_page_contradiction" in dest.read_text(encoding="utf-8")
    code, out = _cli(store_dir, "errorbook", "list", "--kb", "w")
    assert "closed" in out
    code, out = _cli(store_dir, "errorbook", "import", "--kb", "w", str(dest))
    assert "imported" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text("error_book: 3", encoding="utf-8")
    code, out = _cli(store_dir, "errorbook", "import", "--kb", "w", str(bad))
    assert code == 1
    assert "error_book" in out
    code, out = _cli(store_dir, "review", "accept", "--kb", "w", "nope")
    assert code != 0


def test_yaml_times_are_iso_utc_and_old_epoch_books_still_import(store: Store) -> None:
    kb = store.create_kb("times")
    book = eb.Book()
    entry = eb.Entry(
        id="dangling_link",
        type=v.DANGLING,
        phenomenon="p",
        root_cause="r",
        constraint="c",
        verification="m",
        first_seen=1_763_900_000.0,  # 2025-11-23T12:13:20Z
        last_seen=1_763_900_060.0,
        last_verified=1_763_900_120.0,
    )
    book.entries[entry.id] = entry
    eb.save(kb, book)
    text = eb.to_yaml(eb.load(kb))
    assert "first_seen: '2025-11-23T12:13:20Z'" in text
    assert "last_seen: '2025-11-23T12:14:20Z'" in text
    assert "last_verified: '2025-11-23T12:15:20Z'" in text
    assert "1763900" not in text
    # A book written before the times were ISO: epoch numbers, read as they were meant.
    old = (
        "error_book:\n- {id: a, type: t, phenomenon: p, root_cause: r, constraint_rule: c, "
        "verification_method: m, first_seen: 1763900000.0, last_verified: 1763900120}\n"
    )
    (read,) = eb.from_yaml(old)
    assert (read.first_seen, read.last_verified) == (1_763_900_000.0, 1_763_900_120.0)
    # An ISO time without an offset is UTC, not the machine's local time.
    naive = old.replace("1763900000.0", "'2025-11-23T12:13:20'")
    assert eb.from_yaml(naive)[0].first_seen == 1_763_900_000.0
