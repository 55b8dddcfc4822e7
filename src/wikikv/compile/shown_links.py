"""Which of an entity's links its page shows: at most :data:`MAX_SHOWN`, strongest first.

"Mentioned In" is capped (:data:`wikikv.compile.model.MAX_MENTIONS`); "Related Pages" was not,
and a name every article mentions collects a link from each of them: "United States" had 7,128
at ~100 MB of text, a 1 MB page no reader scans, which every add naming the country rewrote.
A page shows the links with the strongest ties and says how many it leaves out.

The ranking reads only the page's own entity and the document → subject map, so a full build
(before :func:`wikikv.compile.slim.compact` trims the counts) and an incremental add (from the
stored entity) choose the same links, and the add loads only the linked entities it shows.
"""

from __future__ import annotations

from collections.abc import Mapping

from wikikv.compile.model import Entity

MAX_SHOWN = 200


def bound_links(ent: Entity, about: Mapping[str, str], limit: int | None = None) -> None:
    """Keep ``ent``'s ``limit`` strongest links and count the rest in ``links_hidden``.

    Call it on a render's copy only: the stored model keeps every link, since an add can make
    a hidden link strong. Strength, in order: a model-given reason, a link both ways, a link
    from the page's own article, then how often the other side's articles name ``ent``;
    ties go by key, so the choice never depends on another entity's state.
    """
    limit = MAX_SHOWN if limit is None else limit
    links = ent.links
    if len(links) <= limit:
        return
    named: dict[str, int] = {}
    for doc_id, n in ent.times_named.items():
        src = about.get(doc_id)
        if src is not None and src in links:
            named[src] = named.get(src, 0) + n

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
