"""Set (b) as the repository holds it is what the benchmark reads; mention coverage counts an
entity's mentions in the texts from the hand-written list, not from the detector."""

from __future__ import annotations

import csv
from pathlib import Path

from wikikv.bench.quality import labelled_sample, sample_path
from wikikv.bench.quality_mentions import mention_coverage, quoted_ranges, sentence_spans
from wikikv.store.records import FileMeta
from wikikv.store.store import open_store


def test_the_repositorys_labelled_sample_is_read_and_scored_as_its_readme_says() -> None:
    path = sample_path()
    assert path is not None
    assert path.name == "page_sample_labels.tsv"
    res = labelled_sample(path)
    with path.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader((ln for ln in fh if not ln.startswith("#")), delimiter="\t"))
    labels = [r["label"] for r in rows]
    assert res["pages"] == len(rows) >= 150
    assert res["unlabelled"] == 0
    expected = (labels.count("real") + labels.count("wrong_type")) / len(labels)
    assert res["precision"] == round(expected, 4)
    assert res["wrong_type_rate"] == round(labels.count("wrong_type") / len(labels), 4)


TEXTS = {
    "呐喊/故乡": "闰土来了。我和闰土说话。天气很冷。",
    "呐喊/社戏": "禹不在这里。闰土没有来。",
}


def test_mention_coverage_counts_the_mentions_a_page_quotes(tmp_path: Path) -> None:
    store = open_store("memory://")
    kb = store.create_kb("zh")
    for doc, text in TEXTS.items():
        kb.put("/sources/articles/" + doc.replace("/", "%2F"), text, FileMeta(kind="article"))
    # 闰土's page quotes the first sentence of 故乡 only: 1 of its 3 mentions reaches it.
    kb.put(
        "/人物/闰土",
        "# 闰土\n- 闰土来了。 [^1]\n\n[^1]: [[/sources/articles/呐喊%2F故乡]] chars 0-5\n",
        FileMeta(kind="entity", title="闰土"),
    )
    kb.put("/人物/禹", "# 禹\n", FileMeta(kind="entity", title="禹"))
    listing = tmp_path / "entities.tsv"
    listing.write_text(
        "name\ttype\taliases\n闰土\tperson\t\n禹\tperson\t\n杨二嫂\tperson\t豆腐西施\n",
        encoding="utf-8",
    )
    res = mention_coverage(kb, listing, list(TEXTS))
    assert res["documents"] == 2
    assert res["entities"] == 1  # 禹: one character, not counted; 杨二嫂: no page
    assert (res["mentions"], res["reached"]) == (3, 1)
    assert res["coverage"] == round(1 / 3, 4)
    assert mention_coverage(kb, None, list(TEXTS)) == {
        "skipped": "no entity list under evals/luxun"
    }
    store.close()


def test_sentences_and_quoted_ranges() -> None:
    text = "闰土来了。我和闰土说话！\n\n天气很冷"
    assert [text[a:b].strip() for a, b in sentence_spans(text)] == [
        "闰土来了。",
        "我和闰土说话！",
        "天气很冷",
    ]
    page = "[^1]: [[/sources/articles/x]] chars 3-9\n[^2]: [[/sources/articles/x]] chars 12-20\n"
    assert quoted_ranges(page) == {"/sources/articles/x": [(3, 9), (12, 20)]}
