"""Kb path segments ↔ vault file names, reversibly.

A kb segment may hold any character but ``/`` and control characters; a file name on Windows,
macOS and in Obsidian may not hold ``\\ : * ? " < > |``, and a vault reserves a few names of its
own (``_index.md`` in every folder, ``index.md`` at the root, dot-files for tool settings). Those
characters and names are percent-escaped with a fixed set of codes, and only those codes are
decoded — so the ``%2F`` that :func:`wikikv.store.paths.escape_segment` leaves in a compiled
segment stays readable as is. A literal ``%`` is escaped (``%25``) only when the two characters
after it would otherwise read as one of the codes, which keeps the mapping one-to-one.
"""

from __future__ import annotations

import re

PAGE_SUFFIX = ".md"
DIR_INDEX = "_index.md"
ROOT_INDEX = "index.md"
NAME_MAX_BYTES = 255  # the usual file-name limit (ext4, APFS, NTFS)

# Characters escaped anywhere in a name, plus the code of '%' itself.
_ANYWHERE = '\\:*?"<>|'
_CODES = {f"{ord(c):02X}": c for c in _ANYWHERE + "%._i"}
_DECODE = re.compile("%(" + "|".join(_CODES) + ")")


def _code(ch: str) -> str:
    return f"%{ord(ch):02X}"


def encode_segment(segment: str, *, is_dir: bool, at_root: bool) -> str:
    """The file (``NAME.md``) or folder name that stands for ``segment``."""
    out: list[str] = []
    for i, ch in enumerate(segment):
        if ch in _ANYWHERE:
            out.append(_code(ch))
        elif ch == "%" and segment[i + 1 : i + 3] in _CODES:
            out.append("%25")
        elif i == 0 and ch == ".":  # dot-files are tool settings (.obsidian), skipped on import
            out.append(_code(ch))
        else:
            out.append(ch)
    name = "".join(out)
    if is_dir:
        if name.endswith(PAGE_SUFFIX):  # folder "x.md" would collide with the page "x"
            name = name[: -len(PAGE_SUFFIX)] + "%2Emd"
        return name
    if name == "_index":  # the folder's own index file
        name = "%5Findex"
    elif at_root and name == "index":  # the vault's root index
        name = "%69ndex"
    return name + PAGE_SUFFIX


def decode_name(name: str) -> str:
    """The kb segment a folder name, or a page file name without ``.md``, stands for."""
    return _DECODE.sub(lambda m: _CODES[m.group(1)], name)
