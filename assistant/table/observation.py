"""The Observation: what the camera read off the table at one settled moment. Owns its data shape and JSON form.

It is the one contract between ``vision/`` (which produces it) and the tracker in ``assistant/`` (which explains it
with the rules). It is game-neutral: it speaks of boards, layout regions and pieces, never of rules.

Keys. One **reading** per decision, keyed ``"<board>/<region>"``: ``board`` is the layout name (``wendake-map-4p``,
``wendake-village-2``, ``wendake-scores-a``, ``wendake-mask``) and ``region`` a region id of that layout (``T05``,
``T05.pa1``, ``L2``, ``long_house``, ``slot.4``, ``upper.17``, ``turn_order.2`` ...). A tile slot's printed tile is
read under ``"<board>/<slot>#tile"``.

Values.
- A region reading's value is a :class:`Pieces` count: piece key -> how many are seen in that region. A piece key
  is ``"class:colour"`` or ``"class:colour:side"`` when the piece has sides (``"warrior_standing:red"``,
  ``"woman:blue:colour"``, ``"hunter:green:grey"``, ``"canoe:yellow"``, ``"tribe_disk:red"``, ``"corn:none"``).
  An empty count means "looked, saw nothing". Only visible pieces are counted: a stack shows as one piece, a disk
  under another disk is not counted. Filling those in is the tracker's job (conservation and history).
- A ``#tile`` reading's value is ``"<tile id>:<side>"`` or None (empty slot).
- A ``#changed`` reading (``CHANGED``, at a region its layout marks ``"reading": "top-of-stack"``) is True when the
  region looks different from the previous observation that read its board, False when it looks the same: a piece put
  on a stack whose top keeps its colour shows no new top, yet the stack looks different (``vision.stacks``). Absent
  where there is no earlier look to compare with.
- A ``#stack`` key (``STACK``) is never read by a camera: it is the whole content of a stack, bottom first, as a game's
  ``expected_readings`` names it (a string). The tracker turns each ``#changed`` reading into one, relative to its
  accepted position (``stack_reading``): that position's content when the stack looks the same, ``NOT + content``
  (anything but that content) when it changed; ``stack_differs`` compares them.
- ``confidence`` in [0, 1]: how sure vision is of this one decision. A resource count at the most pieces of its kind
  the reader can tell (a lower bound, not a count) is read at exactly ``COUNT_BOUND_CONFIDENCE``.
- ``others`` (tile faces only, may be empty): the runner-up values vision weighed, each with how far it fits worse
  than ``value`` ((value, margin), ...; the confidence is the smallest margin). A value not listed fits worse than
  every listed one. A weak read still tells what the tile is not: an advanced tile whose number is unsure is
  still no basic tile.

A key that is absent was not read: its board was not settled (hands, motion), not in view, or not detected. The
tracker must never treat an absent key as "empty".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

Pieces = tuple[tuple[str, int], ...]  # sorted (piece key, count) pairs, count > 0
Value = Union[Pieces, str, None]

FORMAT = "tablewatch.observation/1"
CHANGED = "#changed"  # suffix of a stack's change reading (module docstring)
STACK = "#stack"  # suffix of a stack's content, which the tracker derives from CHANGED
NOT = "!"  # a ``#stack`` reading ``NOT + content``: the stack holds anything but that content
COUNT_BOUND_CONFIDENCE = 0.05  # the confidence of a resource count that is a lower bound (see the module docstring)


def piece_key(cls: str, colour: str, side: str | None = None) -> str:
    return f"{cls}:{colour}:{side}" if side else f"{cls}:{colour}"


def split_key(key: str) -> tuple[str, str, str | None]:
    """``"woman:red:grey"`` -> ("woman", "red", "grey"); ``"canoe:blue"`` -> ("canoe", "blue", None)."""
    parts = key.split(":")
    return parts[0], parts[1] if len(parts) > 1 else "none", parts[2] if len(parts) > 2 else None


def pieces(counts: dict[str, int]) -> Pieces:
    """A normalised region value from a {piece key: count} mapping (zeros dropped, sorted)."""
    return tuple(sorted((k, int(n)) for k, n in counts.items() if n > 0))


def pieces_within(value: Pieces, expected: Pieces) -> bool:
    """Whether every piece of ``value`` is one ``expected`` holds, as many of each or fewer, and nothing else."""
    want = dict(expected)
    return all(n <= want.get(k, 0) for k, n in value)


def pile_agrees(value: Pieces, expected: Pieces) -> bool:
    """Whether a pile's reading shows what the pile holds, as a camera can: some of its pieces and nothing else
    (pieces lying on others hide them), or nothing when it is empty."""
    return bool(value) == bool(expected) and pieces_within(value, expected)


def reading_key(board: str, region: str, tile: bool = False) -> str:
    return f"{board}/{region}#tile" if tile else f"{board}/{region}"


def split_reading_key(key: str) -> tuple[str, str, bool]:
    """``"wendake-village-1/slot.4#tile"`` -> ("wendake-village-1", "slot.4", True); a ``#changed`` or ``#stack``
    key -> its region, False."""
    board, _, rest = key.partition("/")
    region, _, suffix = rest.partition("#")
    return board, region, suffix == "tile"


def camera_reads(key: str) -> bool:
    """Whether a camera gives readings at ``key``: every key but a stack's content (``STACK``), which the tracker
    derives from the stack's change readings."""
    return not key.endswith(STACK)


def stack_reading(changed: bool, accepted: str) -> str:
    """The ``#stack`` reading a ``#changed`` one gives, the stack holding ``accepted`` (its ``#stack`` value in the
    tracker's accepted position, "" when empty): the same content, or anything but it."""
    return NOT + accepted if changed else accepted


def camera_values(expected: dict, before: dict | None = None) -> dict:
    """What a perfect camera reads of a position whose expected readings are ``expected``, its previous look having
    shown ``before`` (expected readings too; None: no earlier look): every key but the stacks' ``#stack`` contents,
    and for each stack, once there is an earlier look, whether it changed (``#changed``)."""
    out = {k: v for k, v in expected.items() if camera_reads(k)}
    if before is not None:
        for k in {k for k in (*expected, *before) if k.endswith(STACK)}:
            out[k[: -len(STACK)] + CHANGED] = expected.get(k, "") != before.get(k, "")
    return out


def stack_differs(value: str, expected: str) -> bool:
    """Whether a ``#stack`` reading (``stack_reading``) disagrees with the content a position expects."""
    return expected == value[len(NOT) :] if value.startswith(NOT) else expected != value


@dataclass(frozen=True)
class Reading:
    value: Value
    confidence: float = 1.0
    others: tuple = ()  # ((value, margin behind ``value``), ...): runner-ups weighed (tile faces)


@dataclass
class Observation:
    """One settled look at the table."""

    frame: int  # index of the frame it was read from
    t: float  # that frame's timestamp, seconds
    readings: dict[str, Reading] = field(default_factory=dict)
    boards_read: tuple[str, ...] = ()  # boards that were settled and read in this frame
    boards_unread: dict[str, str] = field(default_factory=dict)  # board -> why not read ("hand", "motion", "out of view")
    warnings: tuple[str, ...] = ()

    def value(self, key: str, default=None):
        r = self.readings.get(key)
        return default if r is None else r.value

    def to_json(self) -> dict:
        def enc(v):
            return {k: n for k, n in v} if isinstance(v, tuple) else v

        return {"format": FORMAT, "frame": self.frame, "t": round(self.t, 4),
                "readings": {k: _reading_json(r, enc) for k, r in sorted(self.readings.items())},
                "boards_read": list(self.boards_read), "boards_unread": dict(self.boards_unread), "warnings": list(self.warnings)}

    @classmethod
    def from_json(cls, d: dict) -> "Observation":
        def dec(v):
            return pieces(v) if isinstance(v, dict) else v

        return cls(frame=int(d["frame"]), t=float(d["t"]),
                   readings={k: Reading(dec(r["value"]), float(r.get("confidence", 1.0)),
                                        tuple((v, float(m)) for v, m in r.get("others", ()))) for k, r in d.get("readings", {}).items()},
                   boards_read=tuple(d.get("boards_read", ())), boards_unread=dict(d.get("boards_unread", {})),
                   warnings=tuple(d.get("warnings", ())))


def _reading_json(r: Reading, enc) -> dict:
    out = {"value": enc(r.value), "confidence": round(r.confidence, 4)}
    if r.others:
        out["others"] = [[v, round(m, 4)] for v, m in r.others]
    return out
