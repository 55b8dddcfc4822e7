"""A note file's title is what the note calls itself: its front matter's title, its first-line
heading, else its file name — written as the text writes it when the name is a lowercase slug."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikikv.compile.ingest import fingerprint, read_corpus
from wikikv.compile.note_titles import read_note, written_title


@pytest.mark.parametrize(
    ("stem", "text", "title"),
    [
        ("tokyo", "Tokyo is the capital of Japan.", "Tokyo"),
        ("fujino", "Fujino Genkurō was a Japanese anatomist.", "Fujino Genkurō"),
        ("lu-xun", "Lu Xun (Chinese: 鲁迅) was the pen name of Zhou Shuren.", "Lu Xun"),
        ("john_of_gaunt", "John of Gaunt was an English prince.", "John of Gaunt"),
        ("tokyo", "Tokyo, the capital, is large.", "Tokyo"),
        # not the text's opening: the name stays as the file gives it
        ("sendai", "Lu Xun studied medicine in Sendai.", "sendai"),
        ("paris", "paris is written in lowercase here.", "paris"),
        ("tok", "Tokyo is the capital.", "tok"),
        # a name written by hand is kept; too short a slug is no name
        ("Sendai", "Sendai Castle was built in 1600.", "Sendai"),
        ("ab", "Ab is short.", "ab"),
        # a lead whose subject is not a name
        ("notes", "Notes on what we saw in the war, 1914.", "Notes"),
    ],
)
def test_a_lowercase_file_name_is_written_as_the_text_writes_it(
    stem: str, text: str, title: str
) -> None:
    assert written_title(stem, text) == title


def test_front_matter_gives_the_title_and_leaves_the_text() -> None:
    head = read_note("---\ntitle: Fujino Genkurō\ntags: [a]\n---\n\n# Other\n\nText.\n", True)
    assert (head.title, head.text, head.front_matter) == (
        "Fujino Genkurō",
        "# Other\n\nText.\n",
        True,
    )
    # no title in it: the heading
    assert read_note("---\ntags: [a]\n---\n# Tokyo\nText.\n", True).title == "Tokyo"
    # a block that is no YAML mapping is text, as a renderer would show it
    for odd in ("---\n- a\n---\nText.\n", "---\ntitle: [unclosed\n---\nText.\n", "---\nno end\n"):
        assert read_note(odd, True) == read_note(odd, True).__class__(None, odd)
    # only Markdown has front matter or headings
    assert read_note("# Tokyo\nText.\n", False).title is None


def test_a_folder_of_notes_is_read_with_their_own_titles(tmp_path: Path) -> None:
    files = {
        "fujino-note.md": "---\ntitle: Fujino Genkurō\ncreated: 2024-01-02\n---\n\nFujino taught.\n",
        "tokyo.md": "# Tokyo\n\n**Tokyo** is the capital of [Japan](https://x.org).\n- One.\n- Two.\n",
        "sendai.txt": "Sendai is a city in Japan.\n",
        "Ah Q.md": "Ah Q is the hero of a novella.\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    docs = {d.id: d for d in read_corpus(tmp_path).documents}
    assert {i: d.title for i, d in docs.items()} == {
        "fujino-note": "Fujino Genkurō",
        "tokyo": "Tokyo",
        "sendai": "Sendai",
        "Ah Q": "Ah Q",
    }
    assert docs["fujino-note"].text.startswith("Fujino taught.")  # the block is not text
    # a note's Markdown is read as the text it shows, each list item a paragraph of its own
    assert docs["tokyo"].text == "# Tokyo\n\nTokyo is the capital of Japan.\n\nOne.\n\nTwo."
    # a file read as the file name alone says keeps the fingerprint earlier builds recorded
    assert docs["Ah Q"].fingerprint == fingerprint((tmp_path / "Ah Q.md").read_bytes())
    assert docs["tokyo"].fingerprint != fingerprint((tmp_path / "tokyo.md").read_bytes())


def test_markdown_notes_are_read_as_the_text_they_show(tmp_path: Path) -> None:
    from wikikv.compile.markdown_text import plain_text

    note = (
        "# Tokyo\n\n**Tokyo** is the capital of [Japan](https://example.org/Japan). Facts:\n\n"
        "- Population: 14 million\n- Lu Xun lived in *Tokyo* from [[1902]].\n"
        "> He wrote of it\n> later.\n\n![map](map.png) ![[embed.png]] <br/> <!-- note -->\n"
        "| a | b |\n|---|---|\n| x | **y** |\n\n```python\nprint('code')\n```\n"
        "```\nkept *as is*\n```\n---\n[ref]: https://x\nsnake_case_name and 2*3*4 stay.\n"
    )
    text = plain_text(note)
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
    assert paragraphs == [
        "# Tokyo",
        "Tokyo is the capital of Japan. Facts:",
        "Population: 14 million",
        "Lu Xun lived in Tokyo from 1902.",
        "He wrote of it later.",
        "a; b",
        "x; y",
        "``` kept *as is* ```",
        "snake_case_name and 2*3*4 stay.",
    ]
    # text without markup comes back as it was, line for line
    prose = "```\n　　我从乡下跑到京城里，*一转眼*已经六年了。\n```\n"
    assert plain_text(prose) == prose
