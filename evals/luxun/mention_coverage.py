"""Fact coverage as issue 8 words it: the share of an entity's document mentions that reach its
page. Every (entity, document, sentence) where a document names an entity that has a page is
counted once; it reaches the page when the page quotes that sentence (as a key fact or under
"Mentioned in"). `wikikv check --report` keeps its own, stricter measure (the share of all
informative sentences quoted on some page); both are reported.

Usage: PYTHONPATH=src python evals/luxun/mention_coverage.py STORE_URL [KB]
"""

from __future__ import annotations

import sys

from wikikv.compile import model, state
from wikikv.store.store import open_store


def main(url: str, kb_name: str = "luxun") -> None:
    kb = open_store(url).kb(kb_name)
    docs = state.load_docs(kb)
    schema = state.load_schema(kb)
    if schema is None:
        sys.exit("no compiled schema in this kb")
    m = model.derive(docs, schema)
    cited = {
        k: {(f.doc, f.start) for f in e.facts + e.mentions} for k, e in m.entities.items()
    }
    total = hit = 0
    for d in docs.values():
        seen: set[tuple[str, int]] = set()
        for men in d.mentions:
            key = m.variants.get(men.key, men.key)
            if key not in m.entities or not 0 <= men.sent < len(d.sentences):
                continue
            if (key, men.sent) in seen:
                continue
            seen.add((key, men.sent))
            total += 1
            hit += (d.id, d.sentences[men.sent].start) in cited[key]
    print(f"mention coverage: {hit} / {total} = {hit / total:.3f}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
