"""Generated wikis and workloads for the schema-evolution properties, and the partial-read
check of :mod:`wikikv.testing.workloads` run against a kb that an evolution pass is reshaping.

:func:`generated_corpus` writes encyclopaedic passages whose lead sentences define their subject
("Alder Vale is a 1994 French film by ..."), so the offline Architect has real categories to
find; :func:`generated_queries` asks about some of them (the workload replayed as statistics).
:func:`evolving_reads` runs reader processes that list directories and read every advertised
child while the caller commits a pass, counting misses the listing still advertises.
"""

from __future__ import annotations

import multiprocessing as mp
import random
import time
from typing import Any

from wikikv.compile.ingest import Document, make_document
from wikikv.errors import CorruptRecord, WikiKVError
from wikikv.store.access_stats import attach
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileRecord
from wikikv.store.store import open_store
from wikikv.testing.workloads import PartialReadsResult, _pr_read_from

CATEGORIES = {
    "person": ["singer", "painter", "footballer", "novelist", "politician", "architect"],
    "work": ["album", "film", "novel", "song", "opera"],
    "place": ["village", "river", "mountain", "island"],
}
MODIFIERS = ["French", "American", "Polish", "Japanese", "Danish"]
SYLLABLES = [
    "al",
    "ber",
    "cor",
    "dun",
    "el",
    "far",
    "gil",
    "hal",
    "ith",
    "jor",
    "kel",
    "lun",
    "mor",
    "nar",
    "os",
    "per",
    "quin",
    "ros",
    "sul",
    "tor",
    "ul",
    "vin",
    "wes",
    "yor",
]
_SPAWN = mp.get_context("spawn")


def _name(rng: random.Random, taken: set[str]) -> str:
    while True:
        first = "".join(rng.choice(SYLLABLES) for _ in range(2)).capitalize()
        last = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()
        name = f"{first} {last}"
        if name not in taken:
            taken.add(name)
            return name


def generated_corpus(seed: int, n_docs: int) -> list[Document]:
    """``n_docs`` passages, each defining its subject and naming two others."""
    rng = random.Random(seed)
    taken: set[str] = set()
    subjects = []
    for _ in range(n_docs):
        kind = rng.choice(list(CATEGORIES))
        subjects.append((_name(rng, taken), kind, rng.choice(CATEGORIES[kind])))
    docs = []
    for i, (name, _kind, cat) in enumerate(subjects):
        year = rng.randint(1900, 2019)
        mod = rng.choice(MODIFIERS)
        a, b = rng.sample([s[0] for s in subjects if s[0] != name], 2)
        text = (
            f"{name} is a {year} {mod} {cat} known in the region. "
            f"{name} was described at length by {a} in a long essay. "
            f"Later {name} was compared with {b}, and the comparison was widely discussed."
        )
        docs.append(make_document(f"g{i:04d}", name, text, f"fp{seed}-{i}"))
    return docs


def generated_queries(docs: list[Document], seed: int, n: int) -> list[str]:
    """Questions about a skewed sample of the subjects (some asked about often)."""
    rng = random.Random(seed)
    hot = docs[: max(2, len(docs) // 5)]
    out = []
    for _ in range(n):
        d = rng.choice(hot) if rng.random() < 0.7 else rng.choice(docs)
        out.append(rng.choice([f"Who or what is {d.title}?", f"{d.title} essay", d.title]))
    return out


def _reader(url: str, kb_name: str, seconds: float, seed: int, started: Any, queue: Any) -> None:
    rng = random.Random(seed)
    counts: dict[str, Any] = {
        "listings": 0,
        "children_read": 0,
        "misses_explained": 0,
        "violations": 0,
        "undecodable": 0,
        "errors": [],
    }
    with open_store(url) as store:
        kb = store.kb(kb_name)
        started.release()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            start = rng.choice(["/", *[f"/{d}" for d in kb.ls("/").sub_dirs if d != "sources"]])
            try:
                _pr_read_from(kb, start, rng, counts)
            except CorruptRecord:
                counts["undecodable"] += 1
            except WikiKVError as exc:
                if "no directory" in str(exc):
                    counts["misses_explained"] += 1  # the directory was merged / split away
                    continue
                counts["errors"].append(f"reader: {exc!r}")
                break
    queue.put(counts)


class EvolvingReads:
    """Reader processes over ``kb_name`` while the caller runs an evolution pass."""

    def __init__(self, url: str, kb_name: str, seconds: float, readers: int = 2) -> None:
        self.seconds = seconds
        self.queue: Any = _SPAWN.Queue()
        self.started: Any = _SPAWN.Semaphore(0)
        self.procs = [
            _SPAWN.Process(
                target=_reader, args=(url, kb_name, seconds, r, self.started, self.queue)
            )
            for r in range(readers)
        ]

    def __enter__(self) -> EvolvingReads:
        for p in self.procs:
            p.start()
        for _ in self.procs:
            self.started.acquire(timeout=120)
        return self

    def __exit__(self, *exc: object) -> None:
        for p in self.procs:
            p.join(timeout=self.seconds + 60)

    def collect(self) -> PartialReadsResult:
        total = PartialReadsResult()
        for _ in self.procs:
            part = self.queue.get(timeout=self.seconds + 120)
            for key, value in part.items():
                if key == "errors":
                    total.errors.extend(value)
                else:
                    setattr(total, key, getattr(total, key) + value)
        return total


def generated_workload(kb: KnowledgeBase, seed: int, queries: int) -> None:
    """Record ``queries`` generated queries through an access recorder, as readers would: most
    read one page in each of a few hot pairs of sibling directories (co-access that
    DimensionMerge can act on), the rest one page anywhere, with a skew towards a few pages."""
    rng = random.Random(seed)
    by_dir: dict[str, list[str]] = {}
    for path in kb.walk("/"):
        if not path.startswith("/sources") and isinstance(kb.get(path), FileRecord):
            by_dir.setdefault(path.rsplit("/", 1)[0], []).append(path)
    dirs = sorted(by_dir)
    siblings = [
        (a, b)
        for i, a in enumerate(dirs)
        for b in dirs[i + 1 :]
        if a.rsplit("/", 1)[0] == b.rsplit("/", 1)[0] and a.count("/") >= 2
    ]
    hot = rng.sample(siblings, min(len(siblings), 3))
    pages = [p for d in dirs for p in by_dir[d]]
    favourites = rng.sample(pages, min(len(pages), 8))
    rec = attach(kb)
    for _ in range(queries):
        with rec.query():
            r = rng.random()
            if hot and r < 0.5:
                a, b = rng.choice(hot)
                kb.get(rng.choice(by_dir[a]))
                kb.get(rng.choice(by_dir[b]))
            elif r < 0.8 and favourites:
                kb.get(rng.choice(favourites))
            elif pages:
                kb.get(rng.choice(pages))
    rec.flush()
