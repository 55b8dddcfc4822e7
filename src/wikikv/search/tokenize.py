"""Tokenization for the search index: English, Chinese and text that mixes them.

Text is first folded the way the name index folds names (:func:`wikikv.store.keys.fold_name`:
NFKC, so full-width forms become half-width, then case-folded), then split into runs of CJK
ideographs and runs of other letters/digits; everything else separates tokens.

* Other runs (Latin and the rest): accents stripped, light stemming (possessive ``'s``, plurals ``-ies``/``-es``/``-s``) and an
  English stopword list. Stemming is deliberately conservative: it only has to make "director" and
  "directors" meet, and the same function runs on documents and queries.
* CJK runs: jieba's search-mode segmentation (``cut_for_search``, which emits the words of a long
  compound as well as the compound), plus character bigrams not already produced as words, so a
  name jieba does not know (an out-of-vocabulary person or place) is still matched by its bigrams.
  Query-side bigrams carry a lower weight (see :func:`query_terms`) because bigrams straddling
  a word boundary are noise.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from collections.abc import Iterator
from typing import Any

from wikikv.store.keys import fold_name

# Runs of CJK ideographs (incl. extension A and compatibility ideographs) or of other word chars.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_RUNS = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+(?:'[^\W_{_CJK}]+)*)")
_IS_CJK = re.compile(rf"[{_CJK}]")

ENGLISH_STOPWORDS = frozenset(
    """a an and are as at be been but by for from had has have he her his i if in into is it its
    of on or she that the their them there these they this those to was were which who whom will
    with would what when where why how do does did not no so than then too very can could should
    may might must our ours you your we us me my him hers yours itself also about over under""".split()
)
CHINESE_STOPWORDS = frozenset(
    "的 了 是 在 和 与 及 或 有 也 就 都 而 之 其 这 那 个 中 上 下 为 以 于 对 从 把 被 让 "
    "吗 呢 吧 啊 着 过 不 没 我 你 他 她 它 们 什么 哪些 哪个 怎么 如何 为什么 一个".split()
)
STOPWORDS = ENGLISH_STOPWORDS | CHINESE_STOPWORDS

# Bigrams holding one of these function characters are not useful fallbacks ("的小", "迅是").
_BIGRAM_SKIP = frozenset("的了是在和与也就都着过吗呢吧啊我你他她它")

# Weight a query term gets when it is only a CJK character bigram (out-of-vocabulary fallback).
BIGRAM_QUERY_WEIGHT = 0.5

_jieba: Any = None
_jieba_lock = threading.Lock()


def _segmenter() -> Any:
    """jieba's default tokenizer, loaded once (its dictionary takes about a second to build)."""
    global _jieba
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba = jieba
    return _jieba


def fold(text: str) -> str:
    """Fold text the way names are folded in the name index (NFKC + casefold)."""
    return fold_name(text)


def strip_accents(word: str) -> str:
    """Drop combining marks ("Gábor" → "gabor", "naïve" → "naive"), so a query typed without
    diacritics meets a page written with them; only used on non-CJK runs."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def stem(word: str) -> str:
    """Light English stemming: possessives and plurals only; non-ASCII words are left alone."""
    if word.endswith("'s"):
        word = word[:-2]
    word = word.replace("'", "")
    if not word.isascii() or len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _cjk_terms(run: str) -> Iterator[tuple[str, bool]]:
    """(term, is_bigram) for one run of CJK ideographs."""
    if len(run) == 1:
        yield run, False
        return
    # HMM off: the new-word model is the slow half of jieba, and character bigrams already
    # cover the out-of-vocabulary names it would guess.
    words = [w for w in _segmenter().cut_for_search(run, HMM=False) if w.strip()]
    seen = set(words)
    for w in words:
        yield w, False
    for i in range(len(run) - 1):
        bigram = run[i : i + 2]
        if bigram not in seen and not (_BIGRAM_SKIP & set(bigram)):
            yield bigram, True


def _terms(text: str, keep_stopwords: bool) -> Iterator[tuple[str, bool]]:
    for m in _RUNS.finditer(fold(text).replace("\u2019", "'")):
        cjk, latin = m.group(1), m.group(2)
        if cjk:
            for term, is_bigram in _cjk_terms(cjk):
                if keep_stopwords or term not in STOPWORDS:
                    yield term, is_bigram
        else:
            word = latin if latin.isascii() else strip_accents(latin)
            if not keep_stopwords and word in STOPWORDS:
                continue
            term = stem(word)
            if term:
                yield term, False


def tokenize(text: str, keep_stopwords: bool = False) -> list[str]:
    """The index terms of ``text`` in order (repeats kept, so term frequencies can be counted)."""
    return [t for t, _ in _terms(text, keep_stopwords)]


def query_terms(text: str) -> list[tuple[str, float]]:
    """Distinct query terms with their weights (CJK bigram fallbacks weigh less). A query made
    only of stopwords keeps them, so "The Who" still searches for something."""
    pairs = list(_terms(text, keep_stopwords=False))
    if not pairs:
        pairs = list(_terms(text, keep_stopwords=True))
    out: dict[str, float] = {}
    for term, is_bigram in pairs:
        w = BIGRAM_QUERY_WEIGHT if is_bigram else 1.0
        out[term] = max(out.get(term, 0.0), w)
    return list(out.items())


def has_cjk(text: str) -> bool:
    return _IS_CJK.search(text) is not None


def joined_name(text: str) -> str | None:
    """The spaceless form of a multi-word name ("Lu Xun" → "luxun"), so a query that writes the
    name without its spaces (or with them, against a page that does not) still meets it."""
    words = [m.group(0) for m in _RUNS.finditer(fold(text))]
    if len(words) < 2 or has_cjk(text):
        return None
    return "".join(w.replace("'", "") for w in words)


# ------------------------------------------------------------------ surface variants (typos)
def fuzzy_eligible(term: str) -> bool:
    """Whether typo expansion is worth trying for ``term``: short words have too many neighbours
    at edit distance one ("cat" ~ "cut" ~ "car"), so only longer ones qualify."""
    if has_cjk(term):
        return len(term) >= 3
    return len(term) >= 4 and not term.isdigit()


def deletes(term: str) -> list[str]:
    """The term and every form of it with one character deleted (a symmetric-delete
    neighbourhood: two words within one edit share at least one of these forms)."""
    out = {term}
    out.update(term[:i] + term[i + 1 :] for i in range(len(term)))
    return sorted(out)


def edit_distance(a: str, b: str, cap: int = 3) -> int:
    """Optimal-string-alignment distance (insert, delete, substitute, swap neighbours), with an
    early exit once every cell of a row exceeds ``cap``."""
    if a == b:
        return 0
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > cap:
            return cap + 1
        prev2, prev = prev, cur
    return prev[-1]


def max_typos(term: str) -> int:
    """Edits tolerated for a query term of this length."""
    return 2 if len(term) >= 8 and not has_cjk(term) else 1
