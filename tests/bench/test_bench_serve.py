"""``wikikv bench serve`` runs end to end on a tiny store and reports every point."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

import wikikv
from wikikv.compile.pipeline import Compiler
from wikikv.interfaces.cli import main

SAMPLE = Path(wikikv.__file__).parent / "sample" / "corpus" / "en"


def test_bench_serve_smoke(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    with wikikv.open_store(str(store_dir)) as store:
        Compiler(store.create_kb("demo")).build(SAMPLE)
    out = tmp_path / "serve.json"
    args = [
        "bench",
        "serve",
        "--store",
        str(store_dir),
        "--kb",
        "demo",
        "--seconds",
        "0.3",
        "--workers",
        "1",
        "--concurrency",
        "2",
        "--mcp-calls",
        "3",
        "--out",
        str(out),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    seen = {(p["target"], p["op"]) for p in data["points"]}
    for op in ("get", "search", "nav"):
        assert {("in-process", op), ("http", op), ("http-unloaded", op)} <= seen
    assert {("mcp-stdio", t) for t in ("wiki_search", "wiki_read", "wiki_nav")} <= seen
    assert all(p["requests"] > 0 for p in data["points"])
    assert data["targets"]["errors"] == 0
    assert "HTTP get p50" in result.output
