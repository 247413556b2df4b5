"""Table profiles: where what Tablewatch learns about one table is kept.

A table profile is one table as the camera sees it: the camera, the boards (layouts) and the piece set. It is a
folder ``DATA_DIR/tables/<name>/`` holding ``looks/`` (harvested looks: board views labelled by the rules engine),
``adapted/`` (the adaptation the observer loads), ``adapted.prev/`` (the one before it, kept for rollback) and
``status.json`` (what the tablet shows about learning). Pure Python; the formats are in docs/adapt.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from assistant.errors import UserError
from assistant.jsonfile import read_json

TABLES_DIR = "tables"
DEFAULT_MAX_LOOKS_BYTES = 500 * 1024 * 1024  # the size cap of one profile's harvested looks
_SLUG = re.compile(r"[^a-z0-9._-]+")


def profile_name(layouts: list[str], camera: str | None = None, pieces: str | None = None) -> str:
    """A profile name for a camera, a set of boards and a piece set: the same table gives the same name."""
    parts = [pieces or "pieces", Path(camera).stem if camera else "camera"] + sorted(layouts)
    name = _SLUG.sub("-", "+".join(parts).lower()).strip("-.")
    return name[:120] or "table"


def check_name(name: str) -> str:
    """``name`` if it can name a profile folder; else a one-line UserError."""
    if not name or _SLUG.search(name) or name.startswith("."):
        raise UserError(f"table profile name {name!r} is not usable: use lower-case letters, digits, '.', '_' or '-'")
    return name


@dataclass(frozen=True)
class TableProfile:
    """One table profile's folder and the paths inside it."""

    root: Path

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def looks_dir(self) -> Path:
        return self.root / "looks"

    @property
    def adapted_dir(self) -> Path:
        return self.root / "adapted"

    @property
    def previous_dir(self) -> Path:
        return self.root / "adapted.prev"

    @property
    def status_path(self) -> Path:
        return self.root / "status.json"

    def card(self) -> dict | None:
        """The current adaptation's card (``adapted/card.json``), or None when the table was never adapted."""
        path = self.adapted_dir / "card.json"
        return read_json(path) if path.is_file() else None

    def status(self) -> dict:
        """What the tablet shows about learning this table ({} when nothing was said yet)."""
        return read_json(self.status_path) if self.status_path.is_file() else {}


def open_profile(data_dir: Path, name: str) -> TableProfile:
    """The profile ``name`` under ``data_dir`` (created with its looks folder when new)."""
    prof = TableProfile(Path(data_dir) / TABLES_DIR / check_name(name))
    prof.looks_dir.mkdir(parents=True, exist_ok=True)
    return prof


def list_profiles(data_dir: Path) -> list[TableProfile]:
    """Every profile under ``data_dir``, by name."""
    root = Path(data_dir) / TABLES_DIR
    return sorted((TableProfile(p) for p in root.iterdir() if p.is_dir()), key=lambda p: p.name) if root.is_dir() else []
