"""Background compile jobs of the HTTP API (build / add / update / remove), with progress and
cancellation.

A job's state is a record in its kb's system keyspace (``S`` + ``job/<id>``), written past the
cache tiers, so ``GET /v1/kbs/{kb}/jobs/{id}`` answers from any worker process. A cancel request
is a record of its own (``job/<id>/cancel``), which only the request writes: the job thread
rewrites its state record on every progress step, and a flag kept on that record could be
overwritten by a save that read it just before the request. The job's progress hook reads the
flag on every phase change and at most every ``POLL`` seconds, and stops the compile with
:class:`JobCancelled` — the same stop as a kill, which the compile resumes from when it is
started again.
"""

from __future__ import annotations

import json
import secrets
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from wikikv.errors import JobCancelled, NotFound, WikiKVError
from wikikv.interfaces.http.errors import classify
from wikikv.store.apikeys import engine
from wikikv.store.backends.base import Backend
from wikikv.store.kb import KnowledgeBase
from wikikv.store.keys import KBKeys

POLL = 0.25
KINDS = ("build", "add", "update", "remove")
_RECORD = "job/"


class JobError(msgspec.Struct):
    code: str
    message: str
    type: str


class Job(msgspec.Struct, omit_defaults=True):
    id: str
    kb: str
    kind: str
    state: str  # queued, running, done, failed, cancelled
    created_at: float
    updated_at: float
    phase: str = ""
    done: int = 0
    total: int = 0
    cancel_requested: bool = False
    result: dict[str, Any] | None = None
    error: JobError | None = None
    actor: str = ""


_dec = msgspec.msgpack.Decoder(Job)
_enc = msgspec.msgpack.Encoder()


def _key(kb: str, job_id: str) -> bytes:
    return KBKeys(kb).system(_RECORD + job_id)


def _cancel_key(kb: str, job_id: str) -> bytes:
    return KBKeys(kb).system(_RECORD + job_id + "/cancel")


def load_job(backend: Backend, kb: str, job_id: str) -> Job:
    item = engine(backend).get(_key(kb, job_id)) if job_id.isalnum() else None
    if item is None:
        raise NotFound(f"no job {job_id!r} in kb {kb!r}")
    job = _dec.decode(item.value)
    job.cancel_requested = _cancel_asked(backend, kb, job_id)
    return job


def _cancel_asked(backend: Backend, kb: str, job_id: str) -> bool:
    return engine(backend).get(_cancel_key(kb, job_id)) is not None


def _save(backend: Backend, job: Job) -> None:
    """Write the job's state record (a plain put: the cancel request lives in its own record,
    which this write never touches, so the runner's older copy cannot drop it)."""
    job.updated_at = time.time()
    engine(backend).put_if(_key(job.kb, job.id), _enc.encode(job))


def request_cancel(backend: Backend, kb: str, job_id: str) -> Job:
    """Flag a job for cancellation; a finished job is left as it is."""
    job = load_job(backend, kb, job_id)
    if job.state in ("queued", "running"):
        engine(backend).put_if(_cancel_key(kb, job_id), b"1")
        job.cancel_requested = True
    return job


def _provider(llm: str, kb: KnowledgeBase) -> Any:
    if llm != "openai":
        from wikikv.llm.extractive import ExtractiveProvider

        return ExtractiveProvider()
    from wikikv.compile.llm_provider import LLMCompileProvider
    from wikikv.llm.callcache import CallCache
    from wikikv.llm.openai_compat import OpenAICompatProvider
    from wikikv.store.callcache_storage import BackendCacheStorage

    return LLMCompileProvider(
        OpenAICompatProvider.from_env(cache=CallCache(BackendCacheStorage.for_kb(kb)))
    )


class JobRunner:
    """Starts jobs in daemon threads of this process and keeps their records current."""

    def __init__(self, llm: str = "offline") -> None:
        self.llm = llm
        self._threads: dict[str, threading.Thread] = {}

    def start(self, kb: KnowledgeBase, kind: str, payload: list[dict[str, str]] | list[str]) -> Job:
        t = time.time()
        job = Job(secrets.token_hex(8), kb.name, kind, "queued", t, t, actor=kb.actor)
        _save(kb.backend, job)
        thread = threading.Thread(
            target=self._run, args=(kb, job, payload), name=f"wikikv-job-{job.id}", daemon=True
        )
        self._threads[job.id] = thread
        thread.start()
        return job

    def running(self) -> int:
        return sum(1 for t in self._threads.values() if t.is_alive())

    def join(self, timeout: float = 10.0) -> None:
        for t in list(self._threads.values()):
            t.join(timeout)

    def _progress(self, kb: KnowledgeBase, job: Job) -> Callable[[str, int, int], None]:
        last = [0.0]

        def update(phase: str, done: int, total: int) -> None:
            now = time.monotonic()
            changed = phase != job.phase
            job.phase, job.done, job.total = phase, done, total
            if not changed and now - last[0] < POLL:
                return
            last[0] = now
            if _cancel_asked(kb.backend, kb.name, job.id):
                raise JobCancelled(f"job {job.id} was cancelled during {phase}")
            _save(kb.backend, job)

        return update

    def _run(self, kb: KnowledgeBase, job: Job, payload: list[dict[str, str]] | list[str]) -> None:
        from wikikv.compile.pipeline import Compiler
        from wikikv.quality.hooks import gated

        job.state = "running"
        _save(kb.backend, job)
        provider: Any = None
        try:
            if _cancel_asked(kb.backend, kb.name, job.id):
                raise JobCancelled(f"job {job.id} was cancelled before it started")
            provider = _provider(self.llm, kb)
            compiler = Compiler(kb, provider, gated(), progress=self._progress(kb, job))
            if job.kind == "remove":
                report = compiler.remove([str(d) for d in payload])
            else:
                with tempfile.TemporaryDirectory(prefix="wikikv-job-") as tmp:
                    corpus = Path(tmp) / "corpus.jsonl"
                    with corpus.open("w", encoding="utf-8") as fh:
                        for doc in payload:
                            fh.write(json.dumps(doc, ensure_ascii=False) + "\n")
                    report = getattr(compiler, job.kind)(corpus)
            report.llm = compiler.provider.usage().to_dict()
            by_role = getattr(compiler.provider, "usage_by_role", None)
            if by_role is not None:  # LLM mode: tokens and cost per role, as `wikikv build`
                report.llm["by_role"] = {r: u.to_dict() for r, u in sorted(by_role().items())}
            job.result = report.to_dict()
            job.state = "done"
        except JobCancelled as exc:
            job.state = "cancelled"
            job.error = JobError("job_cancelled", str(exc), type(exc).__name__)
        except WikiKVError as exc:
            _, code = classify(exc)
            job.state = "failed"
            job.error = JobError(code, str(exc), type(exc).__name__)
        except Exception as exc:  # a job thread must always leave a final state behind
            job.state = "failed"
            job.error = JobError("internal_error", str(exc), type(exc).__name__)
        finally:
            # The model client's connections go with the job, however it ended.
            client = getattr(provider, "llm", None)
            if client is not None and hasattr(client, "close"):
                client.close()
        job.cancel_requested = _cancel_asked(kb.backend, kb.name, job.id)
        _save(kb.backend, job)


__all__ = ["KINDS", "Job", "JobRunner", "load_job", "request_cancel"]
