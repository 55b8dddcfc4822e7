"""The large-corpus compile benchmark: renamed copies form new worlds, and a small run reports
every measure of every size."""

from __future__ import annotations

import json
import multiprocessing as mp
from pathlib import Path

from wikikv.bench.bigcorpus import (
    copy_tag,
    documents_naming,
    extra_document,
    extra_documents,
    renamed,
    write_corpus,
)
from wikikv.bench.compile_large import (
    ADDS,
    _children_private_kb,
    _extras,
    cpu_by_part,
    fit,
    run_adds,
    run_large,
    sample_extras,
    sample_summary,
)

RECORDS = [
    {"id": "a", "title": "Lothair II", "text": "Lothair II was a king. He married Teutberga."},
    {"id": "b", "title": "Teutberga", "text": "Teutberga was a queen of Lotharingia, an American."},
    {"id": "c", "title": "Hucbert", "text": "Hucbert was the brother of Teutberga."},
]


def _write(path: Path) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    return path


def test_copy_tags_are_distinct() -> None:
    tags = [copy_tag(k) for k in range(200)]
    assert tags[0] == ""
    assert tags[1] == "b"
    assert len(set(tags)) == 200


def test_a_copy_renames_title_words_in_titles_and_texts_alike() -> None:
    copy = list(renamed(RECORDS, 2))
    assert [r["id"] for r in copy] == ["c02-a", "c02-b", "c02-c"]
    assert copy[0]["title"] == "Lothairc II"
    assert copy[0]["text"] == "Lothairc II was a king. He married Teutbergac."
    # A word that names no title stays shared between the copies.
    assert "an American." in copy[1]["text"]
    assert list(renamed(RECORDS, 0)) == RECORDS


def test_write_corpus_counts_its_text(tmp_path: Path) -> None:
    source = _write(tmp_path / "src.jsonl")
    size = write_corpus(source, 3, tmp_path / "big.jsonl")
    lines = (tmp_path / "big.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 9
    assert size == sum(
        len(r["title"].encode()) + len(r["text"].encode()) for r in map(json.loads, lines)
    )
    extra = extra_document(source, 3)
    assert extra["id"] == "c03-a"
    assert [d["id"] for d in extra_documents(source, 3, 2)] == ["c03-a", "c03-b"]
    assert extra["id"] not in {json.loads(x)["id"] for x in lines}
    # the hub adds: documents of that copy naming a name, after the ones the plain adds take
    assert [d["id"] for d in documents_naming(source, 3, "brother", 1, 0)] == ["c03-c"]
    assert [d["id"] for d in documents_naming(source, 3, "was", 5, 1)] == ["c03-b", "c03-c"]


def test_run_large_reports_each_size(tmp_path: Path) -> None:
    source = _write(tmp_path / "src.jsonl")
    result = run_large(source, [2, 1], index=True)
    rows = result["sizes"]
    assert [r["copies"] for r in rows] == [1, 2]
    for row in rows:
        assert "error" not in row, row
        assert row["documents"] == 3 * row["copies"]
        assert row["peak_rss_mb"] > 0
        assert row["peak_anon_mb"] > 0
        assert row["peak_build_tree_mb"] > 0
        # each of the copy-after-last's three documents added on its own, by the local path
        assert row["incremental_added"] == len(row["incremental_adds"]) == 3
        assert all(a["model_reads"] and not a["fallback"] for a in row["incremental_adds"])
        assert row["incremental_add_s"] > 0
        # s/MB, not MB/s: on three tiny documents MB/s rounds to 0.0 when the machine is busy.
        assert row["s_per_mb"] > 0
        assert row["cpu_s_per_mb"] > 0
        # every phase of a first build is timed, wall and CPU
        phases = {"prepare", "analyse", "cold_start", "derive", "render", "index_merge"}
        assert {p + "_cpu" for p in phases} | phases <= set(row["phases_s"])
        assert set(row["cpu_by_part"]) >= phases | {"index_worker", "other"}
    assert rows[1]["entities"] > rows[0]["entities"]  # the second copy is a new world
    assert {"cpu_s", "peak_rss_mb", "peak_anon_mb", "cpu_per_mb_spread"} <= set(result["fit"])


def test_a_kept_store_takes_more_adds_on_a_copy(tmp_path: Path) -> None:
    source = _write(tmp_path / "src.jsonl")
    keep = tmp_path / "keep"
    row = run_large(source, [1], keep=keep)["sizes"][0]
    assert "error" not in row, row
    kept = keep / "store-1"
    assert (keep / "store-1.json").is_file()
    files = {p.name: p.read_bytes() for p in kept.rglob("*") if p.is_file()}
    adds = run_adds(kept, tmp_path / "work")
    assert adds["copies"] == 1
    assert len(adds["incremental_adds"]) == 3
    assert adds["incremental_add_max_s"] >= adds["incremental_add_s"] > 0
    assert all(a["model_reads"] and not a["fallback"] for a in adds["incremental_adds"])
    assert all(a["added"] == 1 for a in adds["incremental_adds"])
    # the kept store is left as it was, for the next run; the copy and the scratch files go
    assert {p.name: p.read_bytes() for p in kept.rglob("*") if p.is_file()} == files
    assert not (tmp_path / "work").exists()
    assert sorted(p.name for p in keep.iterdir()) == ["store-1", "store-1.json"]


def test_fit_draws_a_line_through_the_sizes() -> None:
    mib = 2**20
    rows = [
        {
            "text_bytes": n * mib,
            "cpu_s": 3.0 + 2.0 * n,
            "elapsed_s": 10.0 * n,
            "peak_rss_mb": 100.0 + 50.0 * n,
            "peak_anon_mb": 80.0 + 20.0 * n,
            "cpu_s_per_mb": (3.0 + 2.0 * n) / n,
        }
        for n in (1, 2, 4)
    ]
    f = fit(rows)
    assert f["cpu_s"] == {"per_mb": 2.0, "intercept": 3.0, "at_target": 203.0}
    assert f["peak_rss_mb"]["at_target"] == 5100.0
    assert f["peak_anon_mb"]["per_mb"] == 20.0
    assert f["cpu_per_mb_spread"] == round(5.0 / 2.75, 2)
    assert f["mb_per_cpu_s_at_target"] == round(100 / 203, 3)


def test_the_workers_private_memory_is_counted(tmp_path: Path) -> None:
    """A forked child's own allocations count; what it shares with this process does not."""
    ready, done = mp.get_context("fork").Event(), mp.get_context("fork").Event()
    shared = bytearray(b"\x02" * (64 << 20))  # resident here, shared with the child (never written)

    def hold() -> None:
        own = bytearray(b"\x01" * (48 << 20))  # written: the child's private pages
        ready.set()
        done.wait(30)
        del own

    before = _children_private_kb()
    child = mp.get_context("fork").Process(target=hold)
    child.start()
    try:
        assert ready.wait(30)
        grown = _children_private_kb() - before
        assert 48 << 10 <= grown < (48 << 10) + len(shared) // 1024 // 2
    finally:
        done.set()
        child.join()
    del shared


def test_cpu_by_part_puts_what_no_phase_holds_in_other() -> None:
    timings = {"analyse_cpu": 4.0, "render_cpu": 3.0, "render_index_cpu": 2.0, "derive": 9.0}
    parts = cpu_by_part(timings, 10.0)
    assert (parts["analyse"], parts["render"], parts["derive"]) == (4.0, 3.0, 0.0)
    assert parts["index_worker"] == 2.0
    assert parts["other"] == 1.0  # 10 - 4 - 3 - 2


def test_a_wider_sample_adds_documents_after_the_benchmarks_own(tmp_path: Path) -> None:
    source = tmp_path / "src.jsonl"
    records = [
        {
            "id": f"d{i:02}",
            "title": f"Title {i}",
            "text": f"Doc {i} " + ("was made in the United States." if i % 3 == 0 else "was not."),
        }
        for i in range(40)
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    own = {r["id"] for r in _extras(source, 2, None)}
    sample = sample_extras(source, 2, 4)
    ids = [r["id"] for r in sample]
    assert len(ids) == len(set(ids)) == 8
    assert not own & set(ids)
    plain, hub = sample[:4], sample[4:]
    # the plain ones are the records after the benchmark's first five that it does not add
    after = [r["id"] for r in extra_documents(source, 2, 40)][ADDS:]
    assert [r["id"] for r in plain] == [i for i in after if i not in own][:4]
    assert all("United States" in r["text"] for r in hub)


def test_the_sample_summary_counts_each_class_against_the_bound() -> None:
    def add(wall: float, hub: bool) -> dict[str, object]:
        return {"wall_s": wall, "cpu_s": wall / 2, "names_hub": hub}

    rows = [add(w, False) for w in (0.1, 0.2, 0.6)] + [add(w, True) for w in (0.4, 1.5)]
    summary = sample_summary(rows)
    assert summary["plain"]["adds"] == 3
    assert summary["plain"]["within_0.5_s"] == 2
    assert summary["plain"]["wall_median_s"] == 0.2
    assert summary["plain"]["wall_max_s"] == 0.6
    assert summary["names_hub"]["within_0.5_s"] == 1
    assert summary["names_hub"]["cpu_max_s"] == 0.75
