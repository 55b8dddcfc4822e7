"""``wikikv bench web``: how fast the browser renders, and the vault numbers, on one compiled wiki
(default: the 2Wiki 6k corpus).

Render time is server-side: :func:`wikikv.interfaces.web.routes.page_body` — reading the
records, Markdown to sanitized HTML, backlinks, the directory tree and the template — for
entity pages (a sample, cycled) and for a directory of 1,000 pages whose index text lists every
child with a wikilink and a summary, like a compiled dimension (the worst case: the text is
rendered too). Cold: the rendered-text cache (long texts, kept by exact content) is emptied
before every render — the first view after a change; warm: repeat views. The same pages are also
fetched over HTTP from a loopback server, as context. The target is a p50 of at most 20 ms
server-side. Export / import throughput and the vault's size come
from :func:`wikikv.bench.vault.measure` on the same wiki.
"""

from __future__ import annotations

import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

from wikikv.bench.report import machine_info, summarize, time_ops
from wikikv.bench.vault import DEFAULT_CORPUS, Log, build_wiki, measure

BIG_DIR = "/bench-web/many"
BIG_CHILDREN = 1000
TARGET_MS = 20.0


def add_big_directory(kb: Any) -> str:
    """A directory of 1,000 pages with a dimension-like index text; returns its path."""
    from wikikv.store.bulk import BulkWriter

    lines = [f"# many\n> {BIG_CHILDREN} entries\n"]
    with BulkWriter(kb, job="bench-web") as bw:
        for i in range(BIG_CHILDREN):
            name = f"Entry {i:04d}"
            bw.put_file(f"{BIG_DIR}/{name}", f"Entry number {i}.")
            lines.append(f"- [[{BIG_DIR}/{name}|{name}]] — summary line of entry {i}")
        bw.mkdir(BIG_DIR, "\n".join(lines) + "\n")
    return BIG_DIR


def _row(
    name: str, cold_ns: list[int], warm_ns: list[int], http_ns: list[int], size: int
) -> dict[str, Any]:
    cold, warm, http = summarize(cold_ns), summarize(warm_ns), summarize(http_ns)
    return {
        "page": name,
        "cold_p50_ms": round(cold["p50"] / 1000, 2),
        "cold_p90_ms": round(cold["p90"] / 1000, 2),
        "warm_p50_ms": round(warm["p50"] / 1000, 2),
        "warm_p90_ms": round(warm["p90"] / 1000, 2),
        "http_p50_ms": round(http["p50"] / 1000, 2),
        "html_kb": round(size / 1024, 1),
        "samples": warm["count"],
        "target_met_cold": cold["p50"] / 1000 <= TARGET_MS,
        "target_met_warm": warm["p50"] / 1000 <= TARGET_MS,
    }


def render_times(store: Any, kb: Any, repeat: int, log: Log) -> list[dict[str, Any]]:
    """Server-side render times, cold (the rendered-text cache emptied before every render: the
    first view after a change) and warm (repeat views), and over HTTP (warm)."""
    import httpx

    from wikikv.interfaces.http.app import create_app
    from wikikv.interfaces.http.context import ServerConfig
    from wikikv.interfaces.web import router
    from wikikv.interfaces.web.markdown import clear_cache
    from wikikv.interfaces.web.routes import page_body
    from wikikv.store.records import FileRecord
    from wikikv.testing.http_server import LoopbackServer

    base = f"/wiki/{kb.name}"
    entities = [
        p
        for p in kb.prefix("/")
        if not p.startswith(("/sources", "/bench-web"))
        and isinstance(rec := kb.get(p), FileRecord)
        and rec.meta.kind == "entity"
    ]
    random.Random(12).shuffle(entities)
    sample = entities[:200]
    big = add_big_directory(kb)
    cases = {"entity page": sample, "1,000-child directory": [big]}
    out: list[dict[str, Any]] = []
    app = create_app(store, ServerConfig(access_flush_interval=0.5), routers=[router])
    with LoopbackServer(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        for name, paths in cases.items():
            log(f"rendering {name} ({len(paths)} paths) …")

            def body(p: str) -> str:
                return page_body(None, kb, p, base, "en", None, kb=kb.name, who="bench")

            def cold(p: str) -> str:
                clear_cache()
                return body(p)

            warm_ops = [(lambda p=p: body(p)) for p in paths]
            cold_ops = [(lambda p=p: cold(p)) for p in paths]
            warmup = min(len(paths), 20)
            cold_ns = time_ops(cold_ops, repeat=max(20, repeat // 4), warmup=warmup)
            warm_ns = time_ops(warm_ops, repeat=repeat, warmup=warmup)
            size = len(body(paths[0]).encode("utf-8"))
            http_ops = [
                (lambda p=p: client.get(f"{base}/page", params={"path": p}).raise_for_status())
                for p in paths
            ]
            http_ns = time_ops(http_ops, repeat=max(20, repeat // 4), warmup=5)
            out.append(_row(name, cold_ns, warm_ns, http_ns, size))
    return out


def run(
    corpus: str = DEFAULT_CORPUS, log: Log = print, repeat: int = 400, vault: bool = True
) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="wikikv-bench-web-"))
    try:
        store, kb, build_s = build_wiki(corpus, work, log)
        vault_result = measure(store, kb, work, log) if vault else None
        renders = render_times(store, kb, repeat, log)
        store.close()
        return {
            "benchmark": "web",
            "corpus": corpus,
            "build_s": round(build_s, 1),
            "target_ms": TARGET_MS,
            "render": renders,
            "vault": vault_result,
            "machine": machine_info(),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
