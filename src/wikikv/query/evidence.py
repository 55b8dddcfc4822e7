"""Which source documents answer a question best: rankings of documents from different kinds of
evidence, fused into one.

Two kinds of evidence name documents:

* the search over the documents' full texts (articles), ranked by BM25F — it finds the texts
  that discuss the question's terms;
* the entity pages the question names, each citing the documents its sentences were read from —
  a page citing a document often (many of its key facts and mentions come from there) says that
  document is about the entity, even when the text spells the name another way (an alias).

An entity cited by almost every document (the corpus's author, its country) says little about
any one of them, so a page's ranking weighs by its specificity, an inverse document frequency.
And a page ranks first the texts it cites that the search over full texts also found — the texts
holding the question's other words ("《现代评论》收受津贴…"), before those it merely cites more
often (:func:`by_citations`).

Which named pages count: the question's subject, not its setting — in "绍兴的目连戏" and "俄国
作家阿尔志跋绥夫" the head of the phrase (目连戏, 阿尔志跋绥夫) is what is asked about and 绍兴, 俄国
only qualify it (:func:`qualifiers`), so
the setting's documents do not compete with the subject's. And the subject under all its names: a
page that declares another name for its subject ("伊孛生即易卜生", "伊孛生（H. Ibsen）通译易卜生")
points to the texts written under that name (:func:`declared_names`).
The rankings are fused by weighted reciprocal rank (Cormack et al., 2009): a document high in
several lists beats one at the top of a single list, and no score scales need to agree.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence

from wikikv.search.tokenize import has_cjk

# Reciprocal-rank fusion constant: small, so the first few ranks of a list weigh most (the lists
# here are short — tens of documents, not thousands).
RRF_K = 10.0
_FOOTNOTE = re.compile(r"^\[\^\w+\]:\s*\[\[([^\]|#]+)", re.M)
# "<other name>（gloss）即 / 通译 / 又名 … <name>": a sentence declaring another name of the same
# subject (the notes of a translated or annotated corpus do this for every transliteration).
_DECLARES = r"([\u4e00-\u9fff·]{2,8}?)(?:\s*[（(][^）)]{0,40}[）)])?\s*(?:即|通译|又译|亦译|一译|今译|又名|原名|本名|也就是)\s*"
# After a declared name: anything but a further character of a longer name (的 and 等 close it).
_NAME_ENDS = r"(?![\u4e00-\u9fff](?<![的等]))"
# The part of a named page's citation weight that does not depend on how much of the question
# its name covers (:func:`name_share`).
NAME_SHARE_FLOOR = 0.5
# How far after "X的" the head it qualifies may start ("绍兴的目连戏", "绍兴的有名的目连戏").
QUALIFIED_WITHIN = 3
# Full-text scores closer than this (relative) are a tie: the search's statistics (idf, average
# lengths) are over every page of the wiki, so an unrelated change of the entity pages moves an
# article's score by about 0.1% (measured on the Lu Xun wiki) and swaps documents that close.
SCORE_TIE = 0.005


def cited_counts(text: str) -> dict[str, int]:
    """Per cited source (as the footnotes write it), how many of the page's footnotes cite it —
    the page's quoted sentences read from that source."""
    counts: dict[str, int] = {}
    for m in _FOOTNOTE.finditer(text):
        src = m.group(1).strip()
        counts[src] = counts.get(src, 0) + 1
    return counts


def by_citations(counts: dict[str, int], order: dict[str, int]) -> list[str]:
    """A page's sources, those in ``order`` (the documents the search over full texts found,
    which hold the question's other terms) first, each group most cited first; ties by
    ``order``, then name. A page cited across a long controversy (陈西滢, 《现代评论》) cites
    dozens of texts; the ones the question's other words also point to (…收受津贴) are the
    answer before the ones it merely cites more often."""
    unranked = len(order)
    return sorted(counts, key=lambda s: (s not in order, -counts[s], order.get(s, unranked), s))


def specificity(cited: int, documents: int) -> float:
    """How much citing a document says when a page cites ``cited`` of ``documents``: the page's
    inverse document frequency scaled to [0, 1] (1: it cites a single document; 0: all)."""
    if documents <= 1 or cited <= 0:
        return 1.0 if cited > 0 else 0.0
    return max(0.0, min(1.0, math.log(documents / cited) / math.log(documents)))


def name_share(terms: Collection[str], names: Sequence[str]) -> float:
    """How much a page's citations should weigh for a question of search ``terms``: half always,
    half by the share of the question's Chinese words (two characters or more) that its
    ``names`` hold. A page that is the whole question (墨子出现在哪些作品里) ranks the texts
    about it; one named among other words (…把托尔斯泰叫作“卑污的说教人”…) leaves the texts
    holding those words to the search over full texts. (Measured on set (d): half always beats
    none or all of it.)"""
    words = [t for t in terms if len(t) >= 2 and has_cjk(t)]
    if not words:
        return 1.0
    held = sum(1 for t in words if any(t in n for n in names))
    return NAME_SHARE_FLOOR + (1.0 - NAME_SHARE_FLOOR) * held / len(words)


def tied_ranks(scored: Sequence[tuple[str, float]], tolerance: float = SCORE_TIE) -> dict[str, int]:
    """Ranks of ``(item, score)`` pairs in order of decreasing score, where an item scoring
    within ``tolerance`` (relative) of the first item of its group shares that item's rank
    (competition ranking: 1, 2, 2, 4). Scores that close order the items on noise, and a rank
    step in reciprocal-rank fusion is worth more than the other lists' evidence between them."""
    ranks: dict[str, int] = {}
    head = float("inf")
    head_rank = 0
    for i, (item, value) in enumerate(scored):
        if not (value >= head * (1.0 - tolerance)):
            head, head_rank = value, i
        ranks.setdefault(item, head_rank)
    return ranks


def fuse(
    rankings: Sequence[tuple[float, Sequence[str] | Mapping[str, int]]], k: float = RRF_K
) -> list[str]:
    """Weighted reciprocal-rank fusion of ``(weight, ranked items)`` lists — or of ``(weight,
    {item: rank})`` maps, where tied items share a rank (:func:`tied_ranks`); ties in the fused
    score keep the order in which items were first seen."""
    score: dict[str, float] = {}
    first: dict[str, int] = {}
    for weight, ranked in rankings:
        pairs: Iterable[tuple[str, int]] = (
            ranked.items()
            if isinstance(ranked, Mapping)
            else ((item, rank) for rank, item in enumerate(ranked))
        )
        for item, rank in pairs:
            first.setdefault(item, len(first))
            score[item] = score.get(item, 0.0) + weight / (k + rank + 1)
    return sorted(score, key=lambda item: (-score[item], first[item]))


def declared_names(text: str, names: Sequence[str]) -> list[str]:
    """Other names that ``text`` (a page's own sentences) declares for the subject called
    ``names``: "伊孛生即易卜生" and "伊孛生（H. Ibsen）通译易卜生" give 伊孛生."""
    out: list[str] = []
    for name in names:
        if len(name) < 2:
            continue
        # The name must end there: "电通社即日本电报通讯社" declares no other name of 日本.
        for m in re.finditer(_DECLARES + re.escape(name) + _NAME_ENDS, text):
            other = m.group(1)
            if other not in names and other not in out and name not in other:
                out.append(other)
    return out


def qualifiers(
    question: str, names: Mapping[str, Sequence[str]], heads: Collection[str] = ()
) -> set[str]:
    """Of the pages the question names (key → its names), those that only qualify another named
    page: the name right before another page's name, with at most :data:`QUALIFIED_WITHIN`
    characters between that neither join nor relate the two ("绍兴的目连戏" → 绍兴; "俄国作家
    阿尔志跋绥夫" → 俄国; not "鲁迅和陈西滢", not "鲁迅在东京"). The head of the phrase is the
    question's subject; the qualifier is its setting.

    The head need not have a page: "X的<word>", the word one of ``heads`` (the question's own
    content words — 师爷 in 绍兴的“师爷”, 浪人 in 日本的浪人), makes X its setting too (the
    place's page cites the texts about the place, which outrank the few about the subject);
    not when X is one party of a relation ("鲁迅和高长虹的冲突")."""
    out: set[str] = set()
    for key, own in names.items():
        others = [o for k, ns in names.items() if k != key for o in ns if len(o) >= 2]
        for name in own:
            if len(name) < 2:
                continue
            for m in re.finditer(re.escape(name), question):
                after = question[m.end() :]
                joined = question[: m.start()].endswith(_AND)  # 鲁迅和高长虹的冲突: a party
                if after.startswith("的") and not joined and _head_word(after[1:], name, heads):
                    out.add(key)
                    continue
                after = after.removeprefix("的")
                for other in others:
                    at = after.find(other)
                    if other in name or name in other or not 0 <= at <= QUALIFIED_WITHIN:
                        continue
                    if not _LINKS.search(after[:at]):
                        out.add(key)
    return out


def _head_word(text: str, name: str, heads: Collection[str]) -> bool:
    """Whether ``text`` (what follows "X的") opens, past a quotation mark, with one of ``heads``
    of two characters or more that is not part of the name X itself."""
    rest = text.lstrip(_QUOTES)
    return any(
        len(h) >= 2 and h not in name and name not in h and rest.startswith(h) for h in heads
    )


_AND = ("和", "与", "及", "跟", "同")
_QUOTES = "“”‘’\"'「」『』《》"

# What between two names makes them two subjects or a subject and its place, not a qualifier
# and its head: a conjunction, a preposition, a verb of being, punctuation.
_LINKS = re.compile(r"[和与及跟同对在于从到给把被为是说、，,。；;：:？?！!\s]")
