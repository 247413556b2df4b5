"""The built-in layouts (``calibration/layouts/*.json``) read as plain data, with the standard library alone.

This is the one calibration module a game package may import: it loads no OpenCV or numpy, so a game's observer
can learn the region ids of its boards and stay pure Python. It does not check the file; the shipped layouts are
checked by ``calibration.layout.validate`` in the test suite, and user layouts always go through
``calibration.layout.load``.
"""

from __future__ import annotations

from pathlib import Path

from assistant.errors import UserError
from assistant.jsonfile import read_json

LAYOUTS_DIR = Path(__file__).with_name("layouts")


def names() -> list[str]:
    """The built-in layouts' names (file stems), sorted."""
    return sorted(p.stem for p in LAYOUTS_DIR.glob("*.json"))


def read(name: str) -> dict:
    """The built-in layout called ``name`` (e.g. ``"wendake-map-2p"``), unchecked; ``UserError`` for an unknown name."""
    path = LAYOUTS_DIR / f"{name}.json"
    if not path.is_file():
        raise UserError(
            f"no built-in layout called {name!r}. Known: {', '.join(names())}."
        )
    return read_json(path)


def region_ids(name: str) -> set[str]:
    """The ids of the regions of the built-in layout ``name``."""
    return {region["id"] for region in read(name)["regions"]}
