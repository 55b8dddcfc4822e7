"""A cancel request is never lost to the job runner's own progress write: the runner holds an
older copy of the job record, and a DELETE that flagged the record in between must survive the
runner's next save (the interleaving is forced here, not left to timing)."""

from __future__ import annotations

from wikikv.interfaces.http.jobs import Job, _save, load_job, request_cancel
from wikikv.store.store import open_store


def test_the_runners_save_after_a_cancel_keeps_the_request() -> None:
    store = open_store("memory://")
    kb = store.create_kb("jobs")
    job = Job("abc123", "jobs", "add", "queued", 1.0, 1.0)
    _save(kb.backend, job)
    runner_copy = load_job(kb.backend, "jobs", "abc123")  # the runner reads the job …
    request_cancel(kb.backend, "jobs", "abc123")  # … a DELETE flags it …
    runner_copy.state, runner_copy.phase = "running", "analyse"
    _save(kb.backend, runner_copy)  # … and the runner saves its progress
    stored = load_job(kb.backend, "jobs", "abc123")
    assert stored.cancel_requested is True
    assert (stored.state, stored.phase) == ("running", "analyse")
    store.close()
