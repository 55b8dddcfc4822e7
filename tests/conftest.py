"""Shared test configuration.

* ``--runslow`` enables tests marked ``slow`` (long stress modes); without it they are
  deselected.
* Hypothesis runs under the ``ci`` profile (modest example counts, no per-example deadline,
  since the machine is shared) unless ``--hypothesis-profile`` or ``HYPOTHESIS_PROFILE`` names
  another: ``thorough`` runs many more examples.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", max_examples=1000, deadline=None)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--runslow", action="store_true", default=False, help="also run tests marked slow"
    )


def pytest_configure(config: pytest.Config) -> None:
    chosen = config.getoption("hypothesis_profile", default=None)
    if not chosen:
        settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The long stress modes are opt-in: without --runslow they are deselected (reported as such),
    # not skipped — they are separate commands, not tests that could not run here.
    if config.getoption("--runslow"):
        return
    slow = [item for item in items if "slow" in item.keywords]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if "slow" not in item.keywords]
