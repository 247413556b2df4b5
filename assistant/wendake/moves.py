"""Wendake's moves: every decision a player makes, as a typed, immutable value with its parameters.

A turn (W-RND-3) is a short sequence of moves by one player:
  free moves (Transfer, Swap) at any point of the turn outside an action, then exactly one placement
  (Activate or ReserveTurnOrder), then the activated tile's actions top to bottom (each optional; one that
  is skipped is given up), then EndTurn.
The restore phase asks each player, in the new turn order, for one Restore move (W-RES-4).

Hidden or random outcomes (a drawn mask card, the smallpox blanket, the order of shuffled tiles, the tile
that refills the display) are parameters of the move: at a real table the box supplies them. Where the
engine already knows the outcome (a simulated box), a parameter left as None takes it.

Each move converts to JSON as ``{"type": <name>, ...fields}``; grid slots are ``[row, col]``.

Every move has a schema: its fields' annotations (a string, an integer >= 0, a flag, a ``[row, col]`` pair, a
tuple of names, a nested Step/Victim/Purchase). ``move_from_json`` builds only moves that fit it and
``validate_move`` checks one built in Python; both raise ``InvalidMoveError`` naming the field, what it holds
and the form it needs. ``rules.check`` and ``rules.apply`` run ``validate_move`` first, so a move that reaches
the rules has the types its rules expect. ``MoveError`` is the base of every error the engine raises about a
move (``InvalidMoveError`` here, ``rules.IllegalMoveError``); it is a ValueError for older callers.
"""

from __future__ import annotations

import reprlib
from dataclasses import MISSING, dataclass, fields
from types import UnionType
from typing import ClassVar, Union, get_args, get_origin, get_type_hints

from assistant.table.moveerrors import InvalidMoveError
from assistant.table.moveerrors import MoveError as MoveError

Slot = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Activate:
    """Place an action marker on a grid tile and activate it (W-TURN-1, line rule W-LINE-2)."""

    slot: Slot
    type: ClassVar[str] = "activate"


@dataclass(frozen=True, slots=True)
class ReserveTurnOrder:
    """Place the marker on the leftmost empty turn-order space (W-TO-1)."""

    type: ClassVar[str] = "reserve_turn_order"


@dataclass(frozen=True, slots=True)
class EndTurn:
    """Finish the turn; any actions of the tile left unresolved are given up. ``again``: Ojibwa's black marker
    was placed, so the same player places another marker at once (W-TRB-4, once per year)."""

    again: bool = False
    type: ClassVar[str] = "end_turn"


@dataclass(frozen=True, slots=True)
class Canoe:
    """W-ACT-2: put a canoe from the reserve on a lake."""

    lake: str
    type: ClassVar[str] = "canoe"


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a Move (W-MOV-2, W-FIGHT).

    ``frm`` is the territory where the moving warrior stands as a guard; ``to`` is that same territory or an
    adjacent one. ``place`` says what the step does there:
      "guard"        stand as a guard in ``to`` (``to`` must be adjacent);
      "outpost"      lie as an outpost in the empty productive area ``pa`` of ``to``;
      "attack_guard" attack a guard of player ``target`` in ``to``: both are injured (W-FIGHT-2);
      "attack_pa"    attack the occupant of productive area ``pa`` in ``to`` (W-FIGHT-3).
    """

    frm: str
    to: str
    place: str
    pa: int | None = None
    target: int | None = None
    mohawk: bool = False  # the black Mohawk warrior is the one moving (yours) or the one attacked (W-TRB-3)


@dataclass(frozen=True, slots=True)
class Move:
    """W-ACT-3: up to N steps shared among the player's guards, resolved in the order given."""

    steps: tuple[Step, ...]
    type: ClassVar[str] = "move"


@dataclass(frozen=True, slots=True)
class Harvest:
    """W-ACT-4."""

    type: ClassVar[str] = "harvest"


@dataclass(frozen=True, slots=True)
class Hunt:
    """W-ACT-5."""

    type: ClassVar[str] = "hunt"


@dataclass(frozen=True, slots=True)
class TanPelts:
    """W-ACT-6: all beavers become leather."""

    type: ClassVar[str] = "tan"


@dataclass(frozen=True, slots=True)
class Fish:
    """W-ACT-7."""

    type: ClassVar[str] = "fish"


@dataclass(frozen=True, slots=True)
class Military:
    """W-ACT-8: claim turtle tiles (type ids such as "women-4"), then score majorities."""

    turtles: tuple[str, ...] = ()
    use: tuple[str, ...] = ()  # progress tiles flipped for this action: the alliances (W-PRG-L1-2, L3-2)
    type: ClassVar[str] = "military"


@dataclass(frozen=True, slots=True)
class MaskCeremony:
    """W-ACT-9: draw from "deck" or "discard" (``card`` is the card drawn; ``flip`` the deck card turned up
    when the last discard is taken), then optionally play ``cards`` from hand onto the empty ``space``."""

    source: str
    card: str | None = None
    space: str | None = None
    cards: tuple[str, ...] = ()
    flip: str | None = None
    use: tuple[str, ...] = ()  # progress tiles flipped for this action (W-PRG-L1-5/6, L2-5/6, L3-5/6)
    source2: str | None = None  # Draw two (L1-5): the second draw, its card and flip, and the card discarded
    # (discard None: an unknown card of a hidden hand, as the tracker knows hands)
    card2: str | None = None
    flip2: str | None = None
    discard: str | None = None
    recall: str | None = None  # Recall (L2-5) under the one-card option: the played card taken back
    wild: str | None = None  # Wild (L2-6): the played card that counts as mask type ``wild_as``
    wild_as: str | None = None
    phantom: str | None = None  # Phantom card (L3-6): the mask type of the imagined extra card
    type: ClassVar[str] = "mask"


@dataclass(frozen=True, slots=True)
class Victim:
    """The native a player gives up to smallpox (W-ACT-10b): a guard, or the occupant of a productive area."""

    territory: str
    pa: int | None = None  # None: a guard
    mohawk: bool = False  # the black Mohawk guard is the victim (W-TRB-3: smallpox sends it to the Long House)


@dataclass(frozen=True, slots=True)
class Purchase:
    """Buy a face-up progress tile (W-ACT-10c), paying ``pay`` (resource names, one per resource given).
    ``track`` chooses among tied Lowest/Highest tracks (W-PRG-2)."""

    tile: str
    pay: tuple[str, ...]
    track: str | None = None
    discounts: tuple[str, ...] = ()  # discount tiles flipped for this purchase (W-PRG-L1-7, L2-8, L3-8)
    flag: str | None = None  # an Alliance tile's flag, where there is a choice (W-PRG-L1-2)


@dataclass(frozen=True, slots=True)
class Trade:
    """W-ACT-10: (a) exchanges (give, get), (b) the smallpox card and victim, (c) purchase, (d) points."""

    exchanges: tuple[tuple[str, str], ...] = ()
    smallpox_card: str | None = None
    victim: Victim | None = None
    purchases: tuple[Purchase, ...] = ()
    points: tuple[str, ...] = ()
    use: tuple[str, ...] = ()  # Extra exchange (W-PRG-L1-8)
    skip_smallpox: bool = False  # with Extra exchange: the smallpox card is not drawn (optional under 000/002)
    type: ClassVar[str] = "trade"


@dataclass(frozen=True, slots=True)
class SacredFire:
    """W-ACT-11: activate another tile of the grid; it takes the Fire marker."""

    slot: Slot
    type: ClassVar[str] = "sacred_fire"


@dataclass(frozen=True, slots=True)
class Ritual:
    """W-ACT-12: bring natives (kinds) from the Long House Home, then score the smallest Home group."""

    natives: tuple[str, ...] = ()
    use: tuple[str, ...] = ()  # W-PRG-L1-4, L2-3, L3-3
    steps: tuple["Step", ...] = ()  # Ritual bonus (L1-4): then move 1 warrior 1 step
    type: ClassVar[str] = "ritual"


@dataclass(frozen=True, slots=True)
class Transfer:
    """W-XFER-2: an outpost goes Home as a guard; ``replace`` puts a woman or hunter from the Home stack
    into the productive area it left."""

    territory: str
    pa: int
    replace: bool = True
    as_guard: bool = False  # Transfer as guard (W-PRG-L2-2): stand up in its own territory instead of going Home
    type: ClassVar[str] = "transfer"


@dataclass(frozen=True, slots=True)
class Swap:
    """W-SWAP-1: spend a swap token to exchange two grid tiles that hold no action marker."""

    a: Slot
    b: Slot
    type: ClassVar[str] = "swap"


@dataclass(frozen=True, slots=True)
class Restore:
    """W-RES-4: optionally set aside one of the 3 tiles below the grid (``set_aside`` is its tile id) and
    take a display tile or an own set-aside tile (``take``); ``order`` is the shuffled row 0, left to right;
    ``refill`` is the tile that refills the display when a display tile was taken."""

    set_aside: str | None = None
    take: str | None = None
    order: tuple[str, ...] = ()
    refill: str | None = None
    type: ClassVar[str] = "restore"


@dataclass(frozen=True, slots=True)
class UseProgress:
    """Flip a progress tile with an "any time on your turn" ability (W-PRG-3) and use it.

    Parameters by ability: ``steps`` (L1-1, L2-1, L3-1 moves), ``resources`` (taken: L1-9, L2-9, L3-9; spent
    for points: L1-10, L2-10, L3-10), ``track`` (where the points go; the target of L2-4), ``from_track``
    (L2-4), ``exchanges`` (L2-7), ``natives`` (L3-4), ``slot`` (the tile L3-7 turns over). L1-3 needs none.
    """

    tile: str
    steps: tuple[Step, ...] = ()
    resources: tuple[str, ...] = ()
    track: str | None = None
    from_track: str | None = None
    exchanges: tuple[tuple[str, str], ...] = ()
    natives: tuple[str, ...] = ()
    slot: Slot | None = None
    type: ClassVar[str] = "use_progress"


@dataclass(frozen=True, slots=True)
class GhostCard:
    """Solo: the mask card revealed for the Ghost at the start of the year (W-SOLO-8); None takes the deck top."""

    card: str | None = None
    type: ClassVar[str] = "ghost_card"


@dataclass(frozen=True, slots=True)
class GhostAction:
    """Solo: the Ghost's next action as its card line dictates (W-SOLO-9, W-SOLO-10). ``track`` picks the score
    track for a score step (default: its lower track)."""

    track: str | None = None
    type: ClassVar[str] = "ghost_action"


@dataclass(frozen=True, slots=True)
class GhostRestore:
    """Solo restore 2.B for the Ghost: remove the advanced tile above its disk, refill, move right (W-SOLO-11)."""

    refill: str | None = None
    type: ClassVar[str] = "ghost_restore"


WendakeMove = Union[Activate, ReserveTurnOrder, EndTurn, Canoe, Move, Harvest, Hunt, TanPelts, Fish, Military,
                    MaskCeremony, Trade, SacredFire, Ritual, Transfer, Swap, Restore, UseProgress, GhostCard,
                    GhostAction, GhostRestore]
GHOST_MOVES = (GhostCard, GhostAction, GhostRestore)
MOVE_TYPES = {cls.type: cls for cls in WendakeMove.__args__}
# The move types that resolve a printed action, by the action kind they resolve.
ACTION_MOVES = {"canoe": Canoe, "move": Move, "harvest": Harvest, "hunt": Hunt, "tan": TanPelts, "fish": Fish,
                "military": Military, "mask": MaskCeremony, "trade": Trade, "sacred_fire": SacredFire,
                "ritual": Ritual}
KIND_OF_MOVE = {cls: kind for kind, cls in ACTION_MOVES.items()}


def _encode(value):
    if isinstance(value, (Step, Victim, Purchase)):
        return {f.name: _encode(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    return value


def move_to_json(move) -> dict:
    out = {"type": move.type}
    for f in fields(move):
        out[f.name] = _encode(getattr(move, f.name))
    return out


# The rule each move type carries out (docs/wendake-engine.md's table), cited in schema errors.
MOVE_RULES = {"activate": "W-TURN-1", "reserve_turn_order": "W-TO-1", "end_turn": "W-RND-2", "canoe": "W-ACT-2",
              "move": "W-ACT-3", "harvest": "W-ACT-4", "hunt": "W-ACT-5", "tan": "W-ACT-6", "fish": "W-ACT-7",
              "military": "W-ACT-8", "mask": "W-ACT-9", "trade": "W-ACT-10", "sacred_fire": "W-ACT-11",
              "ritual": "W-ACT-12", "transfer": "W-XFER-2", "swap": "W-SWAP-1", "restore": "W-RES-4",
              "use_progress": "W-PRG-3", "ghost_card": "W-SOLO-8", "ghost_action": "W-SOLO-9", "ghost_restore": "W-SOLO-11"}
_PARTS = (Step, Victim, Purchase)
_HINTS = {cls: get_type_hints(cls) for cls in (*MOVE_TYPES.values(), *_PARTS)}
_SHORT = reprlib.Repr()
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxlevel = 40, 40, 4, 3, 2


def _fields_of(cls) -> dict:
    return {f.name: _HINTS[cls][f.name] for f in fields(cls)}


def _describe(hint, plural: bool = False) -> str:
    """The form a value of this annotation takes, in words for the message."""
    if hint == Slot:
        return "grid slots [row, col], two integers 0..2" if plural else "a grid slot [row, col] of two integers 0..2"
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, UnionType):
        return f"null or {_describe([a for a in args if a is not type(None)][0])}"
    if origin is tuple and args[-1] is Ellipsis:
        return f"a list of {_describe(args[0], plural=True)}"
    if origin is tuple:
        return f"{'pairs' if plural else 'a pair'} of {_describe(args[0], plural=True)}"  # the fixed tuples hold one type
    if hint in _PARTS:
        return f"{'' if plural else 'a '}{hint.__name__.lower()} object{'s' if plural else ''} {{{', '.join(f.name for f in fields(hint))}}}"
    return {bool: ("true or false", "true or false"), int: ("an integer 0 or more", "integers 0 or more"),
            str: ("a string", "strings")}[hint][plural]


def _fitter(hint):
    """A function of a value: None when it fits ``hint``, else (the path inside it, the part that does not fit,
    that part's form). Built once per field: ``check`` runs it on every move it sees."""
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, UnionType):
        inner = _fitter([a for a in args if a is not type(None)][0])
        return lambda value: None if value is None else inner(value)
    if origin is tuple:
        items = (_fitter(args[0]),) if args[-1] is Ellipsis else tuple(_fitter(a) for a in args)
        size = None if args[-1] is Ellipsis else len(args)

        def fits_tuple(value):
            if type(value) is not tuple or (size is not None and len(value) != size):
                return "", value, hint
            for i, item in enumerate(value):
                bad = items[0 if size is None else i](item)
                if bad is not None:
                    return f"[{i}]" + bad[0], bad[1], bad[2]
            return None
        return fits_tuple
    if hint in _PARTS:
        parts = tuple((name, _fitter(inner)) for name, inner in _fields_of(hint).items())

        def fits_part(value):
            if type(value) is not hint:
                return "", value, hint
            for name, fits in parts:
                bad = fits(getattr(value, name))
                if bad is not None:
                    return f".{name}" + bad[0], bad[1], bad[2]
            return None
        return fits_part
    if hint is int:
        return lambda value: None if type(value) is int and value >= 0 else ("", value, hint)
    return lambda value: None if type(value) is hint else ("", value, hint)


_FITTERS = {cls: tuple((name, _fitter(hint)) for name, hint in _fields_of(cls).items()) for cls in MOVE_TYPES.values()}


def validate_move(move) -> None:
    """Raise InvalidMoveError unless ``move`` is a Wendake move whose every field fits its schema."""
    cls = type(move)
    if MOVE_TYPES.get(getattr(cls, "type", None)) is not cls:
        raise InvalidMoveError(f"{_SHORT.repr(move)} is not a Wendake move; use one of the classes in "
                               "assistant.wendake.moves (or move_from_json).")
    for name, fits in _FITTERS[cls]:
        bad = fits(getattr(move, name))
        if bad is not None:
            path, value, form = bad
            rule = MOVE_RULES[cls.type]
            raise InvalidMoveError(f"move {cls.type!r} ({rule}): {name}{path} holds {_SHORT.repr(value)}; "
                                   f"it must be {_describe(form)}.")


def _from_json(hint, value):
    """A JSON value in the Python form ``hint`` asks for, where the shapes agree (``validate_move`` judges the rest)."""
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, UnionType):
        return None if value is None else _from_json([a for a in args if a is not type(None)][0], value)
    if origin is tuple and isinstance(value, list):
        if args[-1] is Ellipsis:
            return tuple(_from_json(args[0], item) for item in value)
        return tuple(_from_json(a, item) for a, item in zip(args, value)) if len(value) == len(args) else tuple(value)
    if hint in _PARTS and isinstance(value, dict):
        return _build(hint, value, hint.__name__.lower())
    return value


def _build(cls, d: dict, label: str):
    known = _fields_of(cls)
    for key in d:
        if key not in known:
            raise InvalidMoveError(f"{label} has no field {_SHORT.repr(key)}; its fields are {', '.join(known)}.")
    missing = [f.name for f in fields(cls) if f.name not in d and f.default is MISSING and f.default_factory is MISSING]
    if missing:
        raise InvalidMoveError(f"{label} needs the field{'s' if len(missing) > 1 else ''} {', '.join(missing)}.")
    return cls(**{key: _from_json(known[key], value) for key, value in d.items()})


def move_from_json(d: dict):
    """Build a move from JSON; raises InvalidMoveError naming the field at fault and the form it needs."""
    if not isinstance(d, dict) or "type" not in d:
        raise InvalidMoveError("a move must be an object with a 'type', such as {\"type\": \"activate\", \"slot\": [0, 1]}.")
    cls = MOVE_TYPES.get(d["type"]) if isinstance(d["type"], str) else None
    if cls is None:
        raise InvalidMoveError(f"unknown move type {_SHORT.repr(d['type'])}; known: {', '.join(sorted(MOVE_TYPES))}.")
    move = _build(cls, {k: v for k, v in d.items() if k != "type"}, f"move {cls.type!r}")
    validate_move(move)
    return move
