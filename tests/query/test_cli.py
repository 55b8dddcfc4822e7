"""The query commands: search, read, drill, rollup (text and --json)."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from wikikv.interfaces.commands.query import register
from wikikv.interfaces.common import WikiKVGroup
from wikikv.search.index import index_page
from wikikv.search.ranking import clear_caches
from wikikv.store.records import FileMeta
from wikikv.store.store import open_store


@pytest.fixture
def cli() -> click.Group:
    @click.group(cls=WikiKVGroup)
    def group() -> None:
        """Test group."""

    register(group)
    return group


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    clear_caches()
    url = str(tmp_path / "store")
    with open_store(url) as store:
        kb = store.create_kb("demo")
        kb.mkdir("/people", "People.")
        rec = kb.put(
            "/people/lu-xun",
            "Writer from [[Shaoxing]].",
            FileMeta(kind="entity", title="Lu Xun", aliases=["鲁迅"], summary="Chinese writer"),
        )
        index_page(kb, rec)
        index_page(kb, kb.put("/places/shaoxing", "A city.", FileMeta(title="Shaoxing")))
    return url


def run(cli: click.Group, store_url: str, *args: str) -> str:
    result = CliRunner().invoke(cli, [*args[:1], "--store", store_url, "--kb", "demo", *args[1:]])
    assert result.exit_code == 0, result.output
    return result.output


def test_search(cli: click.Group, store_url: str) -> None:
    out = run(cli, store_url, "search", "Lu", "Xun")
    assert "/people/lu-xun" in out
    assert "Chinese writer" in out
    hits = json.loads(run(cli, store_url, "search", "--json", "鲁迅"))
    assert hits[0]["path"] == "/people/lu-xun"
    assert "No match." in run(cli, store_url, "search", "zzzqqq")


def test_read(cli: click.Group, store_url: str) -> None:
    out = run(cli, store_url, "read", "/people/lu-xun", "/people")
    assert "[[Shaoxing]] -> /places/shaoxing" in out
    assert "- /people/lu-xun" in out
    items = json.loads(run(cli, store_url, "read", "--json", "/people/lu-xun", "/gone"))
    assert items[0]["links"][0]["path"] == "/places/shaoxing"
    assert items[1]["error"] == "not found"


def test_drill_and_rollup(cli: click.Group, store_url: str) -> None:
    out = run(cli, store_url, "drill", "/", "--levels", "2")
    assert "  /people/" in out
    assert "    /people/lu-xun" in out
    nodes = json.loads(run(cli, store_url, "drill", "--json", "/people"))["nodes"]
    assert [n["path"] for n in nodes] == ["/people", "/people/lu-xun"]
    chain = json.loads(run(cli, store_url, "rollup", "--json", "/people/lu-xun"))
    assert [n["path"] for n in chain] == ["/", "/people"]
    assert "/people  — People." in run(cli, store_url, "rollup", "/people/lu-xun")


def test_errors_are_one_line(cli: click.Group, store_url: str) -> None:
    result = CliRunner().invoke(cli, ["rollup", "--store", store_url, "--kb", "demo", "/nope"])
    assert result.exit_code == 1
    assert result.output.startswith("Error: ")


def test_an_answer_cites_a_source_text_by_its_readable_id() -> None:
    from wikikv.interfaces.commands.nav import source_label

    assert source_label("/sources/articles/彷徨%2F离婚") == "彷徨/离婚 — "
    assert source_label("/sources/articles/d1") == ""  # nothing escaped: the path says it
    assert source_label("/人物/爱姑") == ""
