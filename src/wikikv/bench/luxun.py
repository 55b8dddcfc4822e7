"""What nav returns first on the Lu Xun wiki for ten Chinese queries (issue 4, "Measure it").

The wiki is compiled offline from the folder corpus ``<shared data>/luxun`` into an LMDB store in
a temporary directory; each query runs through nav with a count budget, and the report keeps,
per query, the first entity-level result and the first source (digest or article) nav reached,
with their titles, the result levels in stream order, and the wall time.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from wikikv.bench.compile import shared_data
from wikikv.bench.report import machine_info
from wikikv.bench.retrieval import DEFAULT_READS, Log, build_wiki
from wikikv.errors import NotFound
from wikikv.query.budget import Budget
from wikikv.query.nav import NavResult, nav

QUERIES = (
    "阿Q是谁",
    "孔乙己为什么被打折了腿",
    "藤野先生是谁",
    "祥林嫂的命运",
    "人血馒头",
    "闰土",
    "百草园",
    "故乡",
    "狂人日记",
    "鲁镇",
)
SNIPPET = 80


def _brief(res: NavResult | None) -> dict[str, Any] | None:
    if res is None:
        return None
    text = " ".join(res.text.split())
    return {
        "level": res.level,
        "path": res.path,
        "title": res.title,
        "score": round(res.score, 3),
        "reason": res.reason,
        "snippet": text[:SNIPPET],
    }


def run_query(kb: Any, query: str, reads: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    results = list(nav(kb, query, Budget(max_reads=reads)))
    ms = round((time.perf_counter() - t0) * 1000.0, 2)
    entity = next((r for r in results if r.level == "entity"), None)
    source = next((r for r in results if r.level in ("digest", "article")), None)
    return {
        "query": query,
        "first_entity": entity.title if entity else None,
        "first_source": source.title if source else None,
        "entity": _brief(entity),
        "source": _brief(source),
        "levels": [r.level for r in results],
        "results": len(results),
        "ms": ms,
    }


def run_luxun(
    reads: int = DEFAULT_READS,
    queries: tuple[str, ...] = QUERIES,
    corpus: Path | None = None,
    log: Log = lambda _msg: None,
) -> dict[str, Any]:
    folder = corpus or shared_data() / "luxun"
    if not folder.is_dir():
        raise NotFound(f"no Lu Xun corpus at {folder}")
    with tempfile.TemporaryDirectory(prefix="wikikv-luxun-") as tmp:
        log(f"luxun: building the wiki from {folder}")
        kb, build = build_wiki(folder, Path(tmp) / "store", log)
        rows = [run_query(kb, q, reads) for q in queries]
    return {
        "benchmark": "luxun-nav",
        "machine": machine_info(),
        "reads": reads,
        "build": build,
        "queries": rows,
    }
