"""A Chinese summary line as a reader should see it: the defining sentence without what only
the annotated edition's apparatus put there. The key fact keeps the verbatim quote.

* The editors' "按" before a name ("按任鸿隽，四川巴县人，科学家。") marks their note; the summary
  says "任鸿隽，四川巴县人，科学家。".
* A Russian name's original in a note's bracket reached the corpus garbled ("陀思妥夫斯奇
  （[．X．BEGHESTGOPI，1821—1881）", "勃洛克（ＡAＡANFKO，1880—1921）"): Cyrillic read as Latin
  and punctuation. The summary keeps the years and drops the garbled run ("陀思妥夫斯奇
  （1821—1881）"); a bracket with nothing else goes.
"""

from __future__ import annotations

import re

# The Latin part of a bracket right after its opening, up to the comma before the years, the
# years themselves or the closing bracket.
_BRACKET_LATIN = re.compile(
    r"[（(](?P<run>[^（）()\n，,0-9０-９]{1,40}?)(?:[，,]\s*)?(?:(?P<close>[）)])|(?=[0-9０-９]))"
)
# What no real Latin name holds: ASCII punctuation that stands in for Cyrillic letters.
_GARBLE_PUNCT = re.compile(r"[\[\]\\^_`]")
# A run of half-width capitals (this corpus writes real Latin names in full-width or mixed case:
# "ＨAＧAＷｅｌｌｓ", "Rodney　Stone"), garbled when initials, full-width or lower-case letters
# go with it or years follow ("Ｍ．BCDEFGH，１８６８—"); an acronym alone ("（USSR）") is kept.
_CAPS = re.compile(r"[A-Z]{4,}")
_BESIDE_CAPS = re.compile(r"[．.Ａ-Ｚａ-ｚa-z]")
_AN_GLOSS = re.compile(r"[，,（(]")  # "按任鸿隽，…", "按李卓吾（１５２７－１６０２），…"
_LATIN = re.compile(r"[A-Za-zＡ-Ｚａ-ｚ]")
_HAN = re.compile(r"[\u3400-\u9fff]")


def clean_summary(line: str, names: list[str]) -> str:
    """``line`` without the editors' leading 按 before one of ``names`` and without garbled
    Latin runs in brackets (see the module docstring)."""
    if line.startswith("按") and any(
        n and _AN_GLOSS.match(line, 1 + len(n)) and line.startswith(n, 1) for n in names
    ):
        line = line[1:]
    return _BRACKET_LATIN.sub(_without_garble, line)


def _without_garble(m: re.Match[str]) -> str:
    run = m.group("run")
    if not _garbled(run, years=not m.group("close")):
        return m.group()
    if m.group("close"):
        return ""  # nothing but the garbled run: the bracket goes
    return m.group()[0]  # the opening bracket; the years follow


def _garbled(run: str, years: bool) -> bool:
    """A Latin run (four letters or more, at most one Chinese character among them: "CAD艶GHIJKL")
    with a sign no real name carries."""
    if len(_LATIN.findall(run)) < 4 or len(_HAN.findall(run)) > 1:
        return False
    if _GARBLE_PUNCT.search(run):
        return True
    caps = _CAPS.search(run)
    return caps is not None and (
        years or _BESIDE_CAPS.search(run.replace(caps.group(), "")) is not None
    )
