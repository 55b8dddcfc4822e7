"""An add the stored model cannot take locally says why, and still gives the wiki a full build of
all the documents gives."""

from __future__ import annotations

import hashlib

from wikikv.bench.compile import snapshot
from wikikv.compile.ingest import Document
from wikikv.compile.pipeline import Compiler
from wikikv.store.store import Store


def _doc(doc_id: str, title: str, text: str) -> Document:
    group = doc_id.split("/")[0]
    return Document(doc_id, title, text, hashlib.sha1(text.encode()).hexdigest(), "en", group)


FOLDERS = [
    _doc("planets/mercury", "Mercury", "Mercury is the smallest planet. It orbits the Sun."),
    _doc("planets/venus", "Venus", "Venus is the second planet. Venus is near Mercury."),
    _doc("gods/jupiter", "Jupiter", "Jupiter is the king of the gods. Mercury is his son."),
]
# a second "Mercury", in another folder: both are titled by their folder from now on, so the
# planet's page changes its name — a change to every document naming "Mercury"
GOD = _doc("gods/mercury", "Mercury", "Mercury is the messenger of the gods, a son of Jupiter.")
PLAIN = _doc("gods/mars", "Mars", "Mars is the god of war. Mars is a son of Jupiter.")


def test_a_title_that_renames_another_documents_subject_is_derived_whole_and_says_so(
    store: Store,
) -> None:
    kb = store.create_kb("added")
    Compiler(kb).add(FOLDERS)
    report = Compiler(kb).add([GOD])
    assert report.model_fallback == "a new title changes another document's subject"
    assert not report.model_reads  # derived whole: nothing read by key
    assert Compiler(kb).add([PLAIN]).model_reads  # the next add is local again
    whole = store.create_kb("whole")
    Compiler(whole).add([*FOLDERS, GOD, PLAIN])
    added, built = dict(snapshot(kb)), dict(snapshot(whole))
    # the root names the kb and the descriptor its first sync wrote (from its documents then)
    added.pop("/"), built.pop("/")
    assert added == built
