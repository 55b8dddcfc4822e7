"""Smoke run of the quick search benchmark on a slice of the 2WikiMultiHopQA corpus."""

from __future__ import annotations

import pytest

from wikikv.bench.search_quick import build, data_dir, load_jsonl, main, measure
from wikikv.store.store import open_store

BASE = data_dir() / "multihop" / "2wikimultihopqa"


@pytest.mark.skipif(not BASE.exists(), reason="shared data not present")
def test_quick_bench_on_a_slice() -> None:
    passages = load_jsonl(BASE / "corpus.jsonl")[:60]
    questions = load_jsonl(BASE / "questions.jsonl")[:5]
    with open_store("memory://") as store:
        kb = store.create_kb("bench")
        built = build(kb, passages)
        assert built["pages"] == 60
        result = measure(kb, questions, 10)
    assert result["search_warm_us"]["count"] == 5
    assert 0.0 <= result["title_recall@5"] <= result["title_recall@10"] <= 1.0


def test_cli_entry_rejects_unknown_dataset() -> None:
    with pytest.raises(FileNotFoundError):
        main(["--dataset", "no-such-set", "--store", "memory://"])
