"""Reading a JSON file the user gave us: a missing file, a folder or broken JSON becomes a ``UserError`` that says
which file and where it is broken, never a traceback. Every loader of user-editable JSON (layouts, game records,
edition data, synth manifests, model cards, recorded sessions) goes through here."""

from __future__ import annotations

import json
from pathlib import Path

from assistant.errors import UserError


def loads(text: str, source: str, fix: str = ""):
    """Parse ``text`` read from ``source`` (a path, or "-" for standard input)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})." + (f" {fix}" if fix else "")) from None


def read_json(path: str | Path, missing: str | None = None, fix: str = ""):
    """The parsed contents of ``path``. ``missing``: the message when there is no such file (default: say so);
    ``fix``: what to do about broken JSON, appended to that message."""
    path = Path(path)
    if path.is_dir():
        raise UserError(f"{path} is a folder; give a JSON file.")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(missing or f"{path}: file not found.") from None
    return loads(text, str(path), fix)
