"""Parallel per-kb construction: a worker pool builds several kbs, each complete and separate."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from wikikv.compile.parallel import BuildJob, build_many, jobs_from_folder
from wikikv.interfaces.cli import main
from wikikv.store.fsck import fsck
from wikikv.store.records import FileRecord
from wikikv.store.store import open_store

TENANTS = {
    "alpha": [
        (
            "a1",
            "Ada Lovelace",
            "Ada Lovelace was an English mathematician. She worked "
            "with Charles Babbage on the Analytical Engine.",
        )
    ],
    "beta": [
        (
            "b1",
            "Alan Turing",
            "Alan Turing was an English computer scientist. He "
            "worked at Bletchley Park during the war.",
        )
    ],
    "gamma": [
        (
            "g1",
            "Grace Hopper",
            "Grace Hopper was an American computer scientist. She "
            "developed early compilers for the UNIVAC.",
        )
    ],
}


def write_corpora(folder: Path) -> None:
    folder.mkdir()
    for name, docs in TENANTS.items():
        with (folder / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            for doc_id, title, text in docs:
                fh.write(json.dumps({"id": doc_id, "title": title, "text": text}) + "\n")


def test_a_pool_builds_each_kb_separately(tmp_path: Path) -> None:
    corpora = tmp_path / "tenants"
    write_corpora(corpora)
    jobs = jobs_from_folder(corpora, "t-")
    assert [j.kb for j in jobs] == ["t-alpha", "t-beta", "t-gamma"]
    url = f"lmdb://{tmp_path}/store"
    outcomes = build_many(url, jobs, workers=2)
    assert [o.ok for o in outcomes] == [True, True, True], [o.error for o in outcomes]
    with open_store(url) as store:
        assert store.kbs() == ["t-alpha", "t-beta", "t-gamma"]
        for job, (name, docs) in zip(jobs, TENANTS.items(), strict=True):
            kb = store.kb(job.kb)
            assert fsck(kb).clean
            article = kb.get(f"/sources/articles/{docs[0][0]}")
            assert isinstance(article, FileRecord)
            assert article.text == docs[0][2]
            others = [d[0][0] for n, d in TENANTS.items() if n != name]
            assert all(kb.get(f"/sources/articles/{o}") is None for o in others)


def test_a_failed_build_is_reported_and_the_others_finish(tmp_path: Path) -> None:
    corpora = tmp_path / "tenants"
    write_corpora(corpora)
    jobs = [*jobs_from_folder(corpora), BuildJob("broken", str(tmp_path / "missing.jsonl"))]
    outcomes = build_many(f"lmdb://{tmp_path}/store", jobs, workers=2)
    assert [o.ok for o in outcomes] == [True, True, True, False]
    assert "missing.jsonl" in outcomes[-1].error


def test_build_many_command(tmp_path: Path) -> None:
    corpora = tmp_path / "tenants"
    write_corpora(corpora)
    result = CliRunner().invoke(
        main,
        ["build-many", str(corpora), "--store", str(tmp_path / "s"), "--workers", "1", "--json"],
    )
    assert result.exit_code == 0, result.output
    assert [o["kb"] for o in json.loads(result.stdout)] == ["alpha", "beta", "gamma"]
