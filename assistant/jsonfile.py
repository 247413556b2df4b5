"""Reading a JSON file the user gave us: a missing file, a folder or broken JSON becomes a ``UserError`` that says
which file and where it is broken, never a traceback. Every loader of user-editable JSON (layouts, game records,
edition data, camera files, colour profiles, synth manifests, model cards, recorded sessions, web request bodies)
goes through here.

Refused, each with a one-line message naming the source: a file that cannot be read (missing, a folder, no
permission), bytes that are not UTF-8 text (a photo or other binary file given by mistake), malformed JSON,
``NaN``/``Infinity`` or a number too large for a float (JSON has neither; no Tablewatch file holds one), an
integer of more digits than Python converts, and nesting deeper than ``MAX_DEPTH`` (no Tablewatch file nests
deeper than about 8; a deeper document is an attack or an accident, and would otherwise end in a
``RecursionError`` here or in any recursive reader after us).

Also the one way a program file is written whole or not at all (``write_atomic``), so a reader never meets half a file.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from assistant.errors import UserError

MAX_DEPTH = 64  # lists/objects inside each other; Tablewatch's own files nest at most about 8 deep


class _NotFinite(ValueError):
    pass


def _no_constant(name: str):
    raise _NotFinite(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(f"{text[:20]} is too large for a number")
    return value


def _too_deep(value) -> bool:
    """Whether ``value`` nests lists/objects more than ``MAX_DEPTH`` deep (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > MAX_DEPTH:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def loads(text: str | bytes, source: str, fix: str = ""):
    """Parse ``text`` (or UTF-8 ``bytes``) read from ``source`` (a path, "-" for standard input, or a phrase such
    as "the request body"); anything but one well-formed JSON document of finite numbers raises ``UserError``."""
    tail = f" {fix}" if fix else ""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise UserError(f"{source}: not JSON text (byte {exc.start} is not UTF-8; is it an image or another binary file?). Give a JSON file.{tail}") from None
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise UserError(f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}).{tail}") from None
    except RecursionError:
        raise UserError(f"{source}: JSON nested too deeply (more than {MAX_DEPTH} lists or objects inside each other).{tail}") from None
    except ValueError as exc:  # NaN, Infinity, 1e999, or an integer of more than 4300 digits
        what = str(exc) if isinstance(exc, _NotFinite) else "a number has too many digits"
        raise UserError(f"{source}: not valid JSON ({what}; write a finite number).{tail}") from None
    if _too_deep(value):
        raise UserError(f"{source}: JSON nested too deeply (more than {MAX_DEPTH} lists or objects inside each other).{tail}")
    return value


def read_json(path: str | Path, missing: str | None = None, fix: str = ""):
    """The parsed contents of ``path``. ``missing``: the message when there is no such file (default: say so);
    ``fix``: what to do about broken JSON, appended to that message."""
    path = Path(path)
    if path.is_dir():
        raise UserError(f"{path} is a folder; give a JSON file.")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise UserError(missing or f"{path}: file not found. Check the path.") from None
    except PermissionError:
        raise UserError(f"{path}: no permission to read it. Check the file's owner and mode (ls -l {path}).") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot be read ({exc.strerror or exc}). Check the file and the disk.") from None
    return loads(data, str(path), fix)


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: into a temporary file beside it, renamed into place; the
    temporary file is removed when the write fails (OSError)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
