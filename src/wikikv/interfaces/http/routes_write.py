"""Write and admin routes: page put / delete (write scope), compile jobs, descriptor and check
report (admin scope)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from wikikv.compile.handedits import PERSON_FIELDS, person_delete, person_put
from wikikv.errors import Forbidden, NotFound
from wikikv.interfaces.http import models as m
from wikikv.interfaces.http.context import Access, json_response, kb_access
from wikikv.interfaces.http.jobs import load_job, request_cancel
from wikikv.interfaces.http.routes_read import ERRORS, PathQ
from wikikv.store.backends.base import ANY
from wikikv.store.kb import KnowledgeBase
from wikikv.store.records import FileMeta

router = APIRouter(prefix="/v1", tags=["write"])
admin = APIRouter(prefix="/v1", tags=["admin"])
WRITE_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    409: {"model": m.ErrorOut},
}


async def _writer(request: Request, kb: str, scope: str) -> Access:
    access = await kb_access(request, kb, scope)
    if not access.app.config.allow_write:
        raise Forbidden("this server was started read-only")
    return access


def _put(kb: KnowledgeBase, body: m.PageIn, path: str) -> dict[str, Any]:
    meta = FileMeta(
        kind=body.kind or "page",
        title=body.title,
        summary=body.summary,
        aliases=list(body.aliases),
        tags=list(body.tags),
    )
    expect = ANY if body.expect_version is None else body.expect_version
    # A person's write: marked as a hand edit so builds merge into it (issue 13).
    given = frozenset(body.model_fields_set) & PERSON_FIELDS  # the rest stays as it is
    rec = person_put(kb, path, body.text, meta, kb.actor, expect=expect, given=given)
    return {"path": rec.path, "version": rec.meta.version}


@router.put(
    "/kbs/{kb}/page", response_model=m.WriteOut, responses=WRITE_ERRORS, summary="Write a page"
)
async def put_page(kb: str, body: m.PageIn, request: Request) -> Response:
    """Create or replace the page at ``path``; with ``expect_version`` only if the page is
    still at that version (409 otherwise; 0 means create only). 423 while a compile job holds
    the kb. A source (``/sources/...``) is refused (403 ``read_only_source``: edit the document
    and run an update job), and so is the old path of a page that moved (409 ``page_moved``,
    naming where it went). Of ``title``, ``summary``, ``kind``, ``aliases`` and ``tags``, a
    field the request does not send keeps the page's current value."""
    access = await _writer(request, kb, "write")
    p = access.principal.check_path(body.path)
    access.note(p)
    writer = access.principal.writer(access.kb)
    return json_response(await access.app.slow(_put, writer, body, p))  # fsync: off-loop


def _delete(kb: KnowledgeBase, path: str, expect: int | None, recursive: bool) -> dict[str, Any]:
    person_delete(kb, path, ANY if expect is None else expect, recursive)
    return {"path": path, "deleted": True}


@router.delete(
    "/kbs/{kb}/page", response_model=m.DeleteOut, responses=WRITE_ERRORS, summary="Delete a page"
)
async def delete_page(
    kb: str,
    request: Request,
    path: PathQ,
    expect_version: Annotated[int | None, Query(ge=0)] = None,
    recursive: bool = False,
) -> Response:
    """Delete the page (or, ``recursive``, the directory) at ``path``; a redirect is deleted
    in place. A source (``/sources/...``) is refused (403 ``read_only_source``): pages cite
    it, so removing its document (a remove job) is the way."""
    access = await _writer(request, kb, "write")
    p = access.principal.check_path(path)
    access.note(p)
    writer = access.principal.writer(access.kb)
    return json_response(await access.app.slow(_delete, writer, p, expect_version, recursive))


# ------------------------------------------------------------------------------ admin
async def _admin(request: Request, kb: str) -> Access:
    access = await _writer(request, kb, "admin")
    if not access.principal.acl.unrestricted:
        raise Forbidden("compile jobs need a key without a path allow-list")
    return access


def _job_json(job: Any) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(job)
    data.pop("actor", None)
    return data


async def _start(request: Request, kb: str, kind: str, payload: Any) -> Response:
    access = await _admin(request, kb)
    access.note("/", f"job {kind}")
    writer = access.principal.writer(access.kb)
    job = await access.app.call(access.app.jobs.start, writer, kind, payload)
    return json_response(_job_json(job), status=202)


JOB_RESPONSES: dict[int | str, dict[str, Any]] = {**WRITE_ERRORS, 202: {"model": m.JobOut}}


@admin.post(
    "/kbs/{kb}/jobs/build",
    status_code=202,
    response_model=m.JobOut,
    responses=JOB_RESPONSES,
    summary="Compile: make the kb reflect exactly these documents",
)
async def job_build(kb: str, body: m.CorpusIn, request: Request) -> Response:
    return await _start(request, kb, "build", [d.model_dump() for d in body.documents])


@admin.post(
    "/kbs/{kb}/jobs/add",
    status_code=202,
    response_model=m.JobOut,
    responses=JOB_RESPONSES,
    summary="Compile: add (or update) documents",
)
async def job_add(kb: str, body: m.CorpusIn, request: Request) -> Response:
    return await _start(request, kb, "add", [d.model_dump() for d in body.documents])


@admin.post(
    "/kbs/{kb}/jobs/update",
    status_code=202,
    response_model=m.JobOut,
    responses=JOB_RESPONSES,
    summary="Compile: recompile changed documents",
)
async def job_update(kb: str, body: m.CorpusIn, request: Request) -> Response:
    return await _start(request, kb, "update", [d.model_dump() for d in body.documents])


@admin.post(
    "/kbs/{kb}/jobs/remove",
    status_code=202,
    response_model=m.JobOut,
    responses=JOB_RESPONSES,
    summary="Compile: remove documents by id",
)
async def job_remove(kb: str, body: m.RemoveIn, request: Request) -> Response:
    return await _start(request, kb, "remove", list(body.doc_ids))


JobId = Annotated[str, "job id"]


@admin.get(
    "/kbs/{kb}/jobs/{job_id}",
    response_model=m.JobOut,
    responses=ERRORS,
    summary="A job's state and progress",
)
async def job_get(kb: str, job_id: str, request: Request) -> Response:
    access = await _admin(request, kb)
    access.note("/", f"job {job_id}")
    job = await access.app.call(load_job, access.app.store.backend, kb, job_id)
    return json_response(_job_json(job))


@admin.delete(
    "/kbs/{kb}/jobs/{job_id}",
    response_model=m.JobOut,
    responses=ERRORS,
    summary="Cancel a job (it stops at its next progress step)",
)
async def job_cancel(kb: str, job_id: str, request: Request) -> Response:
    access = await _admin(request, kb)
    access.note("/", f"cancel job {job_id}")
    job = await access.app.call(request_cancel, access.app.store.backend, kb, job_id)
    return json_response(_job_json(job))


def _descriptor(kb: KnowledgeBase) -> dict[str, Any]:
    from wikikv.compile import state

    found = state.load_descriptor(kb)
    if found is None:
        raise NotFound(f"kb {kb.name!r} has no descriptor yet: run a build job first")
    schema = state.load_schema(kb)
    return {"descriptor": msgspec.to_builtins(found), "schema": msgspec.to_builtins(schema)}


@admin.get(
    "/kbs/{kb}/descriptor",
    response_model=m.DescriptorOut,
    responses=ERRORS,
    summary="The corpus positioning descriptor and the dimension schema",
)
async def descriptor(kb: str, request: Request) -> Response:
    access = await kb_access(request, kb, "read")
    if not access.principal.acl.unrestricted:
        raise Forbidden(
            "the descriptor speaks of the whole kb: it needs a key without an allow-list"
        )
    access.note("/")
    return json_response(await access.app.call(_descriptor, access.kb))


def _check(kb: KnowledgeBase, fsck: bool) -> dict[str, Any]:
    from wikikv.compile.check import check

    data: dict[str, Any] = msgspec.to_builtins(check(kb, run_fsck=fsck).to_dict())
    return data


@admin.get(
    "/kbs/{kb}/check",
    response_model=m.CheckOut,
    responses=ERRORS,
    summary="The quality and consistency report of the kb",
)
async def check_report(kb: str, request: Request, fsck: bool = True) -> Response:
    access = await _admin(request, kb)
    access.note("/")
    return json_response(await access.app.slow(_check, access.kb, fsck))
