"""Signed exports: the manifest, the audit entry, and verify naming every tampered file."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from wikikv.errors import ExportVerifyFailed, SigningKeyError
from wikikv.interfaces.cli import main
from wikikv.store.kb import KnowledgeBase
from wikikv.store.store import Store
from wikikv.vault import export_kb, load_key, verify_export
from wikikv.vault.signing import KEY_ENV, MANIFEST

KEY = b"a-test-key-of-32-bytes-for-hmac!"


@pytest.fixture
def signed(wiki: KnowledgeBase, tmp_path: Path) -> Path:
    dest = tmp_path / "signed"
    report = export_kb(wiki, dest, key=KEY)
    assert report.signed
    assert len(report.signature) == 64
    return dest


def test_untouched_export_verifies_and_the_audit_records_it(
    wiki: KnowledgeBase, signed: Path
) -> None:
    verified = verify_export(signed, KEY)
    assert verified.kb == "src"
    assert verified.meaning == "APPROVED_FOR_EXPORT"
    manifest = json.loads((signed / MANIFEST).read_text(encoding="utf-8"))
    assert verified.files == len(manifest["files"]) > 40
    assert ".wikikv/export.json" in manifest["files"]
    entry = next(e for e in wiki.audit(limit=None) if e.op == "export")
    assert entry.actor == verified.signer
    assert manifest["signature"] in entry.detail
    assert "HMAC-SHA256" in entry.detail
    assert KEY.decode() not in entry.detail


def test_tampering_names_every_changed_added_and_missing_file(signed: Path) -> None:
    page = signed / "people" / "Sherlock Holmes.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nA forged line.\n", "utf-8")
    (signed / "people" / "Planted.md").write_text("planted", "utf-8")
    (signed / "places" / "London.md").unlink()
    with pytest.raises(ExportVerifyFailed) as err:
        verify_export(signed, KEY)
    failed = err.value
    assert failed.signature_ok  # the manifest itself is intact
    assert failed.changed == ["people/Sherlock Holmes.md"]
    assert failed.added == ["people/Planted.md"]
    assert failed.missing == ["places/London.md"]
    for name in ("people/Sherlock Holmes.md", "people/Planted.md", "places/London.md"):
        assert name in str(failed)


def test_an_edited_manifest_or_a_wrong_key_fails_the_signature(signed: Path) -> None:
    with pytest.raises(ExportVerifyFailed, match="signature does not match"):
        verify_export(signed, b"another-key-of-enough-length-xyz")
    # re-hash a forged page into the manifest: the files then match, the signature does not
    page = signed / "people" / "Sherlock Holmes.md"
    page.write_text("forged", "utf-8")
    manifest_path = signed / MANIFEST
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["files"]["people/Sherlock Holmes.md"] = hashlib.sha256(b"forged").hexdigest()
    manifest_path.write_text(json.dumps(manifest), "utf-8")
    with pytest.raises(ExportVerifyFailed) as err:
        verify_export(signed, KEY)
    assert not err.value.signature_ok
    assert err.value.changed == []


def test_keys_come_from_the_environment_or_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with pytest.raises(SigningKeyError, match="no signing key"):
        load_key()
    monkeypatch.setenv(KEY_ENV, "short")
    with pytest.raises(SigningKeyError, match="5 bytes"):
        load_key()
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    assert load_key() == KEY
    key_file = tmp_path / "key"
    key_file.write_bytes(b"file-key-of-sufficient-length\n")
    assert load_key(key_file) == b"file-key-of-sufficient-length"


def test_unsigned_export_has_nothing_to_verify(wiki: KnowledgeBase, tmp_path: Path) -> None:
    export_kb(wiki, tmp_path / "plain")
    assert not (tmp_path / "plain" / MANIFEST).exists()
    with pytest.raises(SigningKeyError, match="not exported with --sign"):
        verify_export(tmp_path / "plain", KEY)


def test_cli_export_sign_verify_import(
    store: Store, wiki: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"lmdb://{tmp_path / 'store'}?sync=false"
    store.close()  # the CLI opens the store itself
    monkeypatch.setenv(KEY_ENV, KEY.decode())
    runner = CliRunner()
    dest = tmp_path / "cli-vault"
    out = runner.invoke(main, ["export", "--store", url, "--kb", "src", "--sign", str(dest)])
    assert out.exit_code == 0, out.output
    assert "signed" in out.output
    assert "version" in out.output
    ok = runner.invoke(main, ["verify", str(dest)])
    assert ok.exit_code == 0, ok.output
    assert ok.output.startswith("OK:")
    other = runner.invoke(main, ["verify", "--kb", "other", str(dest)])
    assert other.exit_code == 1
    assert "signed export of kb 'src', not 'other'" in other.output
    imported = runner.invoke(main, ["import", "--store", url, "--kb", "copy", "--json", str(dest)])
    assert imported.exit_code == 0, imported.output
    assert json.loads(imported.output)["created_kb"] is True
    (dest / "index.md").write_text("tampered", "utf-8")
    bad = runner.invoke(main, ["verify", str(dest)])
    assert bad.exit_code == 1
    assert "changed: index.md" in bad.output
    json_dest = tmp_path / "cli-json"
    out = runner.invoke(
        main, ["export", "--store", url, "--kb", "src", "--format", "json", str(json_dest)]
    )
    assert out.exit_code == 0, out.output
    assert (json_dest / "records.jsonl").is_file()
