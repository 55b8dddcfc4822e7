"""Signed exports (ADR-030 "export with electronic signature"): a manifest of every file's
SHA-256, signed with HMAC-SHA256, and the check that names every changed, added or missing file.

The manifest lives at ``.wikikv/manifest.json`` inside the export and covers every other file
there, the export's own ``.wikikv/export.json`` included. The signature is the HMAC of the
manifest's canonical JSON (sorted keys, no spaces) without its ``signature`` field, so editing the
file list, the signer or the meaning breaks it as surely as editing a page. The key comes from
``$WIKIKV_EXPORT_KEY`` or a key file; it never enters the export or the audit trail.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikikv.errors import ExportVerifyFailed, SigningKeyError

KEY_ENV = "WIKIKV_EXPORT_KEY"
MANIFEST = ".wikikv/manifest.json"
ALGORITHM = "HMAC-SHA256"
MEANING = "APPROVED_FOR_EXPORT"
MIN_KEY_BYTES = 16


def load_key(key_file: str | os.PathLike[str] | None = None) -> bytes:
    """The HMAC key: the contents of ``key_file`` (trailing newline dropped) or else
    ``$WIKIKV_EXPORT_KEY``. A missing or short key is refused rather than signed with."""
    if key_file is not None:
        try:
            key = Path(key_file).read_bytes().rstrip(b"\r\n")
        except OSError as exc:
            raise SigningKeyError(f"cannot read key file {key_file}: {exc.strerror}") from exc
        origin = f"key file {key_file}"
    else:
        env = os.environ.get(KEY_ENV, "")
        if not env:
            raise SigningKeyError(f"no signing key: set ${KEY_ENV} or pass --key-file")
        key, origin = env.encode("utf-8"), f"${KEY_ENV}"
    if len(key) < MIN_KEY_BYTES:
        raise SigningKeyError(
            f"the key in {origin} is {len(key)} bytes; use at least {MIN_KEY_BYTES}"
        )
    return key


def _hash_file(path: Path) -> str:
    if path.is_symlink():  # never followed: the link itself is what the export holds
        return "symlink:" + hashlib.sha256(os.readlink(path).encode("utf-8")).hexdigest()
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_hashes(root: Path) -> dict[str, str]:
    """SHA-256 of every file under ``root`` (POSIX relative paths), the manifest excepted."""
    out: dict[str, str] = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        base = Path(folder)
        # A symlinked folder is listed among dirs but not walked: hash it as a link.
        for name in [*files, *(d for d in dirs if (base / d).is_symlink())]:
            rel = (base / name).relative_to(root).as_posix()
            if rel != MANIFEST:
                out[rel] = _hash_file(base / name)
    return dict(sorted(out.items()))


def _canonical(body: dict[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _mac(key: bytes, body: dict[str, Any]) -> str:
    return hmac.new(key, _canonical(body), hashlib.sha256).hexdigest()


def sign_export(root: Path, key: bytes, *, signer: str, kb: str, signed_at: float) -> str:
    """Write ``.wikikv/manifest.json`` for the files under ``root``; returns the signature."""
    body: dict[str, Any] = {
        "wikikv_manifest": 1,
        "algorithm": ALGORITHM,
        "kb": kb,
        "signer": signer,
        "meaning": MEANING,
        "signed_at": signed_at,
        "files": file_hashes(root),
    }
    signature = _mac(key, body)
    target = root / MANIFEST
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        json.dumps({**body, "signature": signature}, ensure_ascii=False, indent=1) + "\n",
        encoding="utf-8",
    )
    return signature


@dataclass
class Verified:
    """A passed verification: who signed what, and how many files it covers."""

    dest: str
    kb: str
    signer: str
    meaning: str
    signed_at: float
    files: int
    signature: str


def verify_export(root: Path, key: bytes) -> Verified:
    """Check the export at ``root`` against its manifest; ExportVerifyFailed names every
    changed, added and missing file (and says when the signature itself is wrong)."""
    path = root / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise SigningKeyError(f"{root} has no {MANIFEST}: it was not exported with --sign") from exc
    except (OSError, ValueError) as exc:
        raise ExportVerifyFailed(
            str(root), signature_ok=False, changed=[MANIFEST], added=[], missing=[]
        ) from exc
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise ExportVerifyFailed(
            str(root), signature_ok=False, changed=[MANIFEST], added=[], missing=[]
        )
    claimed = str(manifest.pop("signature", ""))
    signature_ok = hmac.compare_digest(_mac(key, manifest), claimed)
    expected: dict[str, str] = {str(k): str(v) for k, v in manifest["files"].items()}
    found = file_hashes(root)
    changed = sorted(p for p in expected.keys() & found.keys() if expected[p] != found[p])
    added = sorted(found.keys() - expected.keys())
    missing = sorted(expected.keys() - found.keys())
    if not signature_ok or changed or added or missing:
        raise ExportVerifyFailed(
            str(root), signature_ok=signature_ok, changed=changed, added=added, missing=missing
        )
    return Verified(
        dest=str(root),
        kb=str(manifest.get("kb", "")),
        signer=str(manifest.get("signer", "")),
        meaning=str(manifest.get("meaning", "")),
        signed_at=float(manifest.get("signed_at", 0.0)),
        files=len(expected),
        signature=claimed,
    )
