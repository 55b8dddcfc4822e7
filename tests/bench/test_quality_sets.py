"""The Lu Xun question set (c) is well formed and its answers are in its gold documents; the
quality benchmark reads sets (a) and (b) as written; benchmarks are imported only when run."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from wikikv.bench.compile import shared_data
from wikikv.bench.quality import labelled_sample, targets
from wikikv.bench.quality_sets import (
    BUCKETS,
    contains_answer,
    dev_path,
    load_questions,
    load_table,
    read_corpus,
    sentences,
    squash,
)
from wikikv.errors import NotFound


def test_the_question_set_has_sixty_questions_in_three_buckets() -> None:
    qs = load_questions()
    assert len(qs) >= 60
    assert len({q.id for q in qs}) == len(qs)
    counts = Counter(q.bucket for q in qs)
    assert set(counts) == set(BUCKETS)
    assert all(counts[b] >= 10 for b in BUCKETS)
    assert all(len(q.docs) >= 2 for q in qs if q.bucket != "single" and q.id != "m18")
    assert all(len(q.docs) == 1 for q in qs if q.bucket == "single")


def test_the_dev_set_has_forty_new_multi_document_questions_and_some_for_ask() -> None:
    dev = load_questions(dev_path())
    multi = [q for q in dev if q.bucket == "multi"]
    assert len(multi) >= 45
    assert len({q.id for q in dev}) == len(dev)
    assert all(len(q.docs) >= 2 for q in multi)
    # The rest are one-document questions for offline ask (a named work, a relation).
    assert all(q.bucket == "single" and len(q.docs) == 1 for q in dev if q not in multi)
    held_out = {q.question for q in load_questions()}
    assert not held_out & {q.question for q in dev}  # (d) repeats no question of (c)


@pytest.mark.skipif(
    not (shared_data() / "luxun").is_dir(), reason="shared Lu Xun corpus not present"
)
@pytest.mark.parametrize("path", [None, dev_path()], ids=["set c", "set d"])
def test_every_gold_answer_is_in_every_gold_document(path: Path | None) -> None:
    corpus = read_corpus(shared_data() / "luxun")
    for q in load_questions(path):
        for doc in q.docs:
            assert doc in corpus, f"{q.id}: no document {doc}"
            assert squash(q.answer) in squash(corpus[doc]), f"{q.id}: {q.answer!r} not in {doc}"


def test_a_malformed_question_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "q.yaml"
    bad.write_text("questions:\n  - {id: x, bucket: single, question: 谁}\n", encoding="utf-8")
    with pytest.raises(NotFound, match="lacks a field"):
        load_questions(bad)
    bad.write_text(
        "questions:\n  - {id: x, bucket: other, question: 谁, docs: [a], answer: b}\n",
        encoding="utf-8",
    )
    with pytest.raises(NotFound, match="unknown bucket"):
        load_questions(bad)


def test_the_labelled_sample_is_read_as_labelled(tmp_path: Path) -> None:
    sample = tmp_path / "sample.tsv"
    sample.write_text(
        "# path\tlabel\treason\n"
        "path\tlabel\treason\n"
        "/人物/祥林嫂\treal\tthe woman of 祝福\n"
        "/人物/伟大\tjunk\tan adjective\n"
        "/人物/鲁镇\twrong_type\ta town filed as a person\n"
        "/地点/未庄\treal\tvillage of 阿Q\n",
        encoding="utf-8",
    )
    res = labelled_sample(sample)
    assert res["pages"] == 4
    assert res["counts"] == {"real": 2, "junk": 1, "wrong type": 1}
    assert res["precision"] == 0.75  # real + wrong type, as evals/luxun/README.md defines it
    assert res["wrong_type_rate"] == 0.25
    assert labelled_sample(None) == {"skipped": "no labelled sample under evals/luxun"}


def test_tables_read_tsv_with_their_header(tmp_path: Path) -> None:
    table = tmp_path / "entities.tsv"
    table.write_text("name\ttype\tdocs\tnote\n闰土\tperson\t呐喊/故乡\tboy\n", encoding="utf-8")
    assert load_table(table) == [
        {"name": "闰土", "type": "person", "docs": "呐喊/故乡", "note": "boy"}
    ]


def test_sentences_and_answers_ignore_line_wrapping() -> None:
    text = "我冒了严寒，回到\n故乡去。时候既然是深冬；\n\n渐近故乡时。"
    assert sentences(text) == ["我冒了严寒，回到故乡去。", "时候既然是深冬；", "渐近故乡时。"]
    assert contains_answer(["回到故 乡去"], "到故乡")
    english = "Lu Xun was born in\nShaoxing. He died in 1936.\n\nA second paragraph."
    assert sentences(english) == [
        "Lu Xun was born in Shaoxing.",
        "He died in 1936.",
        "A second paragraph.",
    ]


def test_targets_need_five_points_over_bm25_in_every_bucket() -> None:
    buckets = {
        "single": {"nav R@5": 0.95, "bm25 R@5": 0.90},
        "multi": {"nav R@5": 0.80, "bm25 R@5": 0.79},
    }
    result = {
        "entities": {"recall": 0.95},
        "labelled_sample": {"skipped": "none"},
        "mention_coverage": {"coverage": 0.7},
        "luxun_nav": {"buckets": buckets},
    }
    got = targets(result)
    assert got["single: nav R@5 >= BM25 R@5 + 0.05"] is True
    assert got["multi: nav R@5 >= BM25 R@5 + 0.05"] is False
    assert got["precision (b) >= 0.90"] is None
    assert got["mention (fact) coverage >= 0.60"] is True


def test_the_cli_does_not_import_the_benchmarks() -> None:
    code = (
        "import sys, wikikv.interfaces.cli as c\n"
        "print(sorted(m for m in sys.modules if m.startswith('wikikv.bench')))\n"
        "print('quality' in c.main.commands['bench'].list_commands(None))\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2] / "src")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    loaded, listed = out.stdout.splitlines()
    assert loaded == "[]"
    assert listed == "True"
