"""The hierarchy questions of ``wikikv bench evolve`` (evals/luxun/evolve_hierarchy.yaml) are well
formed, new, answered in every gold document, and each names the collection its gold texts are
in; the benchmark reports them apart from sets (c) and (d)."""

from __future__ import annotations

import pytest

from wikikv.bench.compile import shared_data
from wikikv.bench.evolve import HIERARCHY_FILE, question_sets
from wikikv.bench.quality_sets import dev_path, evals_dir, load_questions, read_corpus, squash

HIERARCHY = evals_dir() / HIERARCHY_FILE
REPO = evals_dir().parents[1]


def test_the_hierarchy_questions_are_new_and_each_names_its_collection() -> None:
    qs = load_questions(HIERARCHY)
    assert len(qs) >= 12
    assert len({q.id for q in qs}) == len(qs)
    earlier = {q.question for q in load_questions()} | {
        q.question for q in load_questions(dev_path())
    }
    assert not earlier & {q.question for q in qs}
    for q in qs:
        collections = {doc.split("/", 1)[0] for doc in q.docs}
        assert len(collections) == 1, q.id  # one collection per question
        assert f"《{collections.pop()}》" in q.question, q.id


@pytest.mark.skipif(
    not (shared_data() / "luxun").is_dir(), reason="shared Lu Xun corpus not present"
)
def test_every_hierarchy_answer_is_in_every_gold_document() -> None:
    corpus = read_corpus(shared_data() / "luxun")
    for q in load_questions(HIERARCHY):
        for doc in q.docs:
            assert doc in corpus, f"{q.id}: no document {doc}"
            assert squash(q.answer) in squash(corpus[doc]), f"{q.id}: {q.answer!r} not in {doc}"


@pytest.mark.skipif(
    not (shared_data() / "luxun").is_dir(), reason="shared Lu Xun corpus not present"
)
def test_the_benchmark_keeps_the_sets_apart() -> None:
    _, sets = question_sets("luxun", REPO)
    assert list(sets) == ["main", "dev", "hierarchy"]
    assert [q.question for q in sets["main"]] == [q.question for q in load_questions()]
    assert len(sets["hierarchy"]) == len(load_questions(HIERARCHY))
    assert len(sets["dev"]) == len(load_questions(dev_path()))


@pytest.mark.skipif(
    not (shared_data() / "multihop" / "hotpotqa").is_dir(),
    reason="shared multi-hop data not present",
)
def test_the_english_sets_have_one_question_set() -> None:
    _, sets = question_sets("hotpotqa", REPO)
    assert list(sets) == ["main"]
    assert sets["main"]
