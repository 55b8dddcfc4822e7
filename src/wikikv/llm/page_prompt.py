"""The page role's request as the compile provider sends it — shared with the dry run, so the
estimate of a page call's prompt is the rendered prompt itself, not a guess."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from functools import lru_cache

import msgspec

from wikikv.llm.prompts import PAGE_SCHEMA, SCHEMA_SCHEMA, build_request
from wikikv.llm.scaffold import KINDS
from wikikv.llm.types import JSONObject, RoleRequest

KIND_HELP = {
    "person": "people and characters",
    "place": "places: cities, regions, countries, landmarks",
    "org": "organizations: companies, schools, parties, bands, journals",
    "work": "creative works: books, essays, films, albums, songs",
    "event": "events: battles, wars, movements, elections, festivals",
    "topic": "anything else: concepts, terms, other named things",
}
MAX_DOC_CHARS = 24_000
SAMPLE_CHARS = 2000  # of each sample document the descriptor and schema roles read


class ExistingPage(msgspec.Struct, frozen=True):
    """A page SelectPages offers the page role: its path, title and one-line summary."""

    path: str
    title: str
    summary: str


@lru_cache(maxsize=1)
def page_schema() -> JSONObject:
    """The page schema with each entity's dimension constrained to the pipeline's kinds."""
    schema = copy.deepcopy(PAGE_SCHEMA)
    entity = schema["properties"]["entities"]["items"]
    entity["properties"]["dimension"] = {"type": "string", "enum": list(KINDS)}
    return schema


@lru_cache(maxsize=1)
def scaffold_schema() -> JSONObject:
    """The schema role's answer schema with entity types constrained to the pipeline's kinds."""
    schema = copy.deepcopy(SCHEMA_SCHEMA)
    dim = schema["properties"]["dimensions"]["items"]
    dim["properties"]["entity_types"]["items"] = {"type": "string", "enum": list(KINDS)}
    return schema


def kinds_block() -> str:
    return "\n".join(f"{k}: {v}" for k, v in KIND_HELP.items())


def page_request(
    doc_id: str,
    title: str,
    text: str,
    existing: Sequence[ExistingPage] = (),
    constraints: Sequence[str] = (),
    max_doc_chars: int = MAX_DOC_CHARS,
) -> RoleRequest:
    """The page call for one document: its text as a data block, its title, the dimensions,
    SelectPages' existing pages and the open Error Book constraints."""
    context = {"title": title, "dimensions": kinds_block()}
    if existing:
        context["existing_pages"] = "\n".join(
            f"{p.path} | {p.title} | {p.summary}" for p in existing
        )
    request = build_request(
        "page", [text[:max_doc_chars]], [doc_id], context=context, constraints=constraints
    )
    return dataclasses.replace(request, schema=page_schema())
