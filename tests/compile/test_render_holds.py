"""What a full build's render holds while it writes the pages: the directory listings
compressed, no section rankings past the summaries, no analysis caches, and a render gate that
keeps no copy of the paths or of the articles it checks against."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from wikikv.compile import slim
from wikikv.compile.model import article_path
from wikikv.compile.packed import PackedTexts
from wikikv.compile.pipeline import Compiler
from wikikv.compile.render import Desired
from wikikv.quality.hooks import RenderGate, gated
from wikikv.store.store import Store
from wikikv.text import entities as ents
from wikikv.text import lead


def test_packed_texts_read_back_what_was_set() -> None:
    texts = PackedTexts()
    listing = "# people\n" + "".join(f"- [[/people/P{i}|P{i}]] — a person\n" for i in range(500))
    texts["/people"] = listing
    texts["/zh"] = "# 人物\n- 鲁迅 \udcff\n"  # any str, lone surrogates too
    assert texts["/people"] == listing
    assert texts["/zh"] == "# 人物\n- 鲁迅 \udcff\n"
    assert sorted(texts) == ["/people", "/zh"]
    assert "/people" in texts
    assert len(texts) == 2
    assert texts.packed_size() < len(listing) // 5  # held compressed
    del texts["/zh"]
    assert "/zh" not in texts


def _spy_render(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    render_all = Compiler._render_all

    def spy(self: Compiler, want: Desired, *args: Any) -> Any:
        seen.append(
            {
                "want": want,
                "fold": ents.fold.cache_info().currsize,
                "lead": lead.normalized.cache_info().currsize,
            }
        )
        return render_all(self, want, *args)

    monkeypatch.setattr(Compiler, "_render_all", spy)
    return seen


def test_a_full_render_holds_what_it_writes_only(
    store: Store, small_en: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _spy_render(monkeypatch)
    clears: list[int] = []
    drop = slim.drop_analysis_caches

    def counted() -> None:
        clears.append(ents.fold.cache_info().currsize)
        drop()

    monkeypatch.setattr(slim, "drop_analysis_caches", counted)
    Compiler(store.create_kb("kb"), options=gated()).build(small_en)
    (got,) = seen
    want = got["want"]
    assert isinstance(want.dir_text, PackedTexts)
    assert len(want.dir_text) > 3
    assert want.ranked_at is None  # read by the section summaries only, before the render
    assert clears
    assert clears[0] > 0
    assert got["fold"] == 0
    assert got["lead"] == 0


def test_the_render_gate_reads_articles_from_the_texts_and_keeps_none(store: Store) -> None:
    kb = store.create_kb("kb")
    texts = {"d1": "Ada Lovelace was a mathematician.", "a/b%c": "Odd id.", "x" * 300: "Long id."}
    paths = {"/people/Ada": "e:1", **{article_path(d): "a:1" for d in texts}}
    gate = RenderGate(kb, paths.keys(), texts)
    view = gate.view
    assert view.all_paths is not None
    assert "/people/Ada" in view.all_paths
    assert view.all_paths == paths.keys()  # the render's own paths, not a copy
    assert not isinstance(view.all_paths, set)
    for d, text in texts.items():
        view.articles([article_path(d)])
        rec = view.article(article_path(d))
        assert rec is not None
        assert rec.text == text
        assert rec.path == article_path(d)
    assert view._articles == {}  # made when asked for, none kept
    assert view.article(article_path("not-held")) is None  # not in the render: the store's
