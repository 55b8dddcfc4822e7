"""Page rendering in the LLM-Wiki format (LLM-Wiki paper, Appendix E).

An entity page::

    ---
    type: people
    created: 2026-11-22
    updated: 2026-11-22
    aliases: [Holmes, Mr. Holmes]
    tags: [person, people]
    ---
    # Sherlock Holmes
    > one-line summary

    ## Key Facts
    - <verbatim quote> [^1]

    ## Related Pages
    - [[/people/Dr. Watson|Dr. Watson]] — Sherlock Holmes's article mentions Dr. Watson

    ## Related Sources
    - [[/sources/digests/p00001|Sherlock Holmes]] — digest of the article on Sherlock Holmes

    [^1]: [[/sources/articles/p00001]] chars 0-57

Every ``[^n]`` citation names the article and the character offsets of its quote, which is the
article text between those offsets verbatim: :mod:`wikikv.compile.check` verifies exactly that.
Dates live only in the front matter and are excluded from the content fingerprint, so an
unchanged page is never rewritten.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Mapping

from wikikv.compile import parsed as pp
from wikikv.compile.model import DocAnalysis, Entity, Fact, article_path, digest_path
from wikikv.store.records import FileMeta
from wikikv.text.definitions import (
    defining_score,
    describes,
    in_speech,
    opens_with,
    summary_sentences,
    tells_what_it_is,
    without_note_mark,
)
from wikikv.text.digest import is_heading, lead_of, lead_sentence
from wikikv.text.fact_lines import (
    NearRepeats,
    is_colophon,
    is_cross_reference,
    points_back,
    says_nothing,
    says_something,
)
from wikikv.text.note_glosses import glosses_another, in_note, note_lead, note_mark_length
from wikikv.text.summary_line import clean_summary

FACT_LINE = re.compile(r"^- (?P<quote>.*) \[\^(?P<n>\d+)\]$")
# what a wikilink's target, and a footnote's path, can hold (WIKILINK, NOTE_LINE, and
# :func:`_parts`, which hands over only a page that reads back the same)
_LINK_TARGET = r"[^\[\]|#]+"
_NOTE_PATH = r"[^\]|]+"
NOTE_LINE = re.compile(
    rf"^\[\^(?P<n>\d+)\]: \[\[(?P<path>{_NOTE_PATH})\]\] chars (?P<s>\d+)-(?P<e>\d+)$"
)
WIKILINK = re.compile(rf"\[\[({_LINK_TARGET})(?:\|[^\[\]]*)?\]\]")
_DATE_LINE = re.compile(r"^(created|updated): .*$", re.MULTILINE)
KIND_WORDS = {
    "en": {
        "person": "person",
        "place": "place",
        "org": "organization",
        "work": "work",
        "event": "event",
        "topic": "topic",
    },
    "zh": {
        "person": "人物",
        "place": "地点",
        "org": "机构",
        "work": "作品",
        "event": "事件",
        "topic": "专名",
    },
}


def _yaml_list(items: list[str]) -> str:
    def q(s: str) -> str:
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

    return "[" + ", ".join(q(i) for i in items) + "]"


def _label(text: str) -> str:
    return " ".join(text.replace("|", "/").replace("[", "(").replace("]", ")").split())


SUMMARY_CHARS = 300  # a Chinese definition and the neighbour that says whom it means


def one_line(text: str, limit: int = 200) -> str:
    """A display summary: one line, bounded, and no "[[" / "]]" of the source text (only the
    verbatim quotes of fact lines may carry those, and link checks skip fact lines)."""
    flat = " ".join(text.replace("[[", "[").replace("]]", "]").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def content_hash(text: str, meta: FileMeta) -> str:
    """Fingerprint of what a page says (dates excluded)."""
    h = hashlib.blake2b(digest_size=12)
    h.update(_DATE_LINE.sub("", text).encode())
    for part in (
        meta.kind,
        meta.title,
        meta.summary,
        *meta.aliases,
        "|",
        *meta.tags,
        "|",
        *meta.sources,
        "|",
        *meta.links,
    ):
        h.update(part.encode() + b"\x00")
    return h.hexdigest()


def _today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


_UNSET: Fact = Fact("", -1, -1)  # "the caller has not looked for the definition yet"


def entity_summary(
    ent: Entity,
    docs: dict[str, DocAnalysis],
    lang: str,
    texts: Mapping[str, str] | None = None,
    defining: Fact | None = _UNSET,
) -> str:
    """The page's one-line summary: its own document's summary; the model's; with ``texts``,
    the sentence that says what the entity is (:func:`definition`, quoted first among the key
    facts, or ``defining`` when the caller found it already); else how many documents mention
    it."""
    if ent.about and docs[ent.about[0]].summary:
        own = docs[ent.about[0]]
        if texts is None or not _is_title(own.summary, own.title):
            return one_line(own.summary)
        lead = _first_told(ent, texts, own.title)  # not the title line again
        return one_line(own.summary if lead is None else _quote(lead, texts))
    if ent.summary:  # LLM mode: the model's one-line summary of the entity
        return one_line(ent.summary)
    if defining is _UNSET:
        defining = definition(ent, texts, lang) if texts is not None else None
    fact = defining
    if fact is not None and texts is not None:
        if lang != "zh":
            return one_line(without_note_mark(_quote(fact, texts)))
        names = [ent.name, *ent.aliases]
        told = summary_sentences(texts[fact.doc], fact.start, fact.end, names)
        return one_line(clean_summary(without_note_mark(told), names), SUMMARY_CHARS)
    names = [docs[i].title for i in sorted(ent.mentioned_in)[:3]]
    if lang == "zh":
        return one_line(
            f"在 {len(ent.mentioned_in)} 篇文章中提到，如"
            + "、".join(f"《{n}》" for n in names)
            + "。"
        )
    return one_line(
        f"Mentioned in {len(ent.mentioned_in)} documents, including " + ", ".join(names) + "."
    )


def _key_facts(ent: Entity, texts: Mapping[str, str], names: list[str], lang: str) -> list[Fact]:
    """The entity's facts as its key facts list them: those that say something of it, not a
    colophon (those are mentions); on a person's page, the sentences that name a thing only by
    pointing back ("鲁迅经常为该刊写稿") after the ones a reader can take alone."""
    whole: list[Fact] = []
    leaning: list[Fact] = []
    for fact in ent.facts:
        quote = _quote(fact, texts)
        if not says_something(quote, names):
            continue
        if lang == "zh" and (is_colophon(quote, names) or is_cross_reference(quote)):
            continue
        if (
            lang == "zh"
            and ent.kind == "person"
            and points_back(quote)
            and note_lead(texts[fact.doc], fact.start, names) is None  # not quoted with its note
        ):
            leaning.append(fact)
        else:
            whole.append(fact)
    return whole + leaning


def _unless(fact: Fact, defining: Fact | None, about: list[str] | None) -> list[str] | None:
    """``about`` for every key fact but the one the summary quotes (it stays that sentence)."""
    return None if fact == defining else about


def _is_title(sentence: str, title: str) -> bool:
    """Whether a summary is only the document's title line ("中华民国的新“堂·吉诃德”们"), which
    says nothing the heading does not."""
    return sentence.strip(" #\t\u3000") == title.strip()


def _first_told(ent: Entity, texts: Mapping[str, str], title: str) -> Fact | None:
    """The first of a work's own key facts (its digest) that is neither its title line nor a
    heading."""
    for fact in ent.facts:
        quote = _quote(fact, texts)
        if fact.doc in ent.about and not _is_title(quote, title) and not is_heading(quote):
            return fact
    return None


def render_entity_parts(
    ent: Entity,
    entities: dict[str, Entity],
    docs: dict[str, DocAnalysis],
    texts: dict[str, str],
    lang: str,
    compiled_by: str,
    prompt_version: str,
) -> tuple[str, FileMeta, pp.ParsedPage | None]:
    """The page text and meta of one entity, and the page taken apart as
    :func:`wikikv.quality.page.parse` reads it back (None where the text could read otherwise:
    see :func:`_parts`)."""
    words = KIND_WORDS.get(lang, KIND_WORDS["en"])
    # the sentence that defines a page with no document of its own: its summary and its first
    # key fact (looked for once)
    defining = None if ent.about or ent.summary else definition(ent, texts, lang)
    summary = entity_summary(ent, docs, lang, texts, defining if not ent.about else _UNSET)
    tags = [words.get(ent.kind, ent.kind), ent.dim]
    if ent.qualifier:
        tags.append(ent.qualifier)
    if ent.group:
        tags.append(ent.group)
    tags += ent.tags  # LLM mode: the model's tags
    tags = list(dict.fromkeys(t for t in tags if t))
    today = _today()
    out = [
        "---",
        f"type: {ent.dim}",
        f"created: {today}",
        f"updated: {today}",
        f"aliases: {_yaml_list(ent.aliases)}",
        f"tags: {_yaml_list(tags)}",
        "---",
        f"# {ent.name}",
        f"> {summary}",
        "",
        _heading(pp.FACT_HEADINGS, lang),
    ]
    notes: list[str] = []
    quoted: set[str] = set()
    cites: list[tuple[int, str, str, Fact]] = []  # each quote's line, quote, article, span
    heads = [out[-1]]
    rows: list[tuple[int, str, bool, str]] = []  # a link row: line, target, in "Related Pages"
    names = [ent.name, *ent.aliases]
    facts = _key_facts(ent, texts, names, lang)
    if defining is not None:  # the summary's sentence leads the key facts, with its citation
        facts = [defining, *(f for f in facts if f != defining)]
    near = NearRepeats()
    # a key fact that only repeats one above it with a word or two changed (the editors gloss
    # one journal in several volumes) is listed once there, and its source among the mentions
    about = names if lang == "zh" else None
    repeated = {
        id(f)
        for f in facts
        if not _cite(
            out, notes, f, texts, quoted, cites, near=near, about=_unless(f, defining, about)
        )
    }
    if not facts and (ent.facts or ent.mentions):
        # a name the sources only mention (London in "a club based in Holloway, London"): say
        # so, rather than leave the section looking lost
        out.append(
            f"_原文中没有以{_label(ent.name)}为主语的句子；提到它的句子见“提及”。_"
            if lang == "zh"
            else f"_No sentence of the sources has {_label(ent.name)} as its subject; "
            "the sentences that name it are under Mentioned In._"
        )
    # A line that only names the entity ("闰土说。", "He said:") is no line of the page.
    told = {id(f) for f in facts} - repeated
    mentions = [f for f in ent.facts if id(f) not in told] + ent.mentions
    mentions = [f for f in mentions if f != defining]
    keyed = [(f, _quote_key(f, texts)) for f in mentions]  # each key made once
    keyed = [
        (f, key)
        for f, key in keyed
        if key not in quoted and not says_nothing(_quote(f, texts), names)
    ]
    if keyed:
        out += ["", "## Mentioned In" if lang != "zh" else "## 提及"]
        heads.append(out[-1])
        for fact, key in keyed:
            _cite(out, notes, fact, texts, quoted, cites, key, about=about)
    links: list[str] = []
    label = _label(ent.name)
    if ent.links:
        out += ["", _heading(pp.LINK_HEADINGS, lang)]
        heads.append(out[-1])
        for other_key in sorted(ent.links, key=lambda k: (entities[k].path, k)):
            other = entities[other_key]
            other_label = _label(other.name)
            reasons = ent.links[other_key]
            reason = _reason(ent, other, reasons, lang, label, other_label)
            rows.append((len(out), other.path, True, reason))
            out.append(f"- [[{other.path}|{other_label}]] — {reason}")
            links.append(other.path)
        if ent.links_hidden:
            out.append(_hidden_links_note(ent.links_hidden, len(ent.links), lang))
    sources: list[str] = []
    cited = sorted({f.doc for f in ent.facts} | {f.doc for f in ent.mentions} | set(ent.about))
    if cited:
        out += ["", _heading(pp.SOURCE_HEADINGS, lang)]
        heads.append(out[-1])
        for doc_id in cited:
            title = _label(docs[doc_id].title)
            why = (
                (
                    "digest of the article on " + title
                    if doc_id in ent.about
                    else "digest of an article that mentions " + label
                )
                if lang != "zh"
                else (
                    f"《{title}》的摘要"
                    if doc_id in ent.about
                    else f"提到{label}的《{title}》的摘要"
                )
            )
            digest = digest_path(doc_id)
            rows.append((len(out), digest, False, why))
            out.append(f"- [[{digest}|{title}]] — {why}")
            sources.append(article_path(doc_id))
    notes_at = len(out) + 1
    if notes:
        out += [""] + notes
    meta = FileMeta(
        kind="entity",
        title=ent.name,
        summary=summary,
        aliases=list(ent.aliases),
        tags=tags,
        sources=sources,
        links=links,
        compiled_by=compiled_by,
        prompt_version=prompt_version,
        confidence=1.0 if ent.about else round(ent.confidence, 2),
    )
    text = "\n".join(out) + "\n"
    page = _parts(out, text, ent.name, summary, heads, rows, cites, notes_at)
    return text, meta, page


_TARGET = re.compile(_LINK_TARGET)
_NOTE = re.compile(_NOTE_PATH)


def _heading(headings: tuple[str, str], lang: str) -> str:
    """The section heading :mod:`wikikv.compile.parsed` knows, in English or Chinese."""
    return headings[1] if lang == "zh" else headings[0]


def _parts(
    out: list[str],
    text: str,
    name: str,
    summary: str,
    heads: list[str],
    rows: list[tuple[int, str, bool, str]],
    cites: list[tuple[int, str, str, Fact]],
    notes_at: int,
) -> pp.ParsedPage | None:
    """What :func:`wikikv.quality.page.parse` reads back from ``text``, the page
    :func:`render_entity_parts` made of the lines ``out``: front matter, title, summary, the
    ``heads`` headings, a fact line per cited quote (its note ``notes_at`` lines on), a link
    per row. None when the text could read otherwise — a line break inside a quote, a name or
    an alias (the lines would not be ``out``), a blank name (no title, so no summary), a link
    target or a note's path a wikilink cannot hold, a row's text with a wikilink of its own or
    ending like a footnote mark — and the gate parses the text then."""
    if text.count("\n") != len(out) or not name.strip():
        return None
    page = pp.ParsedPage(out + [""], name.strip(), summary.strip(), True, set(heads))
    for line, target, in_section, tail in rows:
        if not _TARGET.fullmatch(target) or "[[" in tail or tail.endswith("]"):
            return None
        page.links.append(pp.Link(line, target.strip(), in_section))
    for k, (line, quote, path, fact) in enumerate(cites):
        if not _NOTE.fullmatch(path) or fact.start < 0 or fact.end < 0:
            return None
        n = str(k + 1)
        page.facts.append(pp.Fact(line, n, quote))
        page.notes[n] = pp.Note(notes_at + k, n, path, fact.start, fact.end)
    return page


def definition(ent: Entity, texts: Mapping[str, str] | None, lang: str) -> Fact | None:
    """The sentence among the entity's key facts and mentions that best says who or what it
    is (:func:`wikikv.text.definitions.defining_score`: "那地方叫平桥村，是一个…小村庄",
    "这少年便是闰土。", a note's "孙伏园（1894—1966），浙江绍兴人"), or None; the first such
    sentence in document order wins a tie. English: :func:`_en_definition`."""
    if texts is None:
        return None
    names = [ent.name, *ent.aliases]
    if lang != "zh":
        return _en_definition(ent, texts, names)
    best: tuple[int, int] | None = None
    found = None
    for n, fact in enumerate([*ent.facts, *ent.mentions]):
        text = texts.get(fact.doc)
        if text is None:
            continue
        if in_speech(text, fact.start):
            continue  # someone's quoted words ("鲁迅是二重性的反革命的人物" of a critic) say
            # what that speaker claims, not who the entity is
        score = defining_score(
            text[fact.start : fact.end], names, ent.kind == "person", in_note(text, fact.start)
        )
        if score > 0 and (best is None or (-score, n) < best):
            best, found = (-score, n), fact
    return found or _zh_first_fact(ent, texts, names)


def _zh_first_fact(ent: Entity, texts: Mapping[str, str], names: list[str]) -> Fact | None:
    """Chinese, when no sentence defines the entity: the first sentence of the document that
    names it most whose subject it is and that tells of it (:func:`describes`: not speech, not
    a question) — where a story brings its character in ("阿Q没有家，住在未庄的土谷祠里")."""
    if not ent.facts:
        return None
    counts = ent.times_named or {f.doc: 1 for f in ent.facts}
    for doc in sorted(counts, key=lambda d: (-counts[d], d)):
        text = texts.get(doc)
        if text is None:
            continue
        told = [
            fact
            for fact in sorted((f for f in ent.facts if f.doc == doc), key=lambda f: f.start)
            if any(n and n in _quote(fact, texts) for n in names)  # not a carried "他…"
            and describes(_quote(fact, texts), names)
            and says_something(_quote(fact, texts), names)
            and not is_colophon(_quote(fact, texts), names)
            and not (ent.kind == "person" and points_back(_quote(fact, texts)))
            and not in_speech(text, fact.start)
            and not glosses_another(text, fact.start, names)  # a note on another term
        ]
        # what the entity is like (阿Q没有家…) before what it did once (阿Q不开口…)
        for fact in told:
            if tells_what_it_is(_quote(fact, texts), names):
                return fact
        for fact in told:  # else a sentence that speaks of it first (not "他跳上岸，爱姑跟着")
            if opens_with(_quote(fact, texts), names):
                return fact
        if told:
            return told[0]
    return None


_EN_COPULA = re.compile(r"^(?:\s*\([^)]*\))?,? (?:is|was|are|were) (?:an?|the|one)\b")


def _en_definition(ent: Entity, texts: Mapping[str, str], names: list[str]) -> Fact | None:
    """English: among the sentences whose subject the entity is (its key facts), the first that
    defines it ("Waterford is a town in Saratoga County"), else the first that says something
    of it — never a sentence that only mentions it."""
    first = None
    for fact in ent.facts:
        text = texts.get(fact.doc)
        if text is None:
            continue
        quote = text[fact.start : fact.end]
        if not says_something(quote, names):
            continue
        body = quote.lstrip()
        body = body[4:] if body.startswith("The ") else body
        for name in sorted((n for n in names if n), key=len, reverse=True):
            if body.startswith(name) and _EN_COPULA.match(body, len(name)):
                return fact
        first = first or fact
    return first


def _quote(fact: Fact, texts: Mapping[str, str]) -> str:
    return texts[fact.doc][fact.start : fact.end]


def _quote_key(fact: Fact, texts: dict[str, str]) -> str:
    """A quote's words, case-folded and past its note mark: one sentence several sources repeat
    with other quotes, dashes or spacing ("“Grey Harbour” is …" / "\"Grey Harbour\" is …"), or
    under other notes' marks ("〔2〕李自成（１６０６—１６４５）…" / "〔5〕李自成…"), is quoted once."""
    quote = _quote(fact, texts)
    return " ".join(_WORD.findall(quote[note_mark_length(quote) :].casefold()))


_WORD = re.compile(r"[^\W_]+")


def _cite(
    out: list[str],
    notes: list[str],
    fact: Fact,
    texts: dict[str, str],
    quoted: set[str],
    cites: list[tuple[int, str, str, Fact]],
    key: str | None = None,
    near: NearRepeats | None = None,
    about: list[str] | None = None,
) -> bool:
    """One quoted sentence with its footnote (numbered on from the notes so far); a sentence
    already quoted on the page (several sources repeating one passage) is quoted once, and so
    is one ``near`` says only repeats a quoted one with a word or two changed (False: not
    quoted, for the caller to place elsewhere).
    ``key``: the fact's :func:`_quote_key`, when the caller has it; ``cites`` gets the quote's
    line, the quote, the cited article's path and the fact. ``about``: the entity's names, to
    quote a sentence later in an editors' note with the note's opening (:func:`note_lead`)."""
    if key is None:
        key = _quote_key(fact, texts)
    if key in quoted:
        return True
    text = texts[fact.doc]
    lead = note_lead(text, fact.start, about) if about else None
    if lead is not None:  # quoted with its note's opening, which says what it is about
        fact = Fact(fact.doc, lead, fact.end)
    quote = text[fact.start : fact.end]
    if near is not None and near.repeats(quote):
        return False
    quoted.add(key)
    mark = note_mark_length(quote)
    if mark and mark < len(quote):  # "〔2〕章士钊（1881—1973）…": the quote starts at the words
        fact = Fact(fact.doc, fact.start + mark, fact.end)
        quote = quote[mark:]
    n = len(notes) + 1
    path = article_path(fact.doc)
    cites.append((len(out), quote, path, fact))
    out.append(f"- {quote} [^{n}]")
    notes.append(f"[^{n}]: [[{path}]] chars {fact.start}-{fact.end}")
    return True


# The line :func:`_hidden_links_note` writes: a page that has it lists only its closest
# related pages, so a page linking to it may find no link back (``check`` knows).
HIDDEN_LINKS = re.compile(
    r"^_(?:另有 [\d,]+ 个相关页面未列出|[\d,]+ more related pages are not listed)", re.M
)


def _hidden_links_note(hidden: int, shown: int, lang: str) -> str:
    """The line under a bounded "Related Pages" (see :mod:`wikikv.compile.shown_links`)."""
    if lang == "zh":
        return f"_另有 {hidden} 个相关页面未列出；以上是联系最紧密的 {shown} 个。_"
    return f"_{hidden:,} more related pages are not listed; these are the {shown} closest._"


def _reason(ent: Entity, other: Entity, reasons: set[str], lang: str, a: str, b: str) -> str:
    """Why a page links another; ``a``, ``b``: the two names' :func:`_label`."""
    said = sorted(one_line(r[4:], 200) for r in reasons if r.startswith("llm:"))
    found = _found_reason(ent, other, reasons, lang, a, b)
    return ("；" if lang == "zh" else "; ").join([*said, *([found] if found else [])])


def _found_reason(ent: Entity, other: Entity, reasons: set[str], lang: str, a: str, b: str) -> str:
    if lang == "zh":
        parts = []
        if "mentions" in reasons:
            parts.append(f"《{a}》提到{b}" if ent.kind == "work" else f"关于{a}的文章提到{b}")
        if "mentioned-by" in reasons:
            parts.append(f"《{b}》提到{a}" if other.kind == "work" else f"关于{b}的文章提到{a}")
        return "；".join(parts)
    parts = []
    if "mentions" in reasons:
        parts.append(f"the article on {a} mentions {b}")
    if "mentioned-by" in reasons:
        parts.append(f"the article on {b} mentions {a}")
    return "; ".join(parts)


def render_digest(
    d: DocAnalysis, text: str, about_path: str, compiled_by: str, prompt_version: str
) -> tuple[str, FileMeta]:
    """The extractive digest of one document: ranked sentences in order, each cited."""
    out = [f"# {d.title}", ""]
    notes = []
    summary = ""
    for n, idx in enumerate(d.digest, 1):
        s = d.sentences[idx]
        quote = text[s.start : s.end]
        if not summary:
            summary = one_line(quote)
        out.append(f"- {quote} [^{n}]")
        notes.append(f"[^{n}]: [[{article_path(d.id)}]] chars {s.start}-{s.end}")
    out += ["", f"Article: [[{article_path(d.id)}|{_label(d.title)}]]"]
    if about_path:
        out.append(f"Page: [[{about_path}|{_label(d.title)}]]")
    out += [""] + notes
    meta = FileMeta(
        kind="digest",
        title=d.title,
        summary=summary or lead_sentence(text, d.lang),
        sources=[article_path(d.id)],
        links=[about_path] if about_path else [],
        compiled_by=compiled_by,
        prompt_version=prompt_version,
        fingerprint=d.fingerprint,
        tags=[d.group] if d.group else [],
    )
    return "\n".join(out) + "\n", meta


def article_meta(d: DocAnalysis, text: str, analysed: bool = False) -> FileMeta:
    """An article's metadata; ``analysed``: ``d`` is the whole analysis of ``text`` (not
    slimmed for the render), whose split gives the lead without splitting the text again."""
    lead = lead_of(text, d.sentences, d.informative) if analysed else lead_sentence(text, d.lang)
    return FileMeta(
        kind="article",
        title=d.title,
        summary=lead,
        fingerprint=d.fingerprint,
        tags=[d.group] if d.group else [],
    )


def listing_text(
    title: str, description: str, rows: list[tuple[str, str, str, str]], lang: str
) -> str:
    """A directory's text (the LLM-Wiki ``_index.md``): rows of (path, name, aliases, summary)."""
    return listing_of_lines(title, description, [row_line(*row) for row in rows], lang)


def row_line(path: str, name: str, aliases: str, summary: str) -> str:
    """One row of a listing: a single line (names and summaries are flattened), so a listing's
    last lines are its rows, one per member in listing order (:mod:`wikikv.store.order`)."""
    extra = f" ({_label(aliases)})" if aliases else ""
    link = f"[[{path}|{_label(name)}]]{extra}"
    return f"- {link} — {summary}" if summary else f"- {link}"


def listing_of_lines(title: str, description: str, lines: list[str], lang: str) -> str:
    """A directory's text from its row lines (see :func:`row_line`)."""
    n = len(lines)
    count = f"{n} 项" if lang == "zh" else f"{n} entry" if n == 1 else f"{n} entries"
    return "\n".join([f"# {title}", f"> {description} ({count})", "", *lines]) + "\n"
