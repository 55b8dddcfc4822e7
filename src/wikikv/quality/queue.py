"""Findings that need a person go to the kb's review queue (:mod:`wikikv.review`).

The item key is derived from the finding's own stable key, so a finding that was accepted or
rejected once is never raised again, and validators skip it (a person decided it).
"""

from __future__ import annotations

import hashlib

from wikikv.quality.validators import Finding
from wikikv.review import ReviewItem, ReviewQueue
from wikikv.store.kb import KnowledgeBase

KIND_PREFIX = "quality/"


def finding_key(finding: Finding) -> str:
    return "q" + hashlib.blake2b(finding.key.encode("utf-8"), digest_size=10).hexdigest()


def enqueue(kb: KnowledgeBase, finding: Finding, action: str) -> ReviewItem | None:
    """File ``finding`` for review. None when a person already decided it, or when it is
    already waiting (its details, e.g. an LLM's explanation, are kept)."""
    queue = ReviewQueue(kb)
    if queue.get(finding_key(finding)) is not None:
        return None
    details = {"detail": finding.detail, "action": action, "finding": finding.key}
    if finding.target:
        details["target"] = finding.target
    if finding.n:
        details["fact"] = finding.n
    return queue.file(
        KIND_PREFIX + finding.type, finding.path, finding.detail, details, key=finding_key(finding)
    )


def decided(kb: KnowledgeBase, finding: Finding) -> bool:
    return ReviewQueue(kb).decided(finding_key(finding))


def decided_keys(kb: KnowledgeBase) -> set[str]:
    """The finding keys a person accepted or rejected (one scan of the queue)."""
    out: set[str] = set()
    for item in ReviewQueue(kb).items(status=None):
        if item.status != "open" and item.kind.startswith(KIND_PREFIX):
            key = item.details.get("finding")
            if key:
                out.add(key)
    return out
