"""An article's lead read from its analysis's split (``lead_of``) is the one splitting the text
again finds (``lead_sentence``): the first informative sentence, else the first line that is not
a heading, else nothing — over the shared corpora and the edge cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikikv.compile.analyze import analyze
from wikikv.compile.ingest import Document, read_corpus
from wikikv.compile.pages import article_meta
from wikikv.llm.extractive import ExtractiveProvider
from wikikv.text.digest import lead_sentence

CASES = [
    ("en", "# Title\n\nShort one.\nThis sentence has more than five words in it. Next."),
    ("en", "# Only a heading\n## And another"),
    ("en", "# Heading\nToo short. Also short."),
    ("en", ""),
    ("zh", "# 标题\n\n鲁迅是中国现代文学的奠基人之一。他写了很多小说。"),
    ("zh", "短句。\n又一句。"),
]


@pytest.mark.parametrize(("lang", "text"), CASES)
def test_the_lead_from_the_analysis_is_the_lead_of_the_text(lang: str, text: str) -> None:
    doc = Document(id="d", title="T", text=text, fingerprint="f", lang=lang)
    a = analyze(doc, ExtractiveProvider())
    assert article_meta(a, text, analysed=True).summary == lead_sentence(text, lang)
    assert article_meta(a, text).summary == lead_sentence(text, lang)


def test_over_a_shared_corpus_slice(hotpot_slice: Path) -> None:
    docs = read_corpus(hotpot_slice).documents
    provider = ExtractiveProvider()
    leads = [article_meta(analyze(d, provider), d.text, analysed=True).summary for d in docs]
    assert leads == [lead_sentence(d.text, d.lang) for d in docs]
    assert sum(1 for x in leads if x) > 140
