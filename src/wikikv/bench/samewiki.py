"""Whether two builds made the same wiki: build a corpus and write a canonical digest of every node
(text without dates, aliases, links, sources, kind, title, summary) and of every search index key
(posting blocks as multisets of postings); then compare two digests.

Run it with two checkouts to compare their builds of the shared corpora::

    PYTHONPATH=old/src python -m wikikv.bench.samewiki dump CORPUS /tmp/a old.json
    PYTHONPATH=new/src python -m wikikv.bench.samewiki dump CORPUS /tmp/b new.json
    python -m wikikv.bench.samewiki compare old.json new.json
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

_DATES = re.compile(r"^(created|updated): .*$", re.MULTILINE)
POSTING_BYTES = 28


def digest(kb: Any) -> dict[str, Any]:
    """The canonical digest of a built kb (see the module docstring)."""
    from wikikv.store.records import DirRecord, FileRecord

    pages: dict[str, list[Any]] = {}
    for path in kb.walk("/"):
        rec = kb.get(path)
        if isinstance(rec, FileRecord):
            m = rec.meta
            pages[path] = [
                _DATES.sub("", rec.text),
                sorted(m.aliases),
                sorted(m.links),
                sorted(m.sources),
                m.kind,
                m.title,
                m.summary,
            ]
        elif isinstance(rec, DirRecord):
            pages[path] = [rec.text, sorted(rec.sub_dirs), sorted(rec.files)]
    base = kb.keys.space("I")
    index: dict[str, str] = {}
    for key, item in kb.backend.scan(base, base + b"\xff"):
        rel = key[len(base) :]
        if rel == b"s":
            continue  # the stats record carries a random generation
        value = item.value
        if rel[:1] == b"p":
            size = POSTING_BYTES
            value = b"".join(sorted(value[i : i + size] for i in range(0, len(value), size)))
        index[rel.hex()] = hashlib.blake2b(value, digest_size=12).hexdigest()
    return {"pages": pages, "index": index}


def dump(corpus: str, store_dir: str, out: str) -> dict[str, Any]:
    from wikikv.compile.pipeline import Compiler
    from wikikv.quality.hooks import gated
    from wikikv.store.store import open_store

    store = open_store(f"lmdb://{store_dir}?sync=false")
    try:
        kb = store.create_kb("same")
        t = time.perf_counter()
        report = Compiler(kb, options=gated()).build(corpus)
        result = {
            "report": {
                "documents": report.documents,
                "entities": report.entities,
                "links": report.links,
                "facts": report.facts,
                "seconds": round(time.perf_counter() - t, 1),
            },
            **digest(kb),
        }
    finally:
        store.close()
    Path(out).write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
    return result


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, list[str]]:
    """Per part (pages, index), the keys whose digests differ or that only one side has."""
    out: dict[str, list[str]] = {}
    for part in ("pages", "index"):
        da, db = a[part], b[part]
        out[part] = sorted(k for k in set(da) | set(db) if da.get(k) != db.get(k))
    return out


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[0] == "dump":
        r = dump(argv[1], argv[2], argv[3])
        print(json.dumps(r["report"]), len(r["pages"]), "nodes", len(r["index"]), "index keys")
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        a, b = (json.loads(Path(p).read_text(encoding="utf-8")) for p in argv[1:])
        diff = compare(a, b)
        for part, keys in diff.items():
            print(part, "same" if not keys else f"{len(keys)} differ, e.g. {keys[:3]}")
        return 1 if any(diff.values()) else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
