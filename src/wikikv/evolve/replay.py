"""Seed access statistics from a workload file when no traffic has been recorded yet
(``wikikv stats replay QUERIES``): each query runs through nav with a recorder attached, exactly
as a live reader's would, and the buffer is flushed at the end."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from wikikv.errors import WikiKVError
from wikikv.query.budget import Budget
from wikikv.query.nav import nav
from wikikv.store.access_stats import AccessRecorder, attach
from wikikv.store.kb import KnowledgeBase

QUESTION_FIELDS = ("question", "query", "q", "text")
REPLAY_READS = 24


class WorkloadError(WikiKVError):
    """A workload file that cannot be read as queries."""


def _text_of(item: object, origin: str) -> str:
    if isinstance(item, str):
        return item.strip()
    if isinstance(item, dict):
        for f in QUESTION_FIELDS:
            value = item.get(f)
            if isinstance(value, str):
                return value.strip()
    raise WorkloadError(f"{origin}: expected a query string or an object with 'question'")


def read_queries(path: str | Path) -> list[str]:
    """Queries from JSONL (``question`` / ``query`` field), YAML (a list, or a mapping with a
    ``questions`` list) or plain text (one a line; ``#`` comments)."""
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkloadError(f"cannot read workload {p}: {exc}") from exc
    items: list[object]
    if p.suffix == ".jsonl":
        items = []
        for n, line in enumerate(raw.splitlines(), 1):
            if line.strip():
                try:
                    items.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise WorkloadError(f"{p}:{n}: not JSON: {exc}") from exc
    elif p.suffix in (".yaml", ".yml"):
        try:
            doc = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            raise WorkloadError(f"{p}: not YAML: {exc}") from exc
        if isinstance(doc, dict):
            doc = doc.get("questions", doc.get("queries"))
        if not isinstance(doc, list):
            raise WorkloadError(f"{p}: expected a list of questions")
        items = list(doc)
    else:
        items = [ln for ln in raw.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    out = [q for i, item in enumerate(items) if (q := _text_of(item, f"{p} item {i + 1}"))]
    if not out:
        raise WorkloadError(f"{p}: no queries")
    return out


def replay(kb: KnowledgeBase, queries: list[str], max_reads: int = REPLAY_READS) -> AccessRecorder:
    """Run every query through nav with recording on; flush; return the recorder."""
    rec = attach(kb)
    for q in queries:
        for _ in nav(kb, q, Budget(max_reads=max_reads)):
            pass
    rec.flush()
    return rec
