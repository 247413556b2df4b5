"""Harvested looks of a table profile (``looks/<game>-<look>/``, format ``tablewatch.harvest/1``, written and parsed by
``vision.harvest``; docs/adapt.md) as adapt learns from them (``HarvestedLook``: views by file, values decoded), the
hold-out rule, and when a reading agrees with the value the rules expect.

Owns ``HarvestedLook``, ``load_looks``, ``split`` (which looks are held out: deterministic; whole games when the
looks come from two games or more, else every 4th look) and ``agrees``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from assistant.errors import UserError
from assistant.table.observation import pile_agrees
from vision.harvest import read_look, value_from_json

HOLD_OUT_EVERY = 4  # one game: every 4th look (in name order) is held out; two or more: a quarter of the looks, by game
PILE_KIND = "pile"  # a pile hides pieces under others: it agrees when it shows some of them and nothing else
TILE_KIND = "tile-face"
NOT_READ = object()  # a key a reading left out (a tile's None means an empty slot)


@dataclass
class HarvestedLook:
    """One harvested look: its folder, the views of its boards ({board: (file, px/mm)}), the scale the detector
    read each at (``read_scales``: the view's own in a look that does not say), the rules' values (``expected``),
    what was read then (``read``: {key: (value, confidence)}), each key's region kind, the game it belongs to and
    when it was made."""

    name: str
    folder: Path
    boards: dict[str, tuple[str, float]]  # board -> (file name, px/mm)
    expected: dict
    read: dict
    kinds: dict[str, str]
    source: str = "explained"
    game: str = ""
    made: str = ""
    read_scales: dict[str, float] = field(default_factory=dict)

    def view(self, board: str):
        """The board's stored view (BGR uint8)."""
        import cv2

        file, _ = self.boards[board]
        img = cv2.imread(str(self.folder / file), cv2.IMREAD_COLOR)
        if img is None:
            raise UserError(f"{self.folder / file} cannot be read as an image: delete the look {self.name} or harvest it again.")
        return img

    def views(self) -> dict:
        """{board: (view BGR, its px/mm, the detector's px/mm)}: as ``vision.boardviews.read_views`` reads them."""
        return {b: (self.view(b), r, self.read_scales.get(b, r)) for b, (_, r) in sorted(self.boards.items())}

    def keys_of(self, board: str) -> list[str]:
        return sorted(k for k in self.expected if k.split("/", 1)[0] == board)


def load_look(folder: Path) -> HarvestedLook:
    """The look in ``folder`` (read by ``vision.harvest.read_look``); UserError when its meta.json is missing or not
    a harvested look."""
    try:
        meta = read_look(folder).meta
    except ValueError as exc:
        raise UserError(f"the look {folder.name} cannot be read: {exc}; delete it or harvest it again.") from None
    boards = {b: (str(d["file"]), float(d["px_per_mm"])) for b, d in (meta.get("boards") or {}).items()}
    scales = {b: float(d.get("read_px_per_mm", d["px_per_mm"])) for b, d in (meta.get("boards") or {}).items()}
    read = {k: (value_from_json(v[0]), float(v[1])) for k, v in (meta.get("read") or {}).items()}
    expected = {k: value_from_json(v) for k, v in (meta.get("expected") or {}).items()}
    game = str(meta.get("game") or folder.name.rpartition("-")[0] or folder.name)
    return HarvestedLook(
        folder.name,
        folder,
        boards,
        expected,
        read,
        dict(meta.get("kinds") or {}),
        str(meta.get("source", "explained")),
        game,
        str(meta.get("made") or ""),
        scales,
    )


def load_looks(looks_dir: Path) -> list[HarvestedLook]:
    """Every look under ``looks_dir``, in name order (a folder whose name starts with "." or "_", or without a
    meta.json, is being written: skipped)."""
    looks_dir = Path(looks_dir)
    if not looks_dir.is_dir():
        return []
    return [
        load_look(d) for d in sorted(looks_dir.iterdir()) if d.is_dir() and d.name[:1] not in "._" and (d / "meta.json").is_file()
    ]


def games_of(looks: list[HarvestedLook]) -> list[str]:
    """The games of ``looks``, oldest first (by their first look's time, then by name)."""
    first: dict[str, tuple[str, str]] = {}
    for lk in looks:
        first[lk.game] = min(first.get(lk.game, (lk.made, lk.name)), (lk.made, lk.name))
    return sorted(first, key=lambda g: first[g])


def split(looks: list[HarvestedLook], every: int = HOLD_OUT_EVERY) -> tuple[list[HarvestedLook], list[HarvestedLook]]:
    """(looks to learn from, held-out looks). Looks from two games or more: the newest games are held out whole,
    newest first, until they hold at least 1/``every`` of the looks, the oldest game never (so what is checked is
    the reading of a game the adaptation never saw). Looks from one game: every ``every``-th look in name order is
    held out (the 4th, 8th, ...); with fewer than ``every`` looks none can be spared: both lists are all the looks
    (the card then says ``held_out`` 0: the check ran on the looks it learned from)."""
    looks = sorted(looks, key=lambda lk: lk.name)
    games = games_of(looks)
    if len(games) >= 2:
        held_games: set[str] = set()
        for g in reversed(games[1:]):
            held_games.add(g)
            if sum(lk.game in held_games for lk in looks) * every >= len(looks):
                break
        return [lk for lk in looks if lk.game not in held_games], [lk for lk in looks if lk.game in held_games]
    held = [lk for i, lk in enumerate(looks) if i % every == every - 1]
    if not held:
        return looks, looks
    return [lk for i, lk in enumerate(looks) if i % every != every - 1], held


def agrees(kind: str, read, expected) -> bool:
    """Whether a reading (``NOT_READ``: none) agrees with the rules' value for a region of ``kind``: equal, or, for a
    pile, some of its pieces and nothing else (empty only when it is empty)."""
    if read is NOT_READ:
        return False
    if kind == PILE_KIND and isinstance(expected, tuple) and isinstance(read, tuple):
        return pile_agrees(read, expected)
    return read == expected


def cast(image, gains=(0.7, 0.95, 1.35)):
    """``image`` (BGR uint8) under a white-balance cast: each channel times its gain (B, G, R), clipped. The
    default is a strong warm cast (a 2,700 K lamp on a daylight white balance)."""
    return np.clip(image.astype(np.float32) * np.asarray(gains, np.float32), 0, 255).astype(np.uint8)
