"""Fill the docs column of entities.tsv by grepping the corpus for each hand-written entry.

Input: entities.src.tsv (name, type, aliases, docs, note), written by reading the texts.
Output: entities.tsv (name, type, docs, note, aliases). An entry whose name and aliases appear in
no document, or whose hand-given docs do not contain it, stops the script: every entry is checked
against the texts, and nothing here reads the compiled wiki.

Usage: python evals/luxun/build_entities.py /path/to/data/luxun
"""

from __future__ import annotations

import sys
from pathlib import Path

MAX_DOCS = 8


def main(corpus: Path) -> None:
    here = Path(__file__).parent
    texts = {
        str(p.relative_to(corpus).with_suffix("")): p.read_text(encoding="utf-8")
        for p in sorted(corpus.glob("*/*.md"))
    }
    rows = ["name\ttype\tdocs\tnote\taliases"]
    for line in (here / "entities.src.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, kind, aliases, docs, note = (line.split("\t") + [""] * 5)[:5]
        forms = [name, *[a for a in aliases.split("|") if a]]
        if docs:
            given = docs.split("|")
            for doc in given:
                if doc not in texts or not any(f in texts[doc] for f in forms):
                    sys.exit(f"{name}: not found in {doc}")
        else:
            counts = {d: sum(t.count(f) for f in forms) for d, t in texts.items()}
            found = sorted((d for d, n in counts.items() if n), key=lambda d: (-counts[d], d))
            if not found:
                sys.exit(f"{name}: in no document")
            given = found[:MAX_DOCS]
            if len(found) > MAX_DOCS:
                note = f"{note} (in {len(found)} documents; the {MAX_DOCS} with most mentions listed)"
        rows.append("\t".join([name, kind, "|".join(given), note, "|".join(forms[1:])]))
    (here / "entities.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"{len(rows) - 1} entities written")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
