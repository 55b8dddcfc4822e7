"""Fixtures of the compile tests: small corpora written to a temporary folder.

The shared data (``$WIKIKV_SHARED_DATA`` or ``<repo>/../shared/data``) is read in place, never
copied into the repository; the small corpora here are slices of it or hand-written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from wikikv.bench.compile import shared_data
from wikikv.store.store import Store, open_store

SMALL_EN = [
    {
        "id": "d1",
        "title": "Sherlock Holmes",
        "text": "Sherlock Holmes is a fictional detective created by Arthur Conan Doyle. Holmes "
        "lives at Baker Street in London with Dr. John Watson. Mr. Holmes plays the "
        "violin and solves crimes for Scotland Yard.",
    },
    {
        "id": "d2",
        "title": "Arthur Conan Doyle",
        "text": "Arthur Conan Doyle was a British writer and physician. Doyle created the "
        "detective Sherlock Holmes in 1887. He lived in London and later in Crowborough.",
    },
    {
        "id": "d3",
        "title": "London",
        "text": "London is the capital city of England and the United Kingdom. Scotland Yard, "
        "the headquarters of the Metropolitan Police, is in London.",
    },
    {
        "id": "d4",
        "title": "Heat (film)",
        "text": "Heat is a 1995 American crime film written and directed by Michael Mann. The "
        "film stars Al Pacino and Robert De Niro.",
    },
    {
        "id": "d5",
        "title": "Heat (novel)",
        "text": "Heat is a 1985 novel by William Goldman about a bodyguard in Las Vegas. The "
        "novel was adapted as a film starring Burt Reynolds.",
    },
    {
        "id": "d6",
        "title": "McLaren MP4/13",
        "text": "The McLaren MP4/13 was a Formula One racing car built by McLaren for the 1998 "
        "season. Mika Hakkinen won the championship with the McLaren MP4/13.",
    },
    {
        "id": "d7",
        "title": "Michael Mann",
        "text": "Michael Mann is an American director and screenwriter. Mann directed the crime "
        "film Heat with Al Pacino in Los Angeles.",
    },
    {
        "id": "d8",
        "title": "Scotland Yard",
        "text": "Scotland Yard is the headquarters of the Metropolitan Police in London. "
        "Sherlock Holmes often helps the detectives of Scotland Yard.",
    },
]

ZH_FILES = {
    "呐喊/故乡.md": "```\n　　故乡〔１〕\n\n　　我冒了严寒，回到相隔二千余里，别了二十余年的故乡去。"
    "闰土是我少年时候的朋友，鲁迅在绍兴见过他。\n　　母亲和宏儿都在北京等我。\n```\n",
    "呐喊/后记.md": "```\n　　后记\n\n　　这是鲁迅在北京写的后记，说到了《呐喊》和《故乡》两篇文章的来历。"
    "许广平在上海帮他抄写过稿子。\n```\n",
    "坟/后记.md": "　　后记\n\n　　这是《坟》的后记，鲁迅在厦门写成，提到北京和上海的朋友许广平。"
    "章士钊在北京免了他的职。\n",
    "坟/灯下漫笔.md": "灯下漫笔\n\n　　有一时，就是民国二三年时候，北京的几个国家银行的钞票，信用日见其好了。"
    "章士钊和许广平都不在这篇文章里，但鲁迅在北京写下了它。\n",
}


@pytest.fixture(scope="session")
def data_dir() -> Path:
    path = shared_data()
    if not (path / "multihop").is_dir():
        pytest.fail(f"shared data not found at {path} (set WIKIKV_SHARED_DATA)")
    return path


@pytest.fixture
def small_en(tmp_path: Path) -> Path:
    path = tmp_path / "small.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in SMALL_EN) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def small_zh(tmp_path: Path) -> Path:
    root = tmp_path / "zh"
    for rel, text in ZH_FILES.items():
        f = root / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def hotpot_slice(tmp_path: Path, data_dir: Path) -> Path:
    """The first 150 passages of the HotpotQA corpus."""
    lines = (data_dir / "multihop/hotpotqa/corpus.jsonl").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "hotpot150.jsonl"
    path.write_text("\n".join(lines[:150]) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A fresh LMDB store (no fsync: a test's store is thrown away)."""
    s = open_store(f"lmdb://{tmp_path / 'store'}?sync=false")
    yield s
    s.close()
