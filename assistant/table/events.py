"""The tracker's events: what the table core tells the tablet, the log and the programs.

Every event is a dataclass; ``kind`` is its class name and ``to_json`` its payload in the event log.
``event_from_json`` reads a payload back by kind (``EVENT_TYPES``; a game may register a kind of its own there,
as the Wendake Ghost referee does). Moves and edits in an event are the game's move JSON and edit dicts.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class Event:
    """Base of the tracker's events; ``kind`` is the class name, ``to_json`` the payload stored in the log."""

    @property
    def kind(self) -> str:
        return type(self).__name__

    def to_json(self) -> dict:
        return {"kind": self.kind, **asdict(self)}


@dataclass
class MoveRecognized(Event):
    player: int | None
    name: str | None
    moves: list[dict]  # move JSON, in order
    texts: list[str]  # plain-language lines
    score_change: dict[str, int]  # track -> points gained by that player (non-zero only)
    year: int
    cost: float = 0.0  # confidence mass of the readings that disagreed (noise tolerated)
    ignored: list[str] = field(default_factory=list)  # reading keys that disagreed but were tolerated
    # hidden-information edits made before some of these moves: {"at": index into ``moves``, "edit": {...}}
    # (see ``apply_edit``); a resumed game replays them with the moves
    edits: list[dict] = field(default_factory=list)


@dataclass
class IllegalMove(Event):
    alert_id: int
    rule: str
    message: str
    fix: str | None
    player: int | None
    looks_like: dict | None  # the move the difference looks like (move JSON)
    put_back: list[dict]  # {"key", "board", "region", "expected", "seen", "text"}


@dataclass
class NeedsConfirmation(Event):
    alert_id: int
    candidates: list[dict]  # {"index", "moves": [move JSON], "texts": [...], "cost"} best first; 0 was accepted
    message: str = "The table can be explained in more than one way; please confirm what happened."


@dataclass
class ScoreMismatch(Event):
    alert_id: int
    rule: str
    player: int
    name: str
    track: str
    expected: int
    seen: int | None  # the space where the disk was seen, None when it was not seen anywhere
    message: str
    fix: str


@dataclass
class TableOutOfSync(Event):
    alert_id: int
    message: str
    differences: list[dict]  # as IllegalMove.put_back


@dataclass
class AlertCleared(Event):
    alert_id: int
    alert_kind: str
    reason: str


@dataclass
class Correction(Event):
    action: str  # "undo" | "correct" | "confirm" | "switch" (a kept alternative explains the table better)
    removed: list[dict]  # move JSON taken back (the last ``len(removed)`` moves of the log)
    added: list[dict]  # move JSON played
    message: str
    edits: list[dict] = field(default_factory=list)  # hidden-information edits before the added moves (as MoveRecognized)


@dataclass
class SetupCheck(Event):
    """The set-up check (``assistant.table.setup_check``): the first settled look of a new game against the known
    start position. Information for the players, never an alert: it changes no move and needs no answer."""

    ok: bool  # every kind of region reads well enough
    text: str  # one line for the players ("your canoes read as warriors: 3 of 4 canoe spaces misread")
    checked: int  # regions compared
    misread: int  # of those, read otherwise than set up
    by_kind: dict  # region kind -> {"checked", "misread", "examples": [{"key", "board", "region", "expected", "read", "text"}]}
    problems: list  # what reads badly, worst first: {"subject", "checked", "misread", "text", "boards", "keys"}
    boards: list  # the boards of the misread regions (the tablet shows their picture)
    regions: list  # the misread reading keys
    offer_adapt: bool  # learning this table is worth offering
    unread: list = field(default_factory=list)  # boards not read in that look
    doubted: list = field(default_factory=list)  # region kinds read badly: no alert from them until read well again


EVENT_TYPES = {cls.__name__: cls for cls in (MoveRecognized, IllegalMove, NeedsConfirmation, ScoreMismatch,
                                             TableOutOfSync, AlertCleared, Correction, SetupCheck)}


def event_from_json(d: dict) -> Event:
    """The event a ``to_json`` payload stands for (``KeyError`` for a kind not in ``EVENT_TYPES``)."""
    cls = EVENT_TYPES[d["kind"]]
    return cls(**{k: v for k, v in d.items() if k != "kind"})
