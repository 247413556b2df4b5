"""Harvested looks: board views labelled by the rules engine, written and read in a table profile's ``looks/``.

A harvested look is one settled look of a game whose true readings are known (the start position before the
first move, or a look the tracker explained surely): a folder ``<game id>-<look:04d>/`` holding ``meta.json`` and
one ``<board>.jpg`` (JPEG quality 95) per board, the board's rectified view as its readers saw it
(``vision.boardviews.reader_views``: BGR at the finest scale a reader reads that board at, 2 px/mm for a village
board, where the tile reader and the resource counter read; the detector's scale for the other boards), with
the scale the detector read it at (``read_px_per_mm``; a look written before it was kept is at the detector's
scale). ``meta.json`` (``FORMAT``)::

    {"format": "tablewatch.harvest/1", "source": "setup" | "explained", "game": id, "look": n, "made": ISO time,
     "moves": accepted moves when it was taken,
     "boards": {board: {"file": "<board>.jpg", "px_per_mm": float, "read_px_per_mm": float}},
     "expected": {reading key: value JSON}, "read": {reading key: [value JSON, confidence]},
     "kinds": {reading key: region kind}}

Values are the Observation's reading values in JSON: a Pieces count as [[piece key, n], ...], a tile face as
"id:side" or null. This module knows no game: the expected readings, the kinds and the views come as data (the
glue that asks the game is ``assistant.apps.learn``). Owns writing (``write_look``: whole or not at all, a temporary
folder renamed into place), reading (``read_look``, ``list_looks``), taking a game's looks back
(``delete_looks``) and the size cap (``enforce_cap``: the oldest looks go first, never the set-up looks of the
newest game). It imports OpenCV only where it encodes or decodes a picture, so that the programs that use it
stay light to import (``tablewatch --help``).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.table.observation import pieces

if TYPE_CHECKING:
    import numpy as np

FORMAT = "tablewatch.harvest/1"
JPEG_QUALITY = 95
SOURCES = ("setup", "explained")
_TMP = ".tmp-"  # a look being written: never listed, removed when found left over


def value_json(v):
    """A reading value as harvested: a Pieces count as [[piece key, n], ...], a tile face or None as is."""
    return [[k, int(n)] for k, n in v] if isinstance(v, tuple) else v


def value_from_json(v):
    """A harvested value back as the Observation's value (a list of pairs -> Pieces; a {key: n} dict too)."""
    if isinstance(v, list):
        return pieces({str(k): int(n) for k, n in v})
    if isinstance(v, dict):
        return pieces(v)
    return v


def look_name(game: str, look: int) -> str:
    return f"{game}-{int(look):04d}"


@dataclass
class HarvestedLook:
    """One harvested look read back: its folder, its meta.json and its board views (BGR, loaded on demand)."""

    folder: Path
    meta: dict

    @property
    def source(self) -> str:
        return self.meta["source"]

    @property
    def game(self) -> str:
        return self.meta["game"]

    def image(self, board: str) -> "np.ndarray":
        """The board's view as the observer read it (BGR); OSError when the file is unreadable."""
        import cv2

        img = cv2.imread(str(self.folder / self.meta["boards"][board]["file"]), cv2.IMREAD_COLOR)
        if img is None:
            raise OSError(f"{self.folder / self.meta['boards'][board]['file']} cannot be read")
        return img

    def px_per_mm(self, board: str) -> float:
        return float(self.meta["boards"][board]["px_per_mm"])

    def read_px_per_mm(self, board: str) -> float:
        """The scale the detector read the board at (its view's scale in a look that does not say)."""
        d = self.meta["boards"][board]
        return float(d.get("read_px_per_mm", d["px_per_mm"]))

    def expected(self) -> dict:
        return {k: value_from_json(v) for k, v in self.meta["expected"].items()}

    def read(self) -> dict:
        """{key: (value, confidence)} as the camera read them."""
        return {k: (value_from_json(v), float(c)) for k, (v, c) in self.meta["read"].items()}


def write_look(
    looks_dir: Path,
    game: str,
    look: int,
    source: str,
    views: dict,
    expected: dict,
    read: dict,
    kinds: dict,
    moves: int = 0,
    made: str | None = None,
) -> Path:
    """Write one harvested look, whole or not at all: ``views`` {board: (BGR image, px_per_mm[, the detector's
    px_per_mm])}, ``expected`` {key: value}, ``read`` {key: (value, confidence)}, ``kinds`` {key: region kind}
    (values as the Observation holds them). The look is written into a temporary folder beside the others and renamed into place; a look of
    the same name is replaced. Returns its folder; OSError (the temporary folder removed) when it cannot be written."""
    import cv2

    if source not in SOURCES:
        raise ValueError(f"source must be one of {SOURCES}, not {source!r}")
    looks_dir = Path(looks_dir)
    name = look_name(game, look)
    final = looks_dir / name
    tmp = looks_dir / f"{_TMP}{name}-{os.getpid()}"
    meta = {
        "format": FORMAT,
        "source": source,
        "game": game,
        "look": int(look),
        "made": made or time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "moves": int(moves),
        "boards": {},
        "expected": {k: value_json(v) for k, v in sorted(expected.items())},
        "read": {k: [value_json(v), round(float(c), 4)] for k, (v, c) in sorted(read.items())},
        "kinds": {k: kinds[k] for k in sorted(kinds)},
    }
    try:
        looks_dir.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        for board, (image, px_per_mm, *detector) in sorted(views.items()):
            ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
            if not ok:
                raise OSError(f"the view of {board} cannot be encoded as JPEG")
            _write(tmp / f"{board}.jpg", buf.tobytes())
            read_px = float(detector[0]) if detector else float(px_per_mm)
            meta["boards"][board] = {
                "file": f"{board}.jpg",
                "px_per_mm": round(float(px_per_mm), 6),
                "read_px_per_mm": round(read_px, 6),
            }
        _write(tmp / "meta.json", json.dumps(meta, indent=1).encode("utf-8"))
        if final.exists():
            shutil.rmtree(final)
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def _write(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def read_look(folder: Path) -> HarvestedLook:
    """A harvested look's folder read back; ValueError when its meta.json is missing or not this format."""
    folder = Path(folder)
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{folder} is not a harvested look ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{folder} is not a harvested look (format {meta.get('format') if isinstance(meta, dict) else None!r})")
    return HarvestedLook(folder, meta)


def list_looks(looks_dir: Path) -> list[HarvestedLook]:
    """Every harvested look in ``looks_dir``, oldest first (by when it was made, then by name). Looks being
    written and folders that are not looks are passed over."""
    looks_dir = Path(looks_dir)
    if not looks_dir.is_dir():
        return []
    out = []
    for p in looks_dir.iterdir():
        if p.name.startswith(_TMP) or not p.is_dir():
            continue
        try:
            out.append(read_look(p))
        except ValueError:
            continue
    return sorted(out, key=lambda lk: (str(lk.meta.get("made", "")), lk.folder.name))


def delete_looks(looks_dir: Path, game: str, after_moves: int | None = None) -> int:
    """Take back the looks of ``game`` labelled with more than ``after_moves`` accepted moves (all of the game's
    looks when None): their moves were changed by an undo or a correction. Returns how many went."""
    n = 0
    for lk in list_looks(looks_dir):
        if lk.game == game and (after_moves is None or int(lk.meta.get("moves", 0)) > after_moves):
            shutil.rmtree(lk.folder, ignore_errors=True)
            n += 1
    return n


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in Path(folder).rglob("*") if f.is_file())


def enforce_cap(looks_dir: Path, max_bytes: int) -> int:
    """Keep the looks under ``max_bytes``: the oldest go first, never the set-up looks of the newest game (the
    one made last). Left-over temporary folders go too. Returns how many looks were dropped."""
    looks_dir = Path(looks_dir)
    if not looks_dir.is_dir():
        return 0
    for p in looks_dir.iterdir():
        if p.name.startswith(_TMP) and p.is_dir() and not p.name.endswith(f"-{os.getpid()}"):
            shutil.rmtree(p, ignore_errors=True)
    looks = list_looks(looks_dir)
    if not looks:
        return 0
    newest = looks[-1].game
    sizes = {lk.folder: folder_bytes(lk.folder) for lk in looks}
    total = sum(sizes.values())
    dropped = 0
    for lk in looks:
        if total <= max_bytes:
            break
        if lk.game == newest and lk.source == "setup":
            continue
        shutil.rmtree(lk.folder, ignore_errors=True)
        total -= sizes[lk.folder]
        dropped += 1
    return dropped
