"""The cold start's descriptor names the corpus's frequent names the same way in every process:
ties in their counts were broken by the order of a set, which follows the process's string hash
seed, so two builds of one corpus could write different root pages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# One document naming more people than the descriptor lists (ten), each once: which ten are
# listed depends on nothing but how ties are broken.
NAMES = (
    "Alice Brown, Carl Dunn, Edith Ford, Gavin Hale, Irene Jones, Karl Lund, Mona Nash, "
    "Oscar Pike, Queenie Ross, Stan Tull, Ursula Vance, Walter Xu, Yvonne Zell, Abel Cruz, "
    "Dora Eads"
).split(", ")
DOCS = [
    {
        "id": "meeting",
        "title": "The meeting",
        "text": " ".join(f"{n} spoke at the meeting in Vienna." for n in NAMES),
    },
    {"id": "vienna", "title": "Vienna", "text": "Vienna is the capital city of Austria."},
]

SCRIPT = """
import sys
from wikikv.compile.pipeline import Compiler
from wikikv.store.store import open_store
kb = open_store("memory://").create_kb("k")
Compiler(kb).build(sys.argv[1])
print(kb.get("/").text)
"""


def _root(corpus: Path, seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(corpus)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout


def test_the_root_page_does_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    roots = {_root(corpus, seed) for seed in ("1", "2", "3", "4")}
    assert "frequent names" in next(iter(roots))
    assert len(roots) == 1
