"""Texts held compressed until they are written.

A full build renders every directory listing before its first page is written (a listing's
signature is taken from its text), and the listings wait through the whole render: about a
tenth of a wiki's text, ~150 MB at 100 MB of corpus. Listings are rows of paths and names that
repeat, so zlib's fastest level keeps them in a fraction of that, for a compression on set and
a decompression on read.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, MutableMapping

_LEVEL = 1  # the fastest: a listing is read back once or twice


class PackedTexts(MutableMapping[str, str]):
    """A ``dict[str, str]`` that keeps each value zlib-compressed."""

    def __init__(self) -> None:
        self._packed: dict[str, bytes] = {}

    def __getitem__(self, key: str) -> str:
        return zlib.decompress(self._packed[key]).decode("utf-8", "surrogatepass")

    def __setitem__(self, key: str, text: str) -> None:
        self._packed[key] = zlib.compress(text.encode("utf-8", "surrogatepass"), _LEVEL)

    def __delitem__(self, key: str) -> None:
        del self._packed[key]

    def __contains__(self, key: object) -> bool:
        return key in self._packed

    def __iter__(self) -> Iterator[str]:
        return iter(self._packed)

    def __len__(self) -> int:
        return len(self._packed)

    def packed_size(self) -> int:
        """The bytes the values take compressed."""
        return sum(len(v) for v in self._packed.values())
