"""The Lu Xun evaluation sets of issue 8 (``evals/luxun/``) and the flat-file baselines they are
scored against: loaders for the question set (c), the entity list (a) and the labelled page
sample (b), and BM25 over the raw files with jieba tokens."""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from wikikv.errors import NotFound
from wikikv.query.sentences import split_sentences
from wikikv.search.tokenize import has_cjk

BUCKETS = ("single", "multi", "theme")
_PUNCT_ONLY = re.compile(r"^[\W_]+$")


def evals_dir() -> Path:
    """``<repo>/evals/luxun`` (the sets live in the repository, beside ``src``)."""
    return Path(__file__).resolve().parents[3] / "evals" / "luxun"


def dev_path() -> Path:
    """The development set (d): multi-document questions that nav's ranking is tuned on, so
    that set (c) stays a held-out measure."""
    return evals_dir() / "questions_dev.yaml"


@dataclass(frozen=True)
class ZhQuestion:
    id: str
    bucket: str
    question: str
    docs: tuple[str, ...]
    answer: str


def load_questions(path: Path | None = None) -> list[ZhQuestion]:
    """The questions of set (c); a malformed entry is a clear error naming it."""
    p = path or evals_dir() / "questions.yaml"
    if not p.is_file():
        raise NotFound(f"no question set at {p}")
    data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    out: list[ZhQuestion] = []
    for i, item in enumerate(data.get("questions", [])):
        try:
            q = ZhQuestion(
                str(item["id"]),
                str(item["bucket"]),
                str(item["question"]),
                tuple(str(d) for d in item["docs"]),
                str(item["answer"]),
            )
        except (KeyError, TypeError) as exc:
            raise NotFound(f"{p}: question #{i + 1} lacks a field ({exc})") from exc
        if q.bucket not in BUCKETS:
            raise NotFound(f"{p}: question {q.id} has unknown bucket {q.bucket!r}")
        out.append(q)
    return out


def read_corpus(folder: Path) -> dict[str, str]:
    """``<collection>/<title>`` → text of every Markdown file of the Lu Xun corpus."""
    return {
        str(p.relative_to(folder).with_suffix("")): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*.md"))
        if p.name != "SOURCE.md"
    }


def squash(text: str) -> str:
    """Text without whitespace (the corpus breaks lines inside sentences)."""
    return "".join(text.split())


def contains_answer(texts: Sequence[str], answer: str) -> bool:
    target = squash(answer)
    return any(target in squash(t) for t in texts)


# ----------------------------------------------------------------------------- baselines
def jieba_tokens(text: str) -> list[str]:
    """The baseline's tokens: jieba's default (accurate, HMM) cut, punctuation and space dropped."""
    import jieba

    return [w for w in jieba.lcut(text) if w.strip() and not _PUNCT_ONLY.match(w)]


class FlatBM25:
    """``rank_bm25.BM25Okapi`` (defaults) over whole files, jieba tokens."""

    def __init__(self, docs: dict[str, str]) -> None:
        from rank_bm25 import BM25Okapi

        self.ids = list(docs)
        self.bm25 = BM25Okapi([jieba_tokens(docs[d]) for d in self.ids])

    def rank(self, query: str, k: int) -> list[str]:
        scores = self.bm25.get_scores(jieba_tokens(query))
        order = sorted(range(len(self.ids)), key=lambda i: (-float(scores[i]), i))
        return [self.ids[i] for i in order[:k]]


def sentences(text: str) -> list[str]:
    """Sentences of a raw text: paragraphs split at blank lines, then after 。！？； (Chinese,
    lines joined without spaces) or after . ! ? before a capital (other text, lines joined with
    one space) — the same splitting ``ask`` uses."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        joined = squash(para) if has_cjk(para) else " ".join(para.split())
        out.extend(s for s in split_sentences(joined) if s)
    return out


class SentenceBM25:
    """BM25 over the sentences of a corpus: the ``ask`` baseline (the same number of top
    sentences as the answer has)."""

    def __init__(self, docs: dict[str, str], tokens: Any = None) -> None:
        from rank_bm25 import BM25Okapi

        self.tokens = tokens or jieba_tokens
        self.items = [(d, s) for d, text in docs.items() for s in sentences(text)]
        self.bm25 = BM25Okapi([self.tokens(s) or ["∅"] for _, s in self.items])

    def top(self, query: str, n: int) -> list[tuple[str, str]]:
        scores = self.bm25.get_scores(self.tokens(query))
        order = sorted(range(len(self.items)), key=lambda i: (-float(scores[i]), i))
        return [self.items[i] for i in order[:n]]


# ----------------------------------------------------------------------------- sets (a) and (b)
def load_table(path: Path) -> list[dict[str, str]]:
    """Rows of a CSV/TSV (by extension) or YAML list file, keys lower-cased."""
    if path.suffix in (".yaml", ".yml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            data = next((v for v in data.values() if isinstance(v, list)), [])
        return [{str(k).lower(): _cell(v) for k, v in row.items()} for row in data or []]
    delim = "\t" if path.suffix == ".tsv" else ","
    with path.open(encoding="utf-8", newline="") as fh:
        rows = csv.DictReader((ln for ln in fh if not ln.lstrip().startswith("#")), delimiter=delim)
        return [{(k or "").strip().lower(): (v or "").strip() for k, v in r.items()} for r in rows]


def _cell(value: object) -> str:
    if isinstance(value, list):
        return ";".join(str(v) for v in value)
    return "" if value is None else str(value)


def find_set(*stems: str) -> Path | None:
    """The first file under ``evals/luxun`` whose name starts with one of ``stems``."""
    folder = evals_dir()
    if not folder.is_dir():
        return None
    exts = (".tsv", ".csv", ".yaml", ".yml")
    for stem in stems:
        for ext in exts:
            if (folder / f"{stem}{ext}").is_file():
                return folder / f"{stem}{ext}"
    for stem in stems:
        for ext in exts:
            for p in sorted(folder.glob(f"*{stem}*{ext}")):
                if ".src." not in p.name:  # a source file the set is generated from
                    return p
    return None
