"""Text encoding of an input file: UTF-8 when it decodes as UTF-8, else a detector's guess that
is reported, and a refusal when the guess is not good enough.

Trying legacy codecs in a fixed order does not work: GB18030 decodes almost any byte string, so
Windows-1252 German ("Herr Müller … Großstraße") came out as Chinese, silently. Here a maintained
detector (charset-normalizer, which scores each candidate decoding by how garbled the result
looks — its *chaos*) ranks the candidates. Rules on top of it:

* UTF-8 (with or without BOM) is taken as is: a strict decode that succeeds is near-certain;
* the best candidate's chaos must be at most ``MAX_CHAOS`` (confidence = 1 − chaos), else the
  file is refused with the guess in the message;
* a non-UTF-8 input shorter than ``MIN_GUESS_BYTES`` is refused unless a double-byte CJK
  decoding is among the best (too little to go on otherwise);
* the detector runs with its default cut-off (chaos 0.2); no candidate under it is a refusal;
* candidates within ``TIE`` of the best are tied. Short Western text decodes identically, or
  nearly, in cp1250, cp1252, Latin-1, Mac encodings…; the detector's pick among them is arbitrary
  (it chose cp1250 for French and turned "crème" into "crčme"). A tie is resolved by
  ``PREFERRED`` — the encodings a corpus file that is not UTF-8 is most likely in — and a tie
  whose decodings differ with none of them preferred is refused as ambiguous.
"""

from __future__ import annotations

from dataclasses import dataclass

from wikikv.errors import CorpusError

MAX_CHAOS = 0.1
# Below this many bytes every single-byte code page decodes "cleanly" into something different,
# so a guess is a coin toss; only a double-byte CJK decoding (every high byte paired — evidence a
# single-byte code page cannot give) is taken from less.
MIN_GUESS_BYTES = 20
_DOUBLE_BYTE = ("gb18030", "big5", "shift_jis", "euc_kr")
TIE = 0.05
# Most likely first: Windows Western, the Chinese, Japanese and Korean national encodings, then
# Windows Cyrillic and Central European (Mac and KOI8 encodings tie with these on short text).
PREFERRED = ("cp1252", "gb18030", "big5", "shift_jis", "euc_kr", "cp1251", "cp1250")
_ALIASES = {"gb2312": "gb18030", "gbk": "gb18030", "latin_1": "cp1252", "iso8859_1": "cp1252"}


@dataclass(frozen=True)
class Decoded:
    """A decoded input: its text, the encoding used and how sure the guess was (1.0 for UTF-8)."""

    text: str
    encoding: str
    confidence: float

    @property
    def guessed(self) -> bool:
        return self.encoding != "utf-8"

    def describe(self) -> str:
        return f"decoded as {self.encoding} (confidence {self.confidence:.2f})"


def decode_text(data: bytes, source: str) -> Decoded:
    """Decode an input file's bytes (see the module docstring); CorpusError when it is binary or
    its encoding cannot be told."""
    if b"\x00" in data[:8192]:
        raise CorpusError(f"{source}: binary file (NUL bytes)")
    try:
        return Decoded(data.decode("utf-8-sig"), "utf-8", 1.0)
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes  # only non-UTF-8 input pays for the import

    # The detector's default threshold: a higher one lets it stop at the first multi-byte codec
    # that decodes at all (GB18030 for the German sample), before the clean single-byte ones.
    matches = list(from_bytes(data))
    if not matches:
        raise CorpusError(f"{source}: cannot tell the text encoding (no decoding is clean)")
    best = min(matches, key=lambda m: m.chaos)
    if best.chaos > MAX_CHAOS:
        raise CorpusError(
            f"{source}: cannot tell the text encoding (best guess {best.encoding} at confidence "
            f"{1 - best.chaos:.2f}, below {1 - MAX_CHAOS:.2f})"
        )
    tied = [m for m in matches if m.chaos <= best.chaos + TIE]
    short = len(data) < MIN_GUESS_BYTES
    for enc in _DOUBLE_BYTE if short else PREFERRED:
        for m in tied:
            names = {_ALIASES.get(n, n) for n in [m.encoding, *m.could_be_from_charset]}
            if enc in names:
                try:
                    return Decoded(data.decode(enc), enc, round(1 - m.chaos, 3))
                except UnicodeDecodeError:
                    continue
    if short:
        raise CorpusError(f"{source}: not UTF-8, and too short ({len(data)} bytes) to tell")
    if len({str(m) for m in tied}) > 1:
        guesses = ", ".join(m.encoding for m in tied[:4])
        raise CorpusError(f"{source}: cannot tell the text encoding (ambiguous: {guesses})")
    return Decoded(str(best), best.encoding, round(1 - best.chaos, 3))
