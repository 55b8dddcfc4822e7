"""The ``wikikv`` command line end to end on a temporary LMDB store, through click's CliRunner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from wikikv.interfaces.cli import main
from wikikv.store.records import FileRecord
from wikikv.store.store import open_store

PAGE = """---
title: Lu Xun
aliases: [Zhou Shuren, 鲁迅]
tags: [writer]
summary: Chinese writer.
sources: [sample]
type: entity
---

Born in [[Shaoxing]].
"""


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    return str(tmp_path / "store")


def cli(store_url: str, *args: str, stdin: str | bytes | None = None, kb: str = "notes") -> Result:
    """Run one command against the test store and kb (given as options, after the arguments)."""
    return CliRunner().invoke(
        main, [*args, "--store", store_url, "--kb", kb], input=stdin, catch_exceptions=False
    )


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def assert_clean_error(result: Result, *fragments: str) -> None:
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.fixture
def kb_with_page(store_url: str, tmp_path: Path) -> Path:
    ok(cli(store_url, "init"))
    page = tmp_path / "lu-xun.md"
    page.write_text(PAGE, encoding="utf-8")
    ok(cli(store_url, "put", "/people/Lu Xun", str(page)))
    return page


def test_init_creates_store_and_kb(store_url: str) -> None:
    first = ok(cli(store_url, "init", "--json"))
    assert json.loads(first.stdout)["created"] is True
    again = ok(cli(store_url, "init", "--json"))
    assert json.loads(again.stdout)["created"] is False
    with open_store(store_url) as store:
        assert store.kbs() == ["notes"]


def test_put_then_get_round_trips_the_page(store_url: str, kb_with_page: Path) -> None:
    got = ok(cli(store_url, "get", "/people/Lu Xun"))
    stamped = PAGE.replace("---\n\n", "wikikv: {path: /people/Lu Xun, version: 1}\n---\n\n")
    assert got.stdout.rstrip("\n") == stamped.rstrip("\n")
    record = json.loads(ok(cli(store_url, "get", "/people/Lu Xun", "--json")).stdout)
    assert record["path"] == "/people/Lu Xun"
    assert record["meta"]["title"] == "Lu Xun"
    assert record["meta"]["aliases"] == ["Zhou Shuren", "鲁迅"]
    assert record["meta"]["kind"] == "entity"
    assert record["meta"]["version"] == 1


def test_put_reads_stdin_and_updates_version(store_url: str, kb_with_page: Path) -> None:
    out = ok(cli(store_url, "put", "/people/Lu Xun", "-", "--json", stdin="New text.\n"))
    assert json.loads(out.stdout) == {"path": "/people/Lu Xun", "version": 2}
    assert "New text." in ok(cli(store_url, "get", "/people/Lu Xun")).stdout


def test_put_with_stale_expect_is_a_conflict(store_url: str, kb_with_page: Path) -> None:
    result = cli(store_url, "put", "/people/Lu Xun", "-", "--expect", "0", stdin="x")
    assert_clean_error(result, "conflict")


def test_ls_lists_dirs_and_pages(store_url: str, kb_with_page: Path) -> None:
    assert ok(cli(store_url, "ls")).stdout.splitlines() == ["people/"]
    assert ok(cli(store_url, "ls", "/people")).stdout.splitlines() == ["Lu Xun"]
    listing = json.loads(ok(cli(store_url, "ls", "/", "--all", "--json")).stdout)
    assert listing["sub_dirs"] == ["people"]
    assert listing["files"] == []


def test_a_trailing_slash_names_the_directory(store_url: str, kb_with_page: Path) -> None:
    # Shells complete directories with a trailing slash; reads and rm take it as the directory.
    assert ok(cli(store_url, "ls", "/people/")).stdout.splitlines() == ["Lu Xun"]
    record = json.loads(ok(cli(store_url, "get", "/people/", "--json")).stdout)
    assert record["path"] == "/people"
    drilled = json.loads(ok(cli(store_url, "drill", "/people/", "--json")).stdout)
    assert drilled["nodes"][0]["path"] == "/people"
    assert_clean_error(cli(store_url, "ls", "/people//"), "invalid path")
    ok(cli(store_url, "rm", "-r", "-y", "/people/"))
    assert ok(cli(store_url, "ls")).stdout.splitlines() == []


def test_ls_page_and_all_are_exclusive(store_url: str, kb_with_page: Path) -> None:
    result = cli(store_url, "ls", "/", "--page", "0", "--all")
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_prefix_on_paths_and_names(store_url: str, kb_with_page: Path) -> None:
    assert ok(cli(store_url, "prefix", "/peo")).stdout.splitlines() == [
        "/people",
        "/people/Lu Xun",
    ]
    assert json.loads(ok(cli(store_url, "prefix", "/people/L", "--json")).stdout) == [
        "/people/Lu Xun"
    ]
    hits = json.loads(ok(cli(store_url, "prefix", "--names", "鲁", "--json")).stdout)
    assert hits == [{"name": "鲁迅", "path": "/people/Lu Xun"}]
    assert ok(cli(store_url, "prefix", "--names", "zhou")).stdout.strip() == (
        "Zhou Shuren\t/people/Lu Xun"
    )


def test_rm_page_and_directory(store_url: str, kb_with_page: Path) -> None:
    assert_clean_error(cli(store_url, "rm", "/people"), "children")
    ok(cli(store_url, "rm", "/people/Lu Xun"))
    assert_clean_error(cli(store_url, "get", "/people/Lu Xun"), "no page")
    ok(cli(store_url, "put", "/drafts/a/b", "-", stdin="x"))
    deleted = json.loads(ok(cli(store_url, "rm", "-r", "/drafts", "--json")).stdout)
    assert deleted == {"deleted": "/drafts"}
    assert ok(cli(store_url, "ls")).stdout.splitlines() == ["people/"]


def test_mv_leaves_a_redirect(store_url: str, kb_with_page: Path) -> None:
    ok(cli(store_url, "mv", "/people/Lu Xun", "/writers/Lu Xun"))
    moved = ok(cli(store_url, "get", "/people/Lu Xun"))
    assert "Born in [[Shaoxing]]." in moved.stdout
    assert "redirected" in moved.stderr
    assert json.loads(ok(cli(store_url, "get", "/people/Lu Xun", "--json")).stdout)["path"] == (
        "/writers/Lu Xun"
    )


def test_mv_without_redirect(store_url: str, kb_with_page: Path) -> None:
    out = json.loads(
        ok(cli(store_url, "mv", "/people/Lu Xun", "/w/Lu Xun", "--no-redirect", "--json")).stdout
    )
    assert out == {"moved": "/people/Lu Xun", "to": "/w/Lu Xun", "redirect": False}
    assert_clean_error(cli(store_url, "get", "/people/Lu Xun"))
    ok(cli(store_url, "get", "/w/Lu Xun"))


def test_fsck_clean_damaged_and_repaired(store_url: str, kb_with_page: Path) -> None:
    report = json.loads(ok(cli(store_url, "fsck", "--json")).stdout)
    assert report["clean"] is True
    with open_store(store_url) as store:
        kb = store.kb("notes")
        kb.backend.delete_if(kb.keys.node("/people/Lu Xun"))  # leave a dangling listing
    damaged = cli(store_url, "fsck")
    assert damaged.exit_code == 1
    assert "dangling" in damaged.stdout
    ok(cli(store_url, "fsck", "--repair"))
    assert "clean" in ok(cli(store_url, "fsck")).stdout


def test_audit_lists_writes_newest_first(store_url: str, kb_with_page: Path) -> None:
    entries = json.loads(ok(cli(store_url, "audit", "--json")).stdout)
    stamps = [e["ts"] for e in entries]
    assert stamps == sorted(stamps, reverse=True)
    assert {"create", "link"} <= {e["op"] for e in entries}
    only = json.loads(ok(cli(store_url, "audit", "--path", "/people/", "--json")).stdout)
    assert only
    assert all(e["path"].startswith("/people/") for e in only)
    assert len(json.loads(ok(cli(store_url, "audit", "--limit", "1", "--json")).stdout)) == 1
    assert "/people/Lu Xun" in ok(cli(store_url, "audit")).stdout


def test_backup_copies_the_store(store_url: str, kb_with_page: Path, tmp_path: Path) -> None:
    dest = tmp_path / "backup"
    out = json.loads(ok(cli(store_url, "backup", str(dest), "--json")).stdout)
    assert Path(out["backup"]) == dest
    with open_store(str(dest)) as copy:
        page = copy.kb("notes").get("/people/Lu Xun")
        assert isinstance(page, FileRecord)
        assert page.text == "Born in [[Shaoxing]].\n"
    assert_clean_error(cli(store_url, "backup", str(dest)), "not empty")


def test_environment_variables_choose_store_and_kb(store_url: str, tmp_path: Path) -> None:
    runner = CliRunner(env={"WIKIKV_STORE": store_url, "WIKIKV_KB": "envkb"})
    assert runner.invoke(main, ["init"]).exit_code == 0
    put = runner.invoke(main, ["put", "/a", "-"], input="from env")
    assert put.exit_code == 0, put.output
    with open_store(store_url) as store:
        assert store.kbs() == ["envkb"]
        page = store.kb("envkb").get("/a")
        assert isinstance(page, FileRecord)
        assert page.text == "from env"
    # an explicit option wins over the environment
    other = runner.invoke(main, ["ls", "--kb", "nosuch"])
    assert_clean_error(other, "unknown kb 'nosuch'")


def test_unknown_kb_is_one_clean_line(store_url: str, kb_with_page: Path) -> None:
    assert_clean_error(cli(store_url, "ls", kb="missing"), "unknown kb 'missing'")


@pytest.mark.parametrize("path", ["/a//b", "/a/../b", "/a\x00b", "/" + "x" * 300])
def test_invalid_path_is_one_clean_line(store_url: str, kb_with_page: Path, path: str) -> None:
    assert_clean_error(cli(store_url, "get", path), "invalid path")


def test_invalid_kb_name_is_one_clean_line(store_url: str) -> None:
    assert_clean_error(cli(store_url, "init", kb="Bad Name!"), "invalid kb name")


def test_non_utf8_file_is_refused(store_url: str, kb_with_page: Path, tmp_path: Path) -> None:
    bad = tmp_path / "latin1.md"
    bad.write_bytes("café".encode("latin-1"))
    assert_clean_error(cli(store_url, "put", "/x", str(bad)), "not valid UTF-8")
    assert_clean_error(cli(store_url, "put", "/x", "-", stdin=b"\xff\xfe"), "stdin")
    with open_store(store_url) as store:
        assert store.kb("notes").get("/x") is None


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("---\n- a\n- b\n---\ntext", "must be a YAML mapping"),
        ("---\ntitle: [unclosed\n---\ntext", "not valid YAML"),
        ("---\ntitle: x\n", "never closed"),
    ],
)
def test_bad_front_matter_is_refused(
    store_url: str, kb_with_page: Path, source: str, fragment: str
) -> None:
    assert_clean_error(cli(store_url, "put", "/x", "-", stdin=source), fragment)


def test_missing_page_file_is_a_usage_error(store_url: str, kb_with_page: Path) -> None:
    result = cli(store_url, "put", "/x", "/no/such/file.md")
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_version_and_module_entry_point() -> None:
    assert CliRunner().invoke(main, ["--version"]).stdout.startswith("wikikv ")
    proc = subprocess.run(
        [sys.executable, "-m", "wikikv", "--help"], capture_output=True, text=True, check=True
    )
    assert "Usage: wikikv" in proc.stdout


def test_put_rm_and_mv_keep_the_search_index_in_step(store_url: str, kb_with_page: Path) -> None:
    def hits(query: str) -> list[str]:
        out = ok(cli(store_url, "search", query, "--json")).stdout
        return [h["path"] for h in json.loads(out)]

    assert hits("Zhou Shuren") == ["/people/Lu Xun"]
    ok(cli(store_url, "mv", "/people/Lu Xun", "/writers/Lu Xun"))
    assert hits("Zhou Shuren") == ["/writers/Lu Xun"]
    ok(cli(store_url, "rm", "-r", "/writers"))
    assert hits("Zhou Shuren") == []
