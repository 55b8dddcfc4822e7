"""Draw set (b): a random sample of the entity pages of a compiled Lu Xun wiki, to be labelled by
hand, and print pages the way a labeller reads them.

It reads the wiki's pages only (never the entity detector): every file outside ``/sources`` is an
entity page; the sample is ``random.Random(SEED).sample(sorted paths, N)``.

Usage (``PYTHONPATH=src``):

    python evals/luxun/sample_pages.py draw STORE_URL SEED N > skeleton.tsv
    python evals/luxun/sample_pages.py show STORE_URL PATH...   # page text, cited sentences
    python evals/luxun/sample_pages.py showfile STORE_URL SAMPLE.tsv  # every sampled page
    python evals/luxun/sample_pages.py count STORE_URL          # how many entity pages

The kb is ``luxun`` unless ``SAMPLE_KB`` names another (``bench`` in a store ``bench quality``'s
build helper wrote).

``draw`` writes the label file's columns with ``label`` and ``reason`` empty; the labeller fills
them after reading each page (``show``) and, where the page does not settle it, the source text.
"""

from __future__ import annotations

import os
import random
import sys

from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirRecord, FileRecord
from wikikv.store.store import open_store

KB = os.environ.get("SAMPLE_KB", "luxun")  # the kb name (`bench quality` builds "bench")
COLUMNS = ("path", "name", "type", "confidence", "label", "reason", "stratum")


def entity_paths(kb: KnowledgeBase) -> list[str]:
    """Every entity page of ``kb`` (every file outside ``/sources``), sorted."""
    out: list[str] = []
    stack = [p for p in kb.ls_all("/").child_paths() if not p.startswith("/sources")]
    while stack:
        path = stack.pop()
        rec = kb.get(path, follow_redirects=False)
        if isinstance(rec, DirRecord):
            stack += kb.ls_all(path).child_paths()
        elif isinstance(rec, FileRecord):
            out.append(path)
    return sorted(out)


def draw(kb: KnowledgeBase, seed: int, n: int) -> list[list[str]]:
    paths = entity_paths(kb)
    rows = []
    for path in random.Random(seed).sample(paths, n):
        rec = kb.get(path)
        assert isinstance(rec, FileRecord)
        dim = path.split("/")[1]
        conf = rec.meta.confidence
        rows.append([path, rec.meta.title, dim, f"{conf:g}", "", "", "A"])
    return rows


def show(kb: KnowledgeBase, path: str, lines: int = 14, width: int = 0) -> str:
    """A page as a labeller reads it: heading, summary, section heads and quoted sentences
    (``width``: cut each line to that many characters)."""
    rec = kb.get(path)
    if not isinstance(rec, FileRecord):
        return f"== {path}: no page"
    body = [ln for ln in rec.text.split("\n") if ln.startswith(("# ", "> ", "## ", "- "))]
    body = [ln for ln in body if not ln.startswith("- [[")]  # related pages and sources
    if width:
        body = [ln if len(ln) <= width else ln[: width - 1] + "…" for ln in body]
    return "\n".join([f"== {path}  conf={rec.meta.confidence:g}", *body[:lines]])


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd, url = argv[0], argv[1]
    kb = open_store(url).kb(KB)
    if cmd == "count":
        print(len(entity_paths(kb)))
    elif cmd == "draw":
        seed, n = int(argv[2]), int(argv[3])
        print("\t".join(COLUMNS))
        for row in draw(kb, seed, n):
            print("\t".join(row))
    elif cmd == "show":
        for path in argv[2:]:
            print(show(kb, path))
    elif cmd == "showfile":  # every page of a drawn sample, compactly
        with open(argv[2], encoding="utf-8") as f:
            rows = [ln.split("\t") for ln in f if ln.strip() and not ln.startswith("#")]
        for row in rows[1:]:
            print(show(kb, row[0], lines=9, width=110))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
