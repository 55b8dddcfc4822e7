"""One string object per distinct name, kind and version across the analyses a build holds.

A build keeps every document's analysis until its derive, and the analyses come back from the
forked analysis workers decoded one string at a time: each mention (~2/3 of an analysis) carried
its own copy of its kind ("person": 55 bytes), of its folded key and of its surface, though a
name is mentioned in many sentences and documents. :func:`shared` returns the analysis with
those strings interned; it is equal to the one given, field for field.
"""

from __future__ import annotations

import sys

import msgspec

from wikikv.compile.model import DocAnalysis


def shared(a: DocAnalysis) -> DocAnalysis:
    """``a`` with its mentions' key, surface and kind, and its language, subject kind and
    version, replaced by the interned equal strings."""
    intern, replace = sys.intern, msgspec.structs.replace
    mentions = [
        replace(m, key=intern(m.key), surface=intern(m.surface), kind=intern(m.kind))
        for m in a.mentions
    ]
    return replace(
        a,
        mentions=mentions,
        lang=intern(a.lang),
        about_kind=intern(a.about_kind),
        version=intern(a.version),
    )
