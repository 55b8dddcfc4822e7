"""URLs of the local test servers (Redis, Redis Cluster, PostgreSQL), starting them when needed.

Tests and benchmarks call :func:`service_url`. It returns the URL from the environment
(``WIKIKV_TEST_REDIS``, ``WIKIKV_TEST_CLUSTER``, ``WIKIKV_TEST_POSTGRES``, as printed by
``scripts/services.sh env``) or, when the variable is unset, runs ``scripts/services.sh start``
once (it installs the Debian packages when missing and is idempotent) and uses its ports. So a bare
``pytest`` works on a fresh checkout; the servers keep running afterwards for the next run
(``scripts/services.sh stop`` stops them).
"""

from __future__ import annotations

import os
import subprocess
import threading
import uuid
from pathlib import Path

from wikikv.errors import ConfigError

ENV_VARS = {
    "redis": "WIKIKV_TEST_REDIS",
    "cluster": "WIKIKV_TEST_CLUSTER",
    "postgres": "WIKIKV_TEST_POSTGRES",
}
_lock = threading.Lock()
_started: dict[str, str] = {}


def repo_root() -> Path:
    """The checkout this package is installed from (editable install: src/wikikv/testing)."""
    return Path(__file__).resolve().parents[3]


def services_script() -> Path:
    script = repo_root() / "scripts" / "services.sh"
    if not script.is_file():
        raise ConfigError(f"no {script}: service URLs must come from {sorted(ENV_VARS.values())}")
    return script


def start_services() -> dict[str, str]:
    """Run ``services.sh start`` (once per process) and return the URLs it advertises."""
    with _lock:
        if not _started:
            script = services_script()
            subprocess.run(["bash", str(script), "start"], check=True, timeout=900)
            env = subprocess.run(
                ["bash", str(script), "env"], check=True, capture_output=True, text=True
            ).stdout
            for line in env.splitlines():
                name, _, value = line.removeprefix("export ").partition("=")
                _started[name.strip()] = value.strip()
        return dict(_started)


def service_url(kind: str) -> str:
    """The URL of the ``redis``, ``cluster`` or ``postgres`` test service."""
    var = ENV_VARS[kind]
    url = os.environ.get(var)
    if url:
        return url
    found = start_services().get(var)
    if not found:
        raise ConfigError(f"scripts/services.sh env printed no {var}")
    return found


def unique_name(prefix: str = "t") -> str:
    """A fresh name for a namespace, schema or kb, so test runs never see each other's data."""
    return f"{prefix}{uuid.uuid4().hex[:12]}"


def with_option(url: str, key: str, value: str) -> str:
    """``url`` with ``key=value`` appended to its query string."""
    return f"{url}{'&' if '?' in url else '?'}{key}={value}"
