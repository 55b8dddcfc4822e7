"""Vault export / import (Obsidian-compatible Markdown or JSON lines) and signed exports."""

from wikikv.vault.exporter import ExportReport, collect, export_kb
from wikikv.vault.importer import ImportReport, import_source
from wikikv.vault.signing import Verified, load_key, verify_export

__all__ = [
    "ExportReport",
    "ImportReport",
    "Verified",
    "collect",
    "export_kb",
    "import_source",
    "load_key",
    "verify_export",
]
