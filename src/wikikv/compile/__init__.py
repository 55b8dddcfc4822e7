"""The offline compile pipeline: corpus → linked, cited wiki (see DESIGN.md "Compile pipeline").

Modules, in pipeline order: :mod:`ingest` (files/JSONL → cleaned documents), :mod:`filter`
(low-information documents dropped, with reasons), :mod:`digest` (sentences and extractive digests
with exact offsets), :mod:`entities` (named entities and name-variant folding), :mod:`schema`
(IASI cold start: descriptor + dimension scaffold within the bounds), :mod:`pages` (page rendering
in the LLM-Wiki format), :mod:`pipeline` (resumable build / add / update / remove) and
:mod:`check` (the quality report of a built wiki).
"""
