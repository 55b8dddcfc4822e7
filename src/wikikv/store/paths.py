"""Path normalization and validation: NFC, then reject — never repair.

A path is ``/`` or ``/seg1/seg2/...``. Normalization is exactly NFC; everything else that is
wrong is rejected with :class:`~wikikv.errors.InvalidPath` naming the rule it broke:

========================  ==========================================================
rule                      meaning
========================  ==========================================================
``not-a-string``          the path is not a ``str``
``empty``                 the path is the empty string
``relative``              the path does not start with ``/``
``empty-segment``         ``//`` inside, or a trailing ``/`` (except the root)
``dot-segment``           a segment is ``.`` or ``..``
``control-character``     a segment holds NUL or another control character
``surrogate``             the path holds a lone surrogate (not encodable as UTF-8)
``segment-too-long``      a segment is over ``MAX_SEGMENT_BYTES`` bytes of UTF-8
``too-deep``              more segments than the depth bound
========================  ==========================================================

Generated segments (document ids, entity names) go through :func:`escape_segment`, a reversible
percent-encoding of ``/``, ``%`` and control characters, so any name becomes a valid segment.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from wikikv.config import MAX_DEPTH, MAX_SEGMENT_BYTES
from wikikv.errors import InvalidPath

ROOT = "/"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_NEEDS_ESCAPE = re.compile(r"[%/\x00-\x1f\x7f-\x9f]")
_ESCAPED = re.compile(r"%([0-9A-F]{2})")


def normalize(path: object, max_depth: int = MAX_DEPTH) -> str:
    """Return the NFC form of ``path`` after checking every rule; raise InvalidPath otherwise."""
    if not isinstance(path, str):
        raise InvalidPath(path, "not-a-string", f"expected str, got {type(path).__name__}")
    return _normalize_cached(path, max_depth)


@functools.lru_cache(maxsize=65536)
def _normalize_cached(path: str, max_depth: int) -> str:
    if path == ROOT:
        return ROOT
    if not path:
        raise InvalidPath(path, "empty", "a path must be '/' or start with '/'")
    if path[0] != "/":
        raise InvalidPath(path, "relative", "a path must start with '/'")
    if path.isascii():
        nfc, size = path, len(path)  # ASCII is already NFC, one byte a character
    else:
        try:
            path.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidPath(path, "surrogate", "the path is not valid Unicode") from exc
        nfc = unicodedata.normalize("NFC", path)
        size = len(nfc.encode("utf-8"))  # NFC can lengthen a segment (composition exclusions)
    count = nfc.count("/")
    if count > max_depth:
        raise InvalidPath(path, "too-deep", f"{count} segments, the bound is {max_depth}")
    # Whole-path tests first (a bulk load normalizes every path once): when none can fail, no
    # segment can; otherwise the segment loop finds the first broken rule and its position.
    if (
        nfc.endswith("/")
        or "//" in nfc
        or "/." in nfc
        or _CONTROL.search(nfc) is not None
        or size > MAX_SEGMENT_BYTES
    ):
        for i, seg in enumerate(nfc[1:].split("/")):
            _check_segment(path, seg, i)
    return nfc


def _check_segment(path: str, seg: str, position: int) -> None:
    if seg == "":
        raise InvalidPath(path, "empty-segment", "'//' or a trailing '/'", position)
    if seg in (".", ".."):
        raise InvalidPath(path, "dot-segment", f"{seg!r} is not allowed", position)
    if _CONTROL.search(seg):
        raise InvalidPath(path, "control-character", "NUL or a control character", position)
    size = len(seg.encode("utf-8"))
    if size > MAX_SEGMENT_BYTES:
        raise InvalidPath(
            path, "segment-too-long", f"{size} bytes, the bound is {MAX_SEGMENT_BYTES}", position
        )


def is_valid(path: object, max_depth: int = MAX_DEPTH) -> bool:
    try:
        normalize(path, max_depth)
    except InvalidPath:
        return False
    return True


def segments(path: str) -> list[str]:
    """The segments of a normalized path (``[]`` for the root)."""
    return [] if path == ROOT else path[1:].split("/")


def depth(path: str) -> int:
    return 0 if path == ROOT else path.count("/")


def parent(path: str) -> str:
    """The parent of a normalized, non-root path."""
    if path == ROOT:
        raise InvalidPath(path, "root-has-no-parent", "the root has no parent")
    cut = path.rfind("/")
    return ROOT if cut == 0 else path[:cut]


def basename(path: str) -> str:
    return "" if path == ROOT else path[path.rfind("/") + 1 :]


def join(base: str, segment: str) -> str:
    """Join a normalized directory path and one already-valid segment."""
    return "/" + segment if base == ROOT else f"{base}/{segment}"


def ancestors(path: str) -> list[str]:
    """Every ancestor from the root down to the parent of ``path``."""
    out = [ROOT]
    segs = segments(path)
    for i in range(1, len(segs)):
        out.append("/" + "/".join(segs[:i]))
    return out if path != ROOT else []


def is_under(path: str, prefix_dir: str) -> bool:
    """True when ``path`` equals ``prefix_dir`` or lies below it (segment-wise, not textually)."""
    if prefix_dir == ROOT:
        return True
    return path == prefix_dir or path.startswith(prefix_dir + "/")


def escape_segment(name: str) -> str:
    """Turn any non-empty name into a valid segment, reversibly (see :func:`unescape_segment`)."""
    if not name:
        raise InvalidPath(name, "empty-segment", "cannot escape an empty name")
    nfc = unicodedata.normalize("NFC", name)
    out = _NEEDS_ESCAPE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), nfc)
    if out in (".", ".."):
        out = out.replace(".", "%2E")
    # Long names are cut on a character boundary; the caller disambiguates collisions.
    while len(out.encode("utf-8")) > MAX_SEGMENT_BYTES:
        out = out[:-1]
        while out.endswith("%") or (len(out) >= 2 and out[-2] == "%"):
            out = out[:-1]
    return out


def unescape_segment(segment: str) -> str:
    """Inverse of :func:`escape_segment` (for names short enough not to be cut)."""
    if "%" not in segment:
        return segment
    raw = _ESCAPED.sub(lambda m: "\x00" + m.group(1), segment)
    parts = raw.split("\x00")
    buf = bytearray(parts[0].encode())
    for part in parts[1:]:
        buf.append(int(part[:2], 16))
        buf.extend(part[2:].encode())
    return buf.decode("utf-8", errors="replace")
