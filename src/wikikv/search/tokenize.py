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

import functools
import importlib.metadata
import logging
import re
import sys
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from wikikv.search.dictcache import lazy_dictionary
from wikikv.store.keys import fold_name

# Runs of CJK ideographs (incl. extension A and compatibility ideographs) or of other word chars.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_RUNS = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+(?:'[^\W_{_CJK}]+)*)")
_IS_CJK = re.compile(rf"[{_CJK}]")
_CJK_RUNS = re.compile(rf"[{_CJK}]+")
# The Latin runs of ASCII text once lower-cased: for ASCII, NFKC is the identity and casefold is
# lower(), so this finds exactly what _RUNS finds after fold(), with a cheaper scan.
_ASCII_WORDS = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*")
# The Latin runs of folded text without CJK: the same matches as _RUNS there (its Latin class
# only excludes CJK), about 40% cheaper than the two-branch pattern.
_LATIN_WORDS = re.compile(r"[^\W_]+(?:'[^\W_]+)*")

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


# Characters segmented through the mapped dictionary before loading jieba pays off: loading costs
# about as much as segmenting this many characters the lazy way (~4 µs a character against
# ~2 µs once jieba is loaded, after a 0.5–1.7 s load). Queries never get near it; builds do.
LAZY_CHAR_LIMIT = 200_000
_lazy_chars = 0


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


def _adopt_loaded_jieba() -> bool:
    """Use jieba when another part of the process (the compiler's tagger) already loaded it."""
    global _jieba
    mod = sys.modules.get("jieba")
    if _jieba is None and mod is not None and getattr(mod.dt, "initialized", False):
        _jieba = mod
    return _jieba is not None


def analyzers_ready(text: str) -> None:
    """Make ready what analysing ``text`` needs, so timing what follows excludes set-up: for
    Chinese text, the mapped dictionary (built on first use) — or jieba, when it cannot be had."""
    if has_cjk(text) and not _adopt_loaded_jieba() and lazy_dictionary() is None:
        _segmenter()


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


# Memo tables for the analysis of repeated strings. Pages repeat a lot (the same names, titles,
# sentences and words recur across articles, entity pages and directory listings), and analysing a
# string is pure, so each distinct Latin word is stemmed once and each distinct CJK run is
# segmented once per process. Both tables are plain dicts (single operations on them are atomic
# under the GIL; a race merely computes one entry twice) and are emptied when they outgrow their
# bound, so memory stays flat over a long build. Profiles before the memo: a 2wiki build spent
# ~45% of its index time tokenizing (mostly re-stemming the same words); a Lu Xun build ~40% in
# jieba, on 671k CJK runs of which only 104k were distinct.
MEMO_MAX = 200_000
# Latin run → (term, whether the accent-stripped word is a stopword).
_WORD_MEMO: dict[str, tuple[str, bool]] = {}
# CJK run → (every term, the terms that are not stopwords, (term, is_bigram) pairs).
CJKAnalysis = tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, bool], ...]]
_RUN_MEMO: dict[str, CJKAnalysis] = {}


def _latin_word(run: str) -> tuple[str, bool]:
    hit = _WORD_MEMO.get(run)
    if hit is None:
        word = run if run.isascii() else strip_accents(run)
        hit = (stem(word), word in STOPWORDS)
        if len(_WORD_MEMO) >= MEMO_MAX:
            _WORD_MEMO.clear()
        _WORD_MEMO[run] = hit
    return hit


def segment_words(run: str) -> list[str]:
    """jieba's search-mode words of one CJK run. Until a process has segmented
    :data:`LAZY_CHAR_LIMIT` characters, the words come from the mapped dictionary
    (:mod:`wikikv.search.dictcache`, identical output) instead of loading jieba."""
    # HMM off: the new-word model is the slow half of jieba, and character bigrams already
    # cover the out-of-vocabulary names it would guess.
    global _lazy_chars
    if not _adopt_loaded_jieba() and _lazy_chars < LAZY_CHAR_LIMIT:
        lazy = lazy_dictionary()
        if lazy is not None:
            _lazy_chars += len(run)
            return lazy.cut_for_search(run)
    return [w for w in _segmenter().cut_for_search(run, HMM=False) if w.strip()]


def _cjk_pairs(run: str, words: list[str]) -> list[tuple[str, bool]]:
    """(term, is_bigram) for one run of CJK ideographs, given its jieba words."""
    pairs = [(w, False) for w in words]
    seen = set(words)
    for i in range(len(run) - 1):
        bigram = run[i : i + 2]
        if bigram not in seen and not (_BIGRAM_SKIP & set(bigram)):
            pairs.append((bigram, True))
    return pairs


def _cjk_run(run: str) -> CJKAnalysis:
    hit = _RUN_MEMO.get(run)
    if hit is None:
        pairs = [(run, False)] if len(run) == 1 else _cjk_pairs(run, segment_words(run))
        terms = tuple(t for t, _ in pairs)
        hit = (terms, tuple(t for t in terms if t not in STOPWORDS), tuple(pairs))
        if len(_RUN_MEMO) >= MEMO_MAX:
            _RUN_MEMO.clear()
        _RUN_MEMO[run] = hit
    return hit


def remember_segmentation(run: str, words: list[str]) -> None:
    """Seed the memo with the jieba words of ``run`` obtained elsewhere (a stored memo), so
    analysing it needs no dictionary; the result is the same as segmenting it here."""
    if run not in _RUN_MEMO and len(run) > 1:
        pairs = _cjk_pairs(run, words)
        terms = tuple(t for t, _ in pairs)
        _RUN_MEMO[run] = (terms, tuple(t for t in terms if t not in STOPWORDS), tuple(pairs))


def memo_words(run: str) -> list[str] | None:
    """The jieba words of a memoised run (None when it is not in the memo)."""
    hit = _RUN_MEMO.get(run)
    if hit is None:
        return None
    return [t for t, is_bigram in hit[2] if not is_bigram]


def jieba_loaded() -> bool:
    return _jieba is not None


@functools.cache
def segmenter_tag() -> str:
    """The installed jieba version: stored segmentations are only reused under the same one."""
    try:
        return importlib.metadata.version("jieba")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - jieba is a dependency
        return "none"


def segmented(run: str) -> bool:
    """Whether ``run`` can be analysed without jieba (a single character or memoised)."""
    return len(run) == 1 or run in _RUN_MEMO


def cjk_runs(text: str) -> list[str]:
    """The runs of CJK ideographs of ``text`` as written (not folded)."""
    return _CJK_RUNS.findall(text)


def _runs(text: str) -> list[tuple[str, str]]:
    return _RUNS.findall(_fold_for_terms(text))


def _terms(text: str, keep_stopwords: bool) -> Iterator[tuple[str, bool]]:
    for cjk, latin in _runs(text):
        if cjk:
            for term, is_bigram in _cjk_run(cjk)[2]:
                if keep_stopwords or term not in STOPWORDS:
                    yield term, is_bigram
        else:
            term, stop = _latin_word(latin)
            if term and (keep_stopwords or not stop):
                yield term, False


def _fold_for_terms(text: str) -> str:
    # fold() without its whitespace collapsing, which cannot change a token (whitespace only
    # separates) and costs a split and a join of the whole text.
    return unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'")


def term_counts(text: str, keep_stopwords: bool = False) -> tuple[dict[str, int], int]:
    """``Counter(tokenize(text, keep_stopwords))`` and ``len(tokenize(...))``, computed per
    distinct word instead of per token: what the index needs of a long field, at about half
    the cost (bodies repeat their words; counting raw words is C, stemming them is Python)."""
    counts: dict[str, int] = {}
    total = 0
    get = counts.get
    if text.isascii():
        raw: Counter[str] = Counter(_ASCII_WORDS.findall(text.lower()))
    else:
        folded = _fold_for_terms(text)
        if _IS_CJK.search(folded) is None:
            raw = Counter(_LATIN_WORDS.findall(folded))
        else:
            for (cjk, latin), n in Counter(_RUNS.findall(folded)).items():
                if cjk:
                    analysis = _cjk_run(cjk)
                    terms = analysis[0] if keep_stopwords else analysis[1]
                    for term in terms:
                        counts[term] = get(term, 0) + n
                    total += n * len(terms)
                else:
                    term, stop = _latin_word(latin)
                    if term and (keep_stopwords or not stop):
                        counts[term] = get(term, 0) + n
                        total += n
            return counts, total
    for word, n in raw.items():
        hit = _WORD_MEMO.get(word)
        term, stop = hit if hit is not None else _latin_word(word)
        if term and (keep_stopwords or not stop):
            counts[term] = get(term, 0) + n
            total += n
    return counts, total


def tokenize(text: str, keep_stopwords: bool = False) -> list[str]:
    """The index terms of ``text`` in order (repeats kept, so term frequencies can be counted)."""
    # Same result as ``[t for t, _ in _terms(text, keep_stopwords)]``, without a generator step
    # per token: this loop is the hot path of index builds.
    out: list[str] = []
    append, extend = out.append, out.extend
    if text.isascii():
        for word in _ASCII_WORDS.findall(text.lower()):
            hit = _WORD_MEMO.get(word)
            term, stop = hit if hit is not None else _latin_word(word)
            if term and (keep_stopwords or not stop):
                append(term)
        return out
    for cjk, latin in _runs(text):
        if cjk:
            analysis = _cjk_run(cjk)
            extend(analysis[0] if keep_stopwords else analysis[1])
        else:
            hit = _WORD_MEMO.get(latin)
            term, stop = hit if hit is not None else _latin_word(latin)
            if term and (keep_stopwords or not stop):
                append(term)
    return out


def present_terms(terms: Iterable[str], text: str) -> set[str]:
    """The ``terms`` (index terms, as :func:`tokenize` makes them) that ``text`` contains: a
    Chinese term as a substring of the folded text, any other term among its words. Unlike
    ``set(tokenize(text))`` this needs no segmentation, so a query process can test long page
    texts without loading a dictionary."""
    folded = _fold_for_terms(text)
    words: set[str] | None = None
    out: set[str] = set()
    for term in terms:
        if _IS_CJK.search(term):
            if term in folded:
                out.add(term)
            continue
        if words is None:
            words = {_latin_word(latin)[0] for _, latin in _RUNS.findall(folded) if latin}
        if term in words:
            out.add(term)
    return out


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
