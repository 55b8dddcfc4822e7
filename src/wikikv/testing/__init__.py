"""Test helpers shipped with the package, so every backend and later tier reuses them.

* :class:`BackendTests` — the backend conformance suite (subclass it, supply a fixture);
* :mod:`wikikv.testing.stateful` — a Hypothesis state machine driving a kb against a dict model;
* :mod:`wikikv.testing.workloads` — the multi-process consistency workloads, by store URL;
* :mod:`wikikv.testing.llm_server` — the scripted OpenAI-compatible loopback server.

``BackendTests`` needs pytest; it is imported lazily so that the workload processes and the
LLM server do not pay for (or require) pytest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers only: at run time the import is lazy (below)
    from wikikv.testing.backend_suite import BackendTests

__all__ = ["BackendTests"]


def __getattr__(name: str) -> Any:
    if name == "BackendTests":
        from wikikv.testing.backend_suite import BackendTests

        return BackendTests
    raise AttributeError(name)
