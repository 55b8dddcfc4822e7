"""Which sentences of nav's evidence answer a question offline, as the question narrows them
(the rules are :mod:`wikikv.query.focus`; this module reads what they need from the kb): what
its subject is; one sentence per text for a listing over a page it names; the sentences of a
work or collection it names, a character's name when it asks one; a relative, not the subject
itself, for a relation. Otherwise the best sentences by the question's words
(:func:`wikikv.query.sentences.best_sentences`)."""

from __future__ import annotations

from wikikv.query.budget import Budget
from wikikv.query.evidence import cited_counts, qualifiers, specificity
from wikikv.query.focus import (
    about_relation,
    in_works,
    named_works,
    names_asked,
    not_about_subject,
    one_per_source,
    owners,
    relation_asked,
    subject_in,
    with_names,
    without_works,
)
from wikikv.query.nav import NavResult, classify, search_text
from wikikv.query.ops import ARTICLES_DIR, DIGESTS_DIR
from wikikv.query.sentences import (
    MAX_SENTENCES,
    Sentence,
    best_sentences,
    definitional,
    definitional_subject,
    narrow_letters,
    page_sentences,
    question_terms,
)
from wikikv.store.kb import KnowledgeBase
from wikikv.store.keys import fold_name
from wikikv.store.paths import unescape_segment
from wikikv.store.records import DirRecord, FileRecord


def focused_sentences(
    kb: KnowledgeBase,
    question: str,
    results: list[NavResult],
    candidates: list[Sentence],
    budget: Budget,
) -> list[Sentence]:
    """The answer's sentences, as the question narrows them (:mod:`wikikv.query.focus`): what
    its subject is; one sentence per text for a listing over a named page; the sentences of a
    work it names; a relative, not the subject itself, for a relation."""
    subject = definitional_subject(question)
    defined = definitional(candidates, [subject]) if subject else None
    if defined is not None:
        return [defined]
    introduced = _introduction(results, subject) if subject else []
    if introduced:
        return introduced
    asked = question  # what sentences are scored on
    enumeration = classify(question) == "enumeration"
    if enumeration:
        # Its frame (哪些文章, 提到 …) is how it asks, not what it asks about.
        asked = search_text(question)
    works = named_works(question)
    if works:
        pool = in_works(candidates, works) or in_works(_work_texts(kb, works, budget), works)
        if pool:
            candidates = pool
            asked = without_works(asked)  # every candidate is the work's: its name ranks none
    if enumeration:
        listed = _listing(kb, question, results, candidates)
        if len(listed) >= 2:
            return listed
    rel = relation_asked(question)
    who = subject_in(rel, candidates) if rel is not None else None
    if rel is not None and who is not None:
        named_by = best_sentences(asked, owners(rel, who, candidates), 1)
        related = about_relation(rel, who, candidates)
        best = named_by + [s for s in best_sentences(asked, related) if s not in named_by]
        best = best[:MAX_SENTENCES] or best_sentences(
            asked, not_about_subject(rel, who, candidates)
        )
        return best
    if works and names_asked(question) and in_works(candidates, works):
        named = with_names(candidates, _characters(kb, works, budget))
        best = best_sentences(asked, named)
        if best or named:
            return best or named[:1]
    return best_sentences(asked, candidates)


def _introduction(results: list[NavResult], subject: str) -> list[Sentence]:
    """For "X是谁？" when no sentence of the evidence says what X is: the summary of X's own page
    among nav's results when it names X — the compiler summarises a character nothing defines
    by the sentence that brings them in (阿Ｑ没有家，住在未庄的土谷祠里…), which tells a reader
    more than lines that merely name them. (A summary that does not name X, such as "在 19 篇
    文章中提到…", is no introduction.)"""
    want = narrow_letters(subject)
    for r in results:
        if r.level != "entity" or narrow_letters(r.title) != want:
            continue
        summary = next((ln[1:].strip() for ln in r.text.splitlines() if ln.startswith(">")), "")
        naming = [
            s
            for s in page_sentences(r.path, summary, "entity", 0)
            if want in narrow_letters(s.text)
        ]
        return naming[:1]
    return []


def _listing(
    kb: KnowledgeBase, question: str, results: list[NavResult], candidates: list[Sentence]
) -> list[Sentence]:
    """A listing over the pages the question names as its subject: their texts (nav's order of
    documents, then the pages' most cited sources), each with its best sentence naming the
    page's subject. A page cited by most texts (the corpus's author in "鲁迅在哪些文章里谈到
    照相？") or naming the setting (绍兴 in 绍兴的目连戏) is no subject to list by."""
    named = [r for r in results if r.level == "entity" and _named_in(r.title, question)]
    setting = qualifiers(question, {r.path: [r.title] for r in named})
    regions = set(named_works(question))  # "《故事新编》的哪几篇": where to look, not what for
    if any(r.title not in regions for r in named):
        setting |= {r.path for r in named if r.title in regions}
    documents = _document_count(kb)
    pages = [
        r
        for r in named
        if r.path not in setting
        and specificity(len(cited_counts(r.text)), documents) >= LIST_SPECIFICITY
    ]
    if not pages:
        return []
    order = [_article_of(r.path) for r in results if r.level in ("article", "digest")]
    for page in pages:
        counts = cited_counts(page.text)
        order += sorted(counts, key=lambda s: -counts[s])
    order = list(dict.fromkeys(order))
    names = [r.title for r in pages]
    bare = not (question_terms(search_text(question)) - set(question_terms(" ".join(names))))
    return one_per_source(
        order,
        candidates,
        names,
        lambda group: _introducing(group, names, bare) or best_sentences(question, group, 1),
    )


def _introducing(group: list[Sentence], names: list[str], bare: bool) -> list[Sentence]:
    """For a listing that asks nothing of its subject but where it appears (``bare``: "哪些文章
    写到了范爱农？"), a text's sentence saying who or what the subject is ("他叫范爱农，是徐伯荪的
    学生。"), when it has one: every sentence naming the subject holds the question's words
    alike, and the one introducing them tells the reader most."""
    if not bare:
        return []
    defined = definitional(group, names)
    return [defined] if defined is not None else []


# A page citing more of the kb's texts than this specificity allows (log(N / cited) / log N) is
# a hub, named in passing: 鲁迅 on the Lu Xun wiki (about 0), 俄国 (0.3) stays a subject.
LIST_SPECIFICITY = 0.2


def _document_count(kb: KnowledgeBase) -> int:
    rec = kb.get(ARTICLES_DIR.rstrip("/"))
    if not isinstance(rec, DirRecord):
        return 0
    return max(rec.meta.entry_count, len(rec.files))


def _named_in(name: str, question: str) -> bool:
    return len(fold_name(name)) >= 2 and fold_name(name) in fold_name(question)


def _article_of(path: str) -> str:
    return ARTICLES_DIR + path[len(DIGESTS_DIR) :] if path.startswith(DIGESTS_DIR) else path


def _work_pages(kb: KnowledgeBase, work: str) -> list[str]:
    return [h.path for h in kb.find_names(work, limit=8, exact=True)]


def _work_texts(kb: KnowledgeBase, works: list[str], budget: Budget) -> list[Sentence]:
    """The sentences of the named works' texts that nav did not read (a budgeted read each)."""
    out: list[Sentence] = []
    for work in works:
        for path in _work_pages(kb, work):
            if not path.startswith(ARTICLES_DIR) or not budget.allows(reads=1):
                continue
            budget.charge(reads=1)
            rec = kb.get(path)
            if isinstance(rec, FileRecord):
                out += page_sentences(path, rec.text, "article", 0)
    return out


def _characters(kb: KnowledgeBase, works: list[str], budget: Budget) -> list[str]:
    """The names of the pages the named works' own pages link to (their characters, places…)."""
    names: list[str] = []
    for work in works:
        for path in _work_pages(kb, work):
            if path.startswith("/sources") or not budget.allows(reads=1):
                continue
            budget.charge(reads=1)
            rec = kb.get(path)
            if isinstance(rec, FileRecord):
                names += [unescape_segment(link.rsplit("/", 1)[-1]) for link in rec.meta.links]
    return names
