"""Iwari's moves: every decision at the table, as a typed, immutable value, and its JSON form.

A turn (I-TURN) is a short sequence of moves by the player whose turn it is, cut where the table changes:

- a regular move is one ``Place`` per piece (I-TURN-1..6): the piece, its territory, its tent space (tents), the
  cards that pay for it (one matching card or a pair, I-TURN-6), placed in the order the player chooses (a tent
  first may raise the totem cap, I-TURN-5); in a 2-player game the third tribe's pieces follow (``third``, I-2P-2);
- or a card swap instead (``Swap``, I-TURN-8): one card discarded, then one ``Draw``;
- then the refill, one ``Draw`` per card, from the deck or a display slot (I-TURN-7);
- a feat earned on the way is placed at once (``PlaceFeat``, I-FEAT);
- ``EndTurn``: the cards played go to the discard pile and the next player's turn begins.

The camera sees pieces land, cards laid in the play area and the display change, never a hand: a deck card drawn is
unknown (``card`` None) unless the move names it. Where the engine knows a hidden outcome (a simulated box) a
parameter left None takes it: a deck draw takes the deck's top card, and so does a display refill.

Each move converts to JSON as ``{"type": <name>, ...fields}``. ``move_from_json`` builds only moves that fit their
schema and ``validate_move`` checks one built in Python; both raise ``InvalidMoveError`` naming the field and the
form it needs. ``MoveError`` is the base of every error the engine raises about a move (a ``ValueError``).
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import ClassVar, Union

from assistant.iwari.maps import COLOURS
from assistant.table.moveerrors import InvalidMoveError
from assistant.table.moveerrors import MoveError as MoveError

PIECES = ("tent", "totem")
FEAT_KINDS = ("union", "discovery", "honour", "respect")
CONNECTION = "connection:"  # a feat on a connection: "connection:<id>" (I-FEAT-6)


@dataclass(frozen=True, slots=True)
class Place:
    """One piece of a regular move (I-TURN-1..6): a ``tent`` on the empty tent ``space`` of ``territory``, or a
    ``totem`` on its stack, paid with ``cards`` (one card of the territory's colour, or a pair of another, I-TURN-6).
    ``third``: a piece of the 2-player third tribe, paid from the cards the player has left (I-2P-2)."""

    piece: str
    territory: str
    cards: tuple[str, ...]
    space: str | None = None
    third: bool = False
    type: ClassVar[str] = "place"


@dataclass(frozen=True, slots=True)
class Draw:
    """One card into the hand (I-TURN-7, I-TURN-8): from the deck (``slot`` None; ``card`` the card drawn, None when
    unseen) or from display slot ``slot`` (1..N), whose card is replaced at once by ``refill`` from the deck (None:
    the deck's top card; nothing once the deck is gone for good, I-END-2)."""

    slot: int | None = None
    card: str | None = None
    refill: str | None = None
    type: ClassVar[str] = "draw"


@dataclass(frozen=True, slots=True)
class Swap:
    """The card swap instead of a regular move (I-TURN-8): discard ``card``; one ``Draw`` follows."""

    card: str
    type: ClassVar[str] = "swap"


@dataclass(frozen=True, slots=True)
class PlaceFeat:
    """Place a feat just earned (I-FEAT-1..4): ``at`` a territory id, or ``connection:<id>`` for Honour and
    Respect (the connection that earned it, I-NIT-9)."""

    feat: str
    at: str
    type: ClassVar[str] = "feat"


@dataclass(frozen=True, slots=True)
class EndTurn:
    """End the turn: the cards in the play area go to the discard pile; the next player in turn order plays
    (I-TURN-9); the journey ends after the round's last turn once it was triggered (I-END-2)."""

    type: ClassVar[str] = "end_turn"


IwariMove = Union[Place, Draw, Swap, PlaceFeat, EndTurn]
MOVE_TYPES = {cls.type: cls for cls in IwariMove.__args__}
MOVE_RULES = {"place": "I-TURN-1", "draw": "I-TURN-7", "swap": "I-TURN-8", "feat": "I-FEAT-5", "end_turn": "I-TURN-9"}

# field -> (the form it needs, the test of a value); enumerated strings are part of the schema
_STR = ("a string", lambda v: type(v) is str)
_OPT_STR = ("null or a string", lambda v: v is None or type(v) is str)
_OPT_COLOUR = (f"null or a card colour ({', '.join(COLOURS)})", lambda v: v is None or v in COLOURS)
_SCHEMA = {
    Place: {
        "piece": (f"one of {', '.join(PIECES)}", lambda v: v in PIECES),
        "territory": _STR,
        "cards": (
            f"a list of 1 or 2 card colours ({', '.join(COLOURS)})",
            lambda v: type(v) is tuple and 1 <= len(v) <= 2 and all(c in COLOURS for c in v),
        ),
        "space": _OPT_STR,
        "third": ("true or false", lambda v: type(v) is bool),
    },
    Draw: {
        "slot": ("null or a display slot number 1 or more", lambda v: v is None or (type(v) is int and v >= 1)),
        "card": _OPT_COLOUR,
        "refill": _OPT_COLOUR,
    },
    Swap: {"card": (f"a card colour ({', '.join(COLOURS)})", lambda v: v in COLOURS)},
    PlaceFeat: {"feat": (f"one of {', '.join(FEAT_KINDS)}", lambda v: v in FEAT_KINDS), "at": _STR},
    EndTurn: {},
}


def move_to_json(move) -> dict:
    """``{"type": ..., fields}``; tuples become lists."""
    out = {"type": move.type}
    for f in fields(move):
        value = getattr(move, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def validate_move(move) -> None:
    """Raise ``InvalidMoveError`` unless ``move`` is an Iwari move whose every field fits its schema."""
    cls = type(move)
    schema = _SCHEMA.get(cls)
    if schema is None:
        raise InvalidMoveError(
            f"{str(move)[:60]} is not an Iwari move; use a class of assistant.iwari.moves (or move_from_json)."
        )
    for name, (form, fits) in schema.items():
        value = getattr(move, name)
        if not _safe(fits, value):
            raise InvalidMoveError(
                f"move {cls.type!r} ({MOVE_RULES[cls.type]}): {name} holds {str(value)[:40]!r}; it must be {form}."
            )


def _safe(fits, value) -> bool:
    try:
        return bool(fits(value))
    except TypeError:  # an unhashable value tested against a tuple of names
        return False


def move_from_json(doc) -> IwariMove:
    """The move ``doc`` describes; ``InvalidMoveError`` naming the field at fault and the form it needs."""
    if not isinstance(doc, dict) or "type" not in doc:
        raise InvalidMoveError('a move must be an object with a "type", such as {"type": "draw", "slot": 2}.')
    cls = MOVE_TYPES.get(doc["type"]) if isinstance(doc["type"], str) else None
    if cls is None:
        raise InvalidMoveError(f"unknown move type {str(doc['type'])[:30]!r}; known: {', '.join(sorted(MOVE_TYPES))}.")
    known = {f.name: f for f in fields(cls)}
    for key in doc:
        if key != "type" and key not in known:
            raise InvalidMoveError(
                f"move {cls.type!r} has no field {str(key)[:30]!r}; its fields are {', '.join(known) or 'none'}."
            )
    missing = [n for n, f in known.items() if n not in doc and f.default is MISSING]
    if missing:
        raise InvalidMoveError(f"move {cls.type!r} needs the field{'s' if len(missing) > 1 else ''} {', '.join(missing)}.")
    args = {k: tuple(v) if isinstance(v, list) else v for k, v in doc.items() if k != "type"}
    move = cls(**args)
    validate_move(move)
    return move
