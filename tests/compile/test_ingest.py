from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from wikikv.compile import ingest
from wikikv.compile.filter import filter_documents
from wikikv.compile.ingest import clean_text, read_corpus
from wikikv.text.digest import split_sentences

MARKER = re.compile(r"〔[0-9０-９]{1,3}〕|[⑴-⒇]")


def test_utf8_and_gb18030_are_decoded(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes("鲁迅在北京写作。".encode())
    (tmp_path / "b.txt").write_bytes("鲁迅在上海写作。".encode("gb18030"))
    (tmp_path / "c.md").write_bytes("\ufeffHello world. This is a test.".encode())
    out = read_corpus(tmp_path)
    texts = {d.id: d.text for d in out.documents}
    assert texts == {
        "a": "鲁迅在北京写作。",
        "b": "鲁迅在上海写作。",
        "c": "Hello world. This is a test.",
    }
    assert {d.id: d.lang for d in out.documents} == {"a": "zh", "b": "zh", "c": "en"}
    assert not out.issues


def test_broken_files_are_reported_and_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "good.md").write_text("A real document. It has sentences.", encoding="utf-8")
    (tmp_path / "binary.txt").write_bytes(b"\x00\x01\x02PNG\x00")
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe\xff\xff\xfa")
    (tmp_path / "empty.md").write_text("```\n\n```\n", encoding="utf-8")
    (tmp_path / "huge.txt").write_text("x" * 5000, encoding="utf-8")
    monkeypatch.setattr(ingest, "MAX_DOC_BYTES", 4000)
    out = read_corpus(tmp_path)
    assert [d.id for d in out.documents] == ["good"]
    reasons = {Path(i.source).name: i.reason for i in out.issues}
    assert set(reasons) == {"binary.txt", "bad.txt", "empty.md", "huge.txt"}
    assert "binary" in reasons["binary.txt"]
    assert "limit" in reasons["huge.txt"]


def test_cleaning_fences_indent_wraps_and_footnotes() -> None:
    raw = (
        "```\n　　　　　　故乡〔１〕\n\n　　我冒了严寒，回到相隔二千余里，别了二十余年的故乡\n去。"
        "时候既然是深冬⑴；渐近故乡时，天气又阴晦了〔２\n〕。\n\n　　〔１〕　本篇最初发表于一九二一年。\n```\n"
    )
    text = clean_text(raw)
    assert text.split("\n\n") == [
        "故乡",
        "我冒了严寒，回到相隔二千余里，别了二十余年的故乡去。时候既然是深冬；渐近故乡时，天气又阴晦了。",
        "〔１〕　本篇最初发表于一九二一年。",
    ]
    assert "```" not in text
    assert "\u3000\u3000" not in text.split("\n\n")[1]


def test_english_wrapped_lines_join_with_a_space() -> None:
    assert clean_text("A line that wraps\nonto the next.\n\nNew paragraph.") == (
        "A line that wraps onto the next.\n\nNew paragraph."
    )


def test_sentence_offsets_refer_to_the_stored_text(data_dir: Path) -> None:
    docs = read_corpus(data_dir / "luxun" / "呐喊").documents
    assert len(docs) > 5
    for doc in docs:
        for s in split_sentences(doc.text, doc.lang):
            assert doc.text[s.start : s.end] == s.text
            assert not MARKER.search(s.text[1:]), s.text


def test_jsonl_ids_titles_with_slashes_and_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    rows = [
        json.dumps({"id": "p1", "title": "McLaren MP4/13", "text": "A car. It raced."}),
        "{not json",
        json.dumps({"id": "p2", "title": "Empty", "text": "   "}),
        json.dumps({"title": "No id", "text": "Some text here."}),
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = read_corpus(path)
    assert [(d.id, d.title) for d in out.documents] == [
        ("p1", "McLaren MP4/13"),
        ("c-000003", "No id"),
    ]
    assert len(out.issues) == 2


def test_a_jsonl_title_written_with_character_references_is_read_as_text(tmp_path: Path) -> None:
    """HotpotQA names pages "Mitchells &amp; Butlers" and "The &quot;Human&quot; Factor"; a
    title with a bare "&" is left as it is."""
    rows = [
        {"id": "p1", "title": "Mitchells &amp; Butlers", "text": "A pub company."},
        {"id": "p2", "title": "The &quot;Human&quot; Factor (1975 film)", "text": "A film."},
        {"id": "p3", "title": "Law & Order", "text": "A series."},
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(map(json.dumps, rows)) + "\n", encoding="utf-8")
    assert [d.title for d in read_corpus(path).documents] == [
        "Mitchells & Butlers",
        'The "Human" Factor (1975 film)',
        "Law & Order",
    ]


def test_a_jsonl_file_of_another_shape_is_one_issue_naming_its_fields(tmp_path: Path) -> None:
    corpus = [{"id": f"p{i}", "title": f"T{i}", "text": "A car. It raced."} for i in range(3)]
    questions = [{"id": f"q{i}", "question": "Who?", "answer": "Rush"} for i in range(40)]
    (tmp_path / "corpus.jsonl").write_text("\n".join(map(json.dumps, corpus)), encoding="utf-8")
    (tmp_path / "questions.jsonl").write_text(
        "\n".join(map(json.dumps, questions)), encoding="utf-8"
    )
    out = read_corpus(tmp_path)
    assert [d.id for d in out.documents] == ["p0", "p1", "p2"]
    assert [(i.source, i.reason) for i in out.issues] == [
        (
            str(tmp_path / "questions.jsonl"),
            "no record has a 'text' field (40 records of answer, id, question)",
        )
    ]
    assert out.read == 43
    # one record with a text makes it a corpus file: its other records are reported one by one
    questions[5]["text"] = "Some text here."
    (tmp_path / "questions.jsonl").write_text(
        "\n".join(map(json.dumps, questions)), encoding="utf-8"
    )
    assert len(read_corpus(tmp_path).issues) == 39


def test_json_array(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps([{"title": "T", "text": "Text one. Text two."}]), encoding="utf-8")
    assert [d.title for d in read_corpus(path).documents] == ["T"]


@pytest.mark.parametrize("corpus", ["hotpotqa", "musique", "2wikimultihopqa"])
def test_filter_never_drops_a_gold_passage(data_dir: Path, corpus: str) -> None:
    folder = data_dir / "multihop" / corpus
    docs = read_corpus(folder / "corpus.jsonl").documents
    gold = {
        pid
        for line in (folder / "questions.jsonl").read_text().splitlines()
        for pid in json.loads(line)["supporting"]
    }
    report = filter_documents(docs)
    dropped = {d.id for d in report.dropped}
    assert gold <= {d.id for d in docs}
    assert not gold & dropped, f"gold passages dropped: {sorted(gold & dropped)[:5]}"


def test_filter_drops_empty_lists_and_verbatim_duplicates() -> None:
    make = ingest.make_document
    docs = [
        make("a", "Essay", "This is a real sentence with enough words in it.", "f1"),
        make("b", "Essay", "This is a real sentence  with enough words in it.", "f2"),
        make(
            "c",
            "目录",
            "\n\n".join(
                [
                    "第一章",
                    "第二章",
                    "第三章",
                    "第四章",
                    "第五章",
                    "第六章",
                    "第七章",
                    "第八章",
                    "第九章",
                    "第十章",
                    "附录",
                    "后记",
                ]
            ),
            "f3",
        ),
        make("d", "", "……", "f4"),
        make("e", "Stub", "Short one.", "f5"),
    ]
    report = filter_documents(docs)
    assert [d.id for d in report.kept] == ["a", "e"]
    assert {d.id: d.reason for d in report.dropped} == {
        "b": "duplicate",
        "c": "boilerplate",
        "d": "empty",
    }


def test_html_is_read_by_a_parser(tmp_path: Path) -> None:
    page = (
        "<html><head><title>Lu &amp; Xun</title><style>p {x: 1}</style></head><body>"
        "<script>var a = '<p>not text</p>';</script>"
        "<h1>Lu Xun</h1><p>He wrote &ldquo;Ah Q&rdquo; when 3 &lt; 4.<br>A new line"
        "<p>Unclosed paragraph <b>bold</b> and<!-- a comment --> more "
        '<a title="a > b">link</a></body></html>'
    )
    (tmp_path / "lu.html").write_text(page, encoding="utf-8")
    (doc,) = read_corpus(tmp_path).documents
    assert doc.title == "Lu & Xun"
    assert doc.text.split("\n\n") == [
        "Lu Xun",
        "He wrote \u201cAh Q\u201d when 3 < 4.",
        "A new line",
        "Unclosed paragraph bold and more link",
    ]


def test_the_build_summary_says_how_many_skips_it_did_not_list() -> None:
    from wikikv.compile.ingest import IngestIssue
    from wikikv.compile.pipeline import CompileReport
    from wikikv.interfaces.commands.build import _summary

    report = CompileReport(job="build")
    report.issues = [IngestIssue(f"c.jsonl:{n}", "malformed JSON record") for n in range(13)]
    text = _summary(report)
    assert text.count("  skipped c.jsonl:") == 10
    assert "... and 3 more skipped" in text
    report.issues = report.issues[:10]
    assert "more skipped" not in _summary(report)
