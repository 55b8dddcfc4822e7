"""Chinese part-of-speech tagging with jieba: the tagger the entity detector reads, loaded once
per process, and the dictionary tables (word → tag, word → frequency) it judges words against."""

from __future__ import annotations

import logging
import threading

from wikikv.text.entities_zh import looks_like_name

_jieba_lock = threading.Lock()
_jieba_ready = False


def jieba_pos(text: str) -> list[tuple[str, str]]:
    """(word, flag) pairs covering ``text`` in order, from jieba's HMM POS tagger (initialized
    once per process)."""
    global _jieba_ready
    import jieba
    import jieba.posseg as pseg

    if not _jieba_ready:
        with _jieba_lock:
            if not _jieba_ready:
                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba_ready = True
    return [(p.word, p.flag) for p in pseg.cut(text)]


def jieba_pos_fast(text: str) -> list[tuple[str, str]]:
    """A cheaper tagging (about a tenth of the HMM tagger's time): jieba's segmenter (its HMM
    still finds unknown words), tags from its dictionary, and ``nr`` for an unknown 2-3
    character word that starts with a surname. It misses the transliterated foreign names the
    HMM tagger labels (蒲力汗), so it is an option, not the default."""
    import jieba

    jieba_pos("")
    table = jieba_words()
    out: list[tuple[str, str]] = []
    for word in jieba.cut(text, HMM=True):
        flag = table.get(word)
        if flag is None:
            flag = "nr" if looks_like_name(word) else "x"
        out.append((word, flag))
    return out


def jieba_words() -> dict[str, str]:
    """jieba's dictionary of word → POS tag (loaded with the tagger)."""
    import jieba.posseg as pseg

    jieba_pos("")
    table: dict[str, str] = pseg.dt.word_tag_tab
    return table


def jieba_freq() -> dict[str, int]:
    """jieba's dictionary word frequencies (how common a word is in general Chinese)."""
    import jieba

    jieba_pos("")
    freq: dict[str, int] = jieba.dt.FREQ
    return freq
