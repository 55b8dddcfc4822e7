"""One subject with an article in two languages: a title glossed with its name in the other
script ("Lu Xun (Chinese: 鲁迅)") is one page, whether built at once or added later."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.compile.test_persisted_model import _pages, _stored_model_equals_a_full_derive
from tests.compile.wiki_pages import entity_pages
from wikikv.compile.pipeline import Compiler
from wikikv.store.store import Store, open_store
from wikikv.text import entities as ents
from wikikv.text.digest import split_sentences

EN = "Lu Xun (Chinese: 鲁迅) was the pen name of Zhou Shuren, a writer. Lu Xun wrote stories."
ZH = "鲁迅，原名周树人，作家。鲁迅写小说。"
BROTHER = "周作人是散文家。周作人是鲁迅的弟弟。"


def _doc(doc_id: str, title: str, text: str) -> str:
    return json.dumps({"id": doc_id, "title": title, "text": text}, ensure_ascii=False)


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return open_store(f"lmdb://{tmp_path / 'store'}?sync=false")


def test_a_gloss_in_the_other_script_is_declared() -> None:
    found = ents.declared_aliases("Lu Xun", EN, split_sentences(EN, "en"), "en")
    assert "鲁迅" in [m.surface for m in found]
    zh = "鲁迅（Lu Xun，1881—1936），原名周树人。"
    found = ents.declared_aliases("鲁迅", zh, split_sentences(zh, "zh"), "zh")
    assert {"Lu Xun", "周树人"} <= {m.surface for m in found}
    # a bracket later in the sentence glosses something else
    other = "Lu Xun met Zhou Zuoren (周作人) in Tokyo."
    assert not ents.declared_aliases("Lu Xun", other, split_sentences(other, "en"), "en")


def test_titles_of_one_subject_in_two_languages_are_one_page(store: Store, tmp_path: Path) -> None:
    kb = store.create_kb("kb")
    lines = [_doc("en", "Lu Xun", EN), _doc("zh", "鲁迅", ZH), _doc("zz", "周作人", BROTHER)]
    Compiler(kb).build(_write(tmp_path / "c.jsonl", lines))
    pages = entity_pages(kb)
    lu = [rec for rec in pages.values() if rec.meta.title in ("Lu Xun", "鲁迅")]
    assert [rec.meta.title for rec in lu] == ["Lu Xun"]
    assert {"鲁迅", "周树人", "Zhou Shuren"} <= set(lu[0].meta.aliases)
    assert {"/sources/articles/en", "/sources/articles/zh"} <= set(lu[0].meta.sources)
    brother = next(rec for rec in pages.values() if rec.meta.title == "周作人")
    assert any(link.endswith("/Lu Xun") for link in brother.meta.links)


def test_without_the_gloss_the_two_titles_stay_apart(store: Store, tmp_path: Path) -> None:
    kb = store.create_kb("kb")
    plain = EN.replace(" (Chinese: 鲁迅)", "")
    lines = [_doc("en", "Lu Xun", plain), _doc("zh", "鲁迅", ZH)]
    Compiler(kb).build(_write(tmp_path / "c.jsonl", lines))
    titles = {rec.meta.title for rec in entity_pages(kb).values()}
    assert {"Lu Xun", "鲁迅"} <= titles


def test_adding_the_other_language_equals_a_full_build(store: Store, tmp_path: Path) -> None:
    first = [_doc("en", "Lu Xun", EN), _doc("zz", "周作人", BROTHER)]
    whole = store.create_kb("whole")
    Compiler(whole).build(_write(tmp_path / "all.jsonl", [*first, _doc("zh", "鲁迅", ZH)]))
    kb = store.create_kb("kb")
    Compiler(kb).build(_write(tmp_path / "first.jsonl", first))
    report = Compiler(kb).add(_write(tmp_path / "zh.jsonl", [_doc("zh", "鲁迅", ZH)]))
    assert "declared name" in report.model_fallback  # the add re-derives the whole model
    assert _pages(kb) == _pages(whole)
    _stored_model_equals_a_full_derive(kb)
    lu = [rec for rec in entity_pages(kb).values() if rec.meta.title in ("Lu Xun", "鲁迅")]
    assert [rec.meta.title for rec in lu] == ["Lu Xun"]
    assert "鲁迅" in lu[0].meta.aliases
