"""One object per distinct name, kind, version and text offset across the analyses a build holds.

A build keeps every document's analysis until its derive, and the analyses come back from the
forked analysis workers decoded one value at a time: each mention (~2/3 of an analysis) carried
its own copy of its kind ("person": 55 bytes), of its folded key and of its surface, though a
name is mentioned in many sentences and documents, and every offset past 256 (the ints Python
shares) was an int object of its own (28 bytes) in each mention and sentence. :func:`shared`
returns the analysis with those values replaced by shared equal ones; it equals the one given.
"""

from __future__ import annotations

import sys

import msgspec

from wikikv.compile.model import DocAnalysis
from wikikv.llm.base import SentenceSpan

_OFFSETS = 1 << 16
_INTS = list(range(_OFFSETS))  # one object per offset below 64 Ki (2.3 MB, made once)


def _int(n: int) -> int:
    return _INTS[n] if 0 <= n < _OFFSETS else n


def shared(a: DocAnalysis) -> DocAnalysis:
    """``a`` with its mentions' key, surface and kind, its language, subject kind and version
    interned, and its mentions' and sentences' offsets the shared int objects."""
    intern, replace = sys.intern, msgspec.structs.replace
    mentions = [
        replace(
            m,
            key=intern(m.key),
            surface=intern(m.surface),
            kind=intern(m.kind),
            sent=_int(m.sent),
            start=_int(m.start),
            end=_int(m.end),
        )
        for m in a.mentions
    ]
    return replace(
        a,
        mentions=mentions,
        sentences=[SentenceSpan(_int(s.start), _int(s.end)) for s in a.sentences],
        lang=intern(a.lang),
        about_kind=intern(a.about_kind),
        version=intern(a.version),
    )
