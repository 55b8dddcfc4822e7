"""``wikikv bench evolve``'s verdicts: evolution (after) is judged against the wiki without it
(before), on every question set, and the questions that moved are listed."""

from __future__ import annotations

from typing import Any

from wikikv.bench.evolve import changed_questions, targets


def column(j: float, ranges: int, recalls: dict[str, dict[str, float]]) -> dict[str, Any]:
    sets = {
        label: {"recall@5": sum(per.values()) / len(per), "per_question": per}
        for label, per in recalls.items()
    }
    return {"J": j, "range_dirs": ranges, "nav": sets["main"], "nav_sets": sets}


def result(after_dev: float) -> dict[str, Any]:
    before = column(100.0, 5, {"main": {"a": 1.0, "b": 0.5}, "dev": {"d": 0.5}})
    after = column(90.0, 0, {"main": {"a": 1.0, "b": 0.5}, "dev": {"d": after_dev}})
    default = column(95.0, 0, {"main": {"a": 1.0, "b": 1.0}, "dev": {"d": 0.5}})
    passes = [{"seconds": 3.0, "cpu_seconds": 1.0}]
    return {"set": "luxun", "before": before, "after": after, "default": default, "passes": passes}


def test_higher_on_a_set_counts_and_the_main_sets_are_judged_apart() -> None:
    got = targets([result(after_dev=1.0)])
    assert got["j_strictly_lower"] is True
    assert got["recall_not_lower"] is True
    assert got["recall_higher_somewhere"] is True  # the dev set rose
    assert got["recall_higher_on_a_main_set"] is False  # the main set did not
    assert got["range_dirs"] == {"luxun": {"before": 5, "after": 0, "default": 0}}


def test_a_lower_set_fails_not_lower_and_the_moved_questions_are_listed() -> None:
    res = result(after_dev=0.0)
    got = targets([res])
    assert got["recall_not_lower"] is False
    assert got["recall_higher_somewhere"] is False
    # The default build's gain on "b" is not evolution's: it is listed, not counted.
    assert changed_questions([res]) == {
        "luxun/main": {"b": [0.5, 0.5, 1.0]},
        "luxun/dev": {"d": [0.5, 0.0, 0.5]},
    }
