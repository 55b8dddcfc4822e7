"""Which of an entity's links its page shows: at most :data:`MAX_SHOWN`, strongest first.

"Mentioned In" is capped (:data:`wikikv.compile.model.MAX_MENTIONS`); "Related Pages" was not,
and a name every article mentions collects a link from each of them: "United States" had 7,128
at ~100 MB of text, a 1 MB page no reader scans, which every add naming the country rewrote.
A page shows the links with the strongest ties and says how many it leaves out.

The ranking reads only the page's own entity and how often the documents of each subject name
it, so a full build (before :func:`wikikv.compile.slim.compact` trims the counts) and an
incremental add (from the stored entity) choose the same links, and the add loads only the
linked entities it shows.

Those per-subject sums (:class:`SubjectSums`) are sums over the documents naming the entity, so
the model keeps them for every entity over the bound (:func:`keeps_sums`) and an add adds its
new documents' part: at ~100 MB "United States" is named by ~7,000 documents, whose subjects an
add would otherwise read one record each. A stored document's subject never changes in an add
(a title that would move one makes the add a full derive), so the sums of an entity whose
naming counts are unchanged stay exact.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import msgspec

from wikikv.compile.model import Entity
from wikikv.compile.title_index import Lazy, Overlay

MAX_SHOWN = 200


class SubjectSums(msgspec.Struct, array_like=True):
    """How often the documents about each subject name an entity (``by_subject``), and the
    number of documents and namings summed: a record that does not match the entity's own
    counts (:func:`fits`) is not used."""

    docs: int = 0
    named: int = 0
    by_subject: dict[str, int] = msgspec.field(default_factory=dict)


def keeps_sums(ent: Entity) -> bool:
    """Whether the model stores ``ent``'s :class:`SubjectSums`: its page bounds its links."""
    return len(ent.links) > MAX_SHOWN


def subject_sums(times_named: Mapping[str, int], about: Mapping[str, str]) -> SubjectSums:
    """The sums of the documents ``times_named`` counts (document → how often it names the
    entity), by their subjects in ``about``."""
    by: dict[str, int] = {}
    for doc_id, n in times_named.items():
        src = about.get(doc_id)
        if src is not None:
            by[src] = by.get(src, 0) + n
    return SubjectSums(len(times_named), sum(times_named.values()), dict(sorted(by.items())))


def add_sums(old: SubjectSums, added: SubjectSums) -> SubjectSums:
    """``old`` with the part of documents it did not count added."""
    by = dict(old.by_subject)
    for src, n in added.by_subject.items():
        by[src] = by.get(src, 0) + n
    return SubjectSums(old.docs + added.docs, old.named + added.named, dict(sorted(by.items())))


def fits(sums: SubjectSums, ent: Entity) -> bool:
    """Whether ``sums`` counts the documents ``ent`` counts (a record not updated with the
    entity does not)."""
    return sums.docs == len(ent.times_named) and sums.named == sum(ent.times_named.values())


def prefetch_subjects(about: Mapping[str, str], docs: Iterable[str]) -> None:
    """Read the subjects of ``docs`` at once (through an add's overlay to the stored table)."""
    base = about.base if isinstance(about, Overlay) else about
    if isinstance(base, Lazy):
        base.prefetch(docs)


def bound_links(
    ent: Entity,
    about: Mapping[str, str],
    limit: int | None = None,
    sums: SubjectSums | None = None,
) -> None:
    """Keep ``ent``'s ``limit`` strongest links and count the rest in ``links_hidden``.

    Call it on a render's copy only: the stored model keeps every link, since an add can make
    a hidden link strong. Strength, in order: a model-given reason, a link both ways, a link
    from the page's own article, then how often the other side's articles name ``ent``;
    ties go by key, so the choice never depends on another entity's state. ``sums``: the
    entity's :class:`SubjectSums`, when known (else they are summed from ``about``).
    """
    limit = MAX_SHOWN if limit is None else limit
    links = ent.links
    if len(links) <= limit:
        return
    named = (subject_sums(ent.times_named, about) if sums is None else sums).by_subject

    def strength(key: str) -> tuple[bool, bool, bool, int, str]:
        reasons = links[key]
        return (
            not any(r.startswith("llm:") for r in reasons),
            not ("mentions" in reasons and "mentioned-by" in reasons),
            "mentions" not in reasons,
            -named.get(key, 0),
            key,
        )

    kept = sorted(links, key=strength)[:limit]
    ent.links_hidden += len(links) - len(kept)
    ent.links = {k: links[k] for k in kept}
