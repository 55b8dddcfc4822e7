"""The offline, deterministic provider: every role answered extractively, no network, no weights.

* ``descriptor`` — a template filled from the sample's statistics (language, entity kinds, the
  most frequent names and terms), honest about how the sample was drawn;
* ``schema`` — one dimension per entity kind present in the sample, plus a fallback;
* ``digest`` — sentence ranking (:mod:`wikikv.text.digest`);
* ``entities`` — gazetteer + capitalization rules (English), jieba POS tags (Chinese);
* ``needs_deeper`` — lexical coverage of the query's terms by the page;
* ``answer`` — the best-covering evidence sentences, cited.

It is a real mode users run, not a test double.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from wikikv.config import FANOUT_BOUND, MAX_DEPTH
from wikikv.llm.base import (
    Answer,
    Descriptor,
    DimensionSpec,
    DocInput,
    EntitiesOut,
    MentionOut,
    Scaffold,
    SentenceSpan,
    Usage,
)
from wikikv.text import digest as dg
from wikikv.text import entities as ents
from wikikv.text.entities_zh import chinese_mentions
from wikikv.text.jieba_tags import jieba_freq, jieba_pos, jieba_words

PROMPT_VERSION = "extractive/1"
DIMENSIONS = {
    "en": {
        "person": ("people", "biographies: people, characters, families"),
        "place": ("places", "places: cities, regions, countries, landmarks, rivers"),
        "org": ("organizations", "organizations: companies, bands, schools, parties, teams"),
        "work": ("works", "creative works: films, albums, songs, books, series"),
        "event": ("events", "events: battles, wars, elections, festivals, tournaments"),
        "topic": ("topics", "other named things, concepts and terms"),
    },
    "zh": {
        "person": ("人物", "人物：作者、文中的人物与论敌"),
        "place": ("地点", "地点：城市、地区、国家"),
        "org": ("机构", "机构：报刊社团、学校、政党"),
        "work": ("作品", "作品：文章、小说、书刊与译作"),
        "event": ("事件", "事件：运动、战争与风潮"),
        "topic": ("专名", "其他专名与术语"),
    },
}


class ExtractiveProvider:
    """The default provider (see the module docstring)."""

    name = "extractive"
    prompt_version = PROMPT_VERSION

    def __init__(self) -> None:
        self.gazetteer = ents.Gazetteer()
        self.title_keys: dict[str, str] = {}
        self._calls = 0

    # ------------------------------------------------------------------ corpus context
    def use_titles(self, variants: dict[str, str], display: dict[str, str]) -> None:
        """Give the entity role the corpus gazetteer (variant key → entity key)."""
        self.gazetteer = ents.build_gazetteer(variants, display)
        self.title_keys = dict(variants)

    def use_gazetteer(self, gazetteer: ents.Gazetteer) -> None:
        """Give the entity role a gazetteer built elsewhere (an add reads the stored one by
        key); English only: Chinese detection reads ``title_keys``, left empty here."""
        self.gazetteer = gazetteer
        self.title_keys = {}

    # ------------------------------------------------------------------ roles
    def descriptor(
        self,
        sample: Sequence[DocInput],
        kinds: dict[str, int],
        top_entities: Sequence[str],
        documents: int,
    ) -> Descriptor:
        self._calls += 1
        lang = Counter(d.lang for d in sample).most_common(1)[0][0] if sample else "en"
        terms: Counter[str] = Counter()
        for d in sample:
            if lang == "en":
                terms.update(dg.content_terms(d.title + " " + d.text[:2000], "en"))
        groups = sorted({d.group for d in sample if d.group})
        total = sum(kinds.values()) or 1
        share = ", ".join(
            f"{k} {100 * v // total}%"
            for k, v in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))
            if v
        )
        names = list(top_entities[:12])
        if lang == "zh":
            about = (
                f"{documents} 篇中文文章"
                + (f"，分属 {len(groups)} 个集子" if groups else "")
                + "；常见的名字："
                + "、".join(names[:10])
                + "。"
            )
            audience = "阅读、研究这些文章的读者，以及在其上检索、导航和回答问题的智能体。"
            bias = (
                f"由 {len(sample)} 篇过滤后的样本归纳；样本中的实体类别：{share}。"
                "单一来源的语料：人物与地点以作者的视角出现。"
                if groups
                else f"由 {len(sample)} 篇过滤后的样本归纳；样本中的实体类别：{share}。"
            )
        else:
            about = (
                f"{documents} encyclopedic passages, each describing one titled subject; "
                f"frequent names: {', '.join(names[:10])}."
            )
            audience = (
                "readers and agents answering factual and multi-hop questions about "
                "the people, places, works and organizations the passages describe."
            )
            bias = (
                f"induced from a filtered sample of {len(sample)} documents; entity kinds "
                f"in the sample: {share}; passages were selected as question contexts, so "
                "coverage is uneven and skewed to what the questions asked about."
            )
        return Descriptor(
            about=about,
            audience=audience,
            bias=bias,
            language=lang,
            documents=documents,
            sample_size=len(sample),
            kinds=dict(kinds),
            top_entities=names,
            top_terms=[t for t, _ in terms.most_common(20)],
            compiled_by=self.name,
            prompt_version=self.prompt_version,
        )

    def schema(
        self,
        descriptor: Descriptor,
        kinds: dict[str, int],
        fanout: int = FANOUT_BOUND,
        max_depth: int = MAX_DEPTH,
    ) -> Scaffold:
        """One dimension per kind present: a handful, within any fan-out and depth bound."""
        self._calls += 1
        table = DIMENSIONS.get(descriptor.language, DIMENSIONS["en"])
        total = sum(kinds.values()) or 1
        dims: list[DimensionSpec] = []
        for kind in ents.KINDS:
            count = kinds.get(kind, 0)
            if kind == "topic" or (count >= 2 and count / total >= 0.02):
                name, desc = table[kind]
                dims.append(DimensionSpec(name, [kind], desc))
        return Scaffold(dimensions=dims, fallback=table["topic"][0])

    def digest(self, doc: DocInput, sentences: Sequence[SentenceSpan], k: int) -> list[int]:
        self._calls += 1
        sents = [dg.Sentence(s.start, s.end, doc.text[s.start : s.end]) for s in sentences]
        return dg.digest(sents, doc.lang, doc.title, k)

    def entities(
        self,
        doc: DocInput,
        sentences: Sequence[SentenceSpan],
        pos: Sequence[tuple[str, str]] | None = None,
    ) -> EntitiesOut:
        """``pos``: jieba (word, flag) pairs for a Chinese document when the caller tagged it
        already (in a worker process); tagged here otherwise."""
        self._calls += 1
        sents = [dg.Sentence(s.start, s.end, doc.text[s.start : s.end]) for s in sentences]
        first = sents[0].text if sents else ""
        if len(first) < 40 and len(sents) > 1:
            first = first + " " + sents[1].text
        about_kind = ents.classify_title(doc.title, first, doc.lang)
        if doc.lang == "zh":
            words = list(pos) if pos is not None else jieba_pos(doc.text)
            found = chinese_mentions(
                doc.text, sents, words, self.title_keys, jieba_words(), jieba_freq(), doc.title
            )
        else:
            found = ents.english_mentions(
                doc.text, sents, self.gazetteer, doc.title, about_kind == "person"
            )
        mentions = [
            MentionOut(m.key, m.surface, m.kind, m.sent, m.start, m.end, m.central, m.weak)
            for m in found
        ]
        return EntitiesOut(about_kind=about_kind, mentions=mentions)

    def needs_deeper(self, query: str, page_text: str) -> bool:
        self._calls += 1
        lang = "zh" if ents.has_han(query) else "en"
        terms = set(dg.content_terms(query, lang))
        if not terms:
            return False
        have = set(dg.content_terms(page_text, lang))
        return len(terms & have) / len(terms) < 0.6

    def answer(self, query: str, evidence: Sequence[tuple[str, str]]) -> Answer:
        self._calls += 1
        lang = "zh" if ents.has_han(query) else "en"
        terms = set(dg.content_terms(query, lang))
        best: list[tuple[float, int, str, str]] = []
        for i, (path, text) in enumerate(evidence):
            for s in dg.split_sentences(text, lang):
                have = set(dg.content_terms(s.text, lang))
                score = len(terms & have) / (len(terms) or 1)
                if score > 0:
                    best.append((score, i, path, s.text))
        best.sort(key=lambda x: (-x[0], x[1]))
        top = best[:3]
        if not top:
            return Answer(text="", citations=[])
        text = " ".join(f"{t} [{n + 1}]" for n, (_, _, _, t) in enumerate(top))
        return Answer(text=text, citations=[p for _, _, p, _ in top])

    def usage(self) -> Usage:
        return Usage(calls=0)

    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__)
