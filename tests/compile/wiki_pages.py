"""Reading a compiled test wiki: its entity pages, a section's bullet lines, and a small Chinese
folder corpus built into a kb (shared by the entity and wiki-quality tests)."""

from __future__ import annotations

from pathlib import Path

from wikikv.compile.pipeline import Compiler
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import DirRecord, FileRecord
from wikikv.store.store import Store


def entity_pages(kb: KnowledgeBase) -> dict[str, FileRecord]:
    """Every page outside /sources, by path."""
    out: dict[str, FileRecord] = {}
    stack = [p for p in kb.ls_all("/").child_paths() if not p.startswith("/sources")]
    while stack:
        p = stack.pop()
        rec = kb.get(p)
        if isinstance(rec, DirRecord):
            stack += kb.ls_all(p).child_paths()
        elif isinstance(rec, FileRecord):
            out[p] = rec
    return out


def pages_by_title(kb: KnowledgeBase) -> dict[str, tuple[str, FileRecord]]:
    """Every page outside /sources, by title: (path, record)."""
    return {rec.meta.title: (path, rec) for path, rec in entity_pages(kb).items()}


def section(text: str, heading: str) -> list[str]:
    """The bullet lines of the section under ``heading`` ("## Key Facts")."""
    lines = text.split("\n")
    if heading not in lines:
        return []
    out = []
    for line in lines[lines.index(heading) + 1 :]:
        if line.startswith("## "):
            break
        if line.startswith("- "):
            out.append(line)
    return out


def build_zh_folder(
    store: Store, tmp_path: Path, name: str, files: dict[str, str]
) -> KnowledgeBase:
    """A kb ``name`` compiled from one collection folder (文集) of ``files`` (title → text)."""
    corpus = tmp_path / name / "文集"
    corpus.mkdir(parents=True)
    for title, text in files.items():
        (corpus / f"{title}.md").write_text(text, encoding="utf-8")
    kb = store.create_kb(name)
    Compiler(kb).build(tmp_path / name)
    return kb


# The opening lines of a story named after its protagonist (孔乙己), which speak of him throughout:
# the tests lay them out under a Markdown heading or under the corpus's bare title line.
KONG_STORY = """孔乙己是站着喝酒而穿长衫的唯一的人。
孔乙己一到店，所有喝酒的人便都看着他笑。
孔乙己睁大眼睛说：“你怎么这样凭空污人清白……”
孔乙己便涨红了脸，额上的青筋条条绽出。
掌柜说：“孔乙己还欠十九个钱呢！”
孔乙己着了慌，伸开五指将碟子罩住。
"""
