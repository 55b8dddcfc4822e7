"""A Markdown note read as the text it says: what the compiler analyses and quotes.

Notes are written in Markdown (an Obsidian vault, a docs folder); their markup is not prose.
Read line by line, predictably:

* emphasis, inline code, links and wikilinks become the words they show (``[Japan](url)`` and
  ``[[japan|Japan]]`` → Japan); images, embeds, HTML tags and comments, link definitions and
  horizontal rules go;
* a heading (kept as ``# text``: the analysis reads it as a title), each list item and each table
  row is a paragraph of its own (the compiler joins the lines of a paragraph: two items must not
  read as one sentence); ``>`` quote marks go;
* a fenced block with a language (```` ```python ````) is code and goes; a bare fence is kept as
  it is, content and all — a corpus may wrap its prose in one (the Lu Xun essays are).
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"\s*(`{3,}|~{3,})\s*(.*?)\s*$")
_RULE = re.compile(r"(?:[-*_][ \t]*){3,}")
_HEADING = re.compile(r"\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*")
_ITEM = re.compile(r"\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?(.*)")
_QUOTE = re.compile(r"\s*(?:>\s?)+(.*)")
_TABLE_RULE = re.compile(r"\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*")
_LINK_DEF = re.compile(r"\s{0,3}\[[^\]]+\]:\s+\S+.*")

_INLINE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"<!--.*?-->"), ""),
    (re.compile(r"!\[\[[^\]]*\]\]"), ""),  # an embedded note or picture
    (re.compile(r"!\[[^\]]*\]\((?:[^()\s]|\([^)]*\))*(?:\s+\"[^\"]*\")?\)"), ""),  # an image
    (re.compile(r"\[\[([^\]|#]*)(?:#[^\]|]*)?\|([^\]]+)\]\]"), r"\2"),  # [[target|label]]
    (re.compile(r"\[\[([^\]|#]+)(?:#[^\]|]*)?\]\]"), r"\1"),  # [[target]]
    (re.compile(r"\[([^\]]+)\]\((?:[^()\s]|\([^)]*\))*(?:\s+\"[^\"]*\")?\)"), r"\1"),
    (re.compile(r"\[([^\]]+)\]\[[^\]]*\]"), r"\1"),  # a reference link
    (re.compile(r"<((?:https?|mailto):[^>\s]+)>"), r"\1"),  # an autolink
    (re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>"), ""),  # an HTML tag
    (re.compile(r"`([^`\n]+)`"), r"\1"),
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),
    (re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"), r"\1"),
    (re.compile(r"(?<![\w*\\])\*(?=[^\s*])([^*\n]*?[^\s*\\])\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<![\w\\])_(?=[^\s_])([^_\n]*?[^\s_\\])_(?!\w)"), r"\1"),
    (re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~])"), r"\1"),  # an escaped mark is the mark
]


def inline(text: str) -> str:
    """A line's inline markup as the words it shows."""
    for pattern, repl in _INLINE:
        text = pattern.sub(repl, text)
    return text


def plain_text(markdown: str) -> str:
    """The text of a Markdown note (see the module docstring); text without markup comes back
    as it was, line for line."""
    out: list[str] = []
    code: tuple[bool, str] | None = None  # inside a fence: (kept, its mark)
    quoting = False  # the line before was quoted: a quote's lines make one paragraph
    for line in markdown.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        fence = _FENCE.fullmatch(line)
        if code is not None:
            kept, mark = code
            if fence is not None and fence.group(1)[0] == mark[0] and not fence.group(2):
                code = None
            if kept:
                out.append(line)
            continue
        if fence is not None:
            kept = not fence.group(2)  # a bare fence: a corpus's wrapper, kept; code goes
            code = (kept, fence.group(1))
            if kept:
                out.append(line)
            continue
        quote = _QUOTE.fullmatch(line) if line.lstrip().startswith(">") else None
        if quote is not None:
            out.extend(_block(quote.group(1)) if quoting else ["", *_block(quote.group(1))])
        else:
            out.extend(_block(line))
        quoting = quote is not None
    return "\n".join(out)


def _block(line: str) -> list[str]:
    if _RULE.fullmatch(line.strip()) and line.strip()[:1] in "-*_" and len(line.strip()) >= 3:
        return [""]
    if _LINK_DEF.fullmatch(line) or _TABLE_RULE.fullmatch(line) and "-" in line and "|" in line:
        return []
    heading = _HEADING.fullmatch(line)
    if heading is not None:
        # kept a heading: the analysis knows a `#` line is a title, not a sentence
        return ["", f"{heading.group(1)} {inline(heading.group(2))}", ""]
    item = _ITEM.fullmatch(line)
    if item is not None:
        return ["", inline(item.group(1))]
    stripped = line.strip()
    if len(stripped) > 1 and stripped[0] == "|" and stripped[-1] == "|":
        cells = [inline(c.strip()) for c in stripped[1:-1].split("|")]
        return ["", "; ".join(c for c in cells if c)]
    return [inline(line)]
