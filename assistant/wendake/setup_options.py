"""How a Wendake game is set up at a table: the set-up wizard's choices, its form checked, and a session's new state.

- :func:`setup_options` -> the choices the wizard offers (player counts, colours, tribes, track pairings, boards);
- :func:`parse_setup` (the wizard's JSON form) -> the options ``GameSession.create`` passes to ``GAME.new_state``,
  ``UserError`` with one line for bad input;
- :func:`new_state` builds the initial state from those options (W-SET; the solo game, W-SOLO-1..6);
- :func:`setup_record` -> the set-up as the game log keeps it beside the initial state.
"""

from __future__ import annotations

import re

from assistant.errors import UserError
from assistant.wendake.edition import load_edition
from assistant.wendake.referee import new_solo_game
from assistant.wendake.setup import PlayerSetup, new_game
from assistant.wendake.state import Options, State

PAIRINGS = {  # the three ways to split the four tracks into two pairs (W-SET-2)
    "economic+military": [["economic", "military"], ["ritual", "mask"]],
    "economic+ritual": [["economic", "ritual"], ["military", "mask"]],
    "economic+mask": [["economic", "mask"], ["military", "ritual"]],
}
BOARD_ROLES = {  # wizard role -> (layout name prefix, default built-in)
    "map": ("wendake-map", None),
    "mask": ("wendake-mask", "wendake-mask"),
    "scores-a": ("wendake-scores", "wendake-scores-a"),
    "scores-b": ("wendake-scores", "wendake-scores-b"),
    **{f"village-{i}": ("wendake-village", f"wendake-village-{i}") for i in range(1, 5)},
}
REQUIRED_BOARD = ("map", "choose the map's layout (wendake-map-2p/3p/4p for the player count, or your own traced map).")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._'-]{0,23}$")


def setup_options() -> dict:
    """The wizard's choices: ``player_counts``, ``colours``, ``tribes`` ({id: name}), ``pairings`` ({key: two
    pairs}), ``boards`` ({role: (layout name prefix, default built-in or None)}) and ``required_board`` ((role,
    what to say when it is missing))."""
    ed = load_edition()
    return {"player_counts": list(range(ed.min_players, ed.max_players + 1)), "colours": list(ed.colours),
            "tribes": {k: t.get("name", k) for k, t in ed.tribes.items()}, "pairings": PAIRINGS,
            "boards": BOARD_ROLES, "required_board": REQUIRED_BOARD}


def parse_setup(body: dict) -> dict:
    """Check the wizard's game form; return the ``GameSession.create`` options. UserError on bad input."""
    ed = load_edition()
    players = body.get("players")
    if not isinstance(players, list) or not ed.min_players <= len(players) <= ed.max_players:
        raise UserError(f"Wendake needs {ed.min_players} to {ed.max_players} players; add or remove players.")
    names, colours, tribes = [], [], []
    for i, p in enumerate(players, 1):
        if not isinstance(p, dict):
            raise UserError(f"player {i}: expected name, colour and tribe.")
        name = str(p.get("name", "")).strip()
        if not NAME_RE.match(name):
            raise UserError(f"player {i}: the name must be 1-24 letters, digits, spaces or . _ ' - (starting with a letter or digit).")
        colour = p.get("colour")
        if colour not in ed.colours:
            raise UserError(f"player {i} ({name}): colour must be one of {', '.join(ed.colours)}.")
        tribe = p.get("tribe") or None
        if tribe is not None and tribe not in ed.tribes:
            raise UserError(f"player {i} ({name}): unknown tribe {tribe!r}; choose one of {', '.join(ed.tribes)} or none.")
        names.append(name)
        colours.append(colour)
        tribes.append(tribe)
    if len({n.lower() for n in names}) != len(names):
        raise UserError("two players have the same name; give each player their own name.")
    if len(set(colours)) != len(colours):
        raise UserError("two players have the same colour; each player needs their own colour.")
    if len({t for t in tribes if t}) != len([t for t in tribes if t]):
        raise UserError("two players chose the same tribe; each tribe card is unique.")
    pairs = body.get("pairs") or "random"
    if pairs != "random" and pairs not in PAIRINGS:
        raise UserError(f"track pairs must be 'random' or one of {', '.join(PAIRINGS)}.")
    seed = body.get("seed")
    if seed in ("", None):
        seed = None
    else:
        try:
            seed = int(seed)
        except (TypeError, ValueError):
            raise UserError("the seed must be a whole number, or empty for a random setup.") from None
    out = {"players": names, "colours": colours, "seed": seed, "pairs": None if pairs == "random" else PAIRINGS[pairs]}
    if any(tribes):
        out["tribes"] = tribes
    return out


def new_state(players, seed: int | None = None, colours=None, pairs=None, turn_order=None, options: dict | None = None,
              tribes=None, solo: bool = False, difficulty: str = "medium", **more) -> State:
    """A new game for a session: ``players`` (names), one colour, one tribe id (or None) per player (W-TRB), the track
    ``pairs`` and ``turn_order`` (dealt at random from ``seed`` when None), the rule ``options`` in force (spec
    section 20, as JSON); ``solo`` (and any game of one player): one player against the Ghost (W-SOLO-1..6),
    ``difficulty`` easy, medium or hard. ``more`` goes to ``setup.new_game``. UserError for a set-up that cannot be."""
    names = [players] if isinstance(players, str) else list(players)
    if solo or len(names) == 1:
        return new_solo_game(names, colours=colours, seed=seed, difficulty=difficulty, tribes=tribes, options=options)
    colours = list(colours) if colours else [None] * len(names)
    if len(colours) != len(names):
        raise UserError(f"{len(names)} players but {len(colours)} colours; give one colour per player.")
    if tribes is not None and len(tribes) != len(names):
        raise UserError(f"{len(names)} players but {len(tribes)} tribes; give one tribe (or null) per player.")
    opts = options if isinstance(options, Options) else Options.from_json(options) if options else Options()
    try:
        return new_game([n if isinstance(n, PlayerSetup) else PlayerSetup(n, c) for n, c in zip(names, colours)], seed=seed, pairs=pairs,
                        turn_order=turn_order, options=opts, tribes=list(tribes) if tribes is not None else None, **more)
    except (ValueError, KeyError) as exc:
        raise UserError(f"cannot set up this game: {exc}") from None


def setup_record(state: State) -> dict:
    """The set-up as the game log keeps it beside the initial state: the players' ``players`` (names, in seat
    order, the Ghost's too), ``colours`` and ``tribes``, and the ``solo`` difficulty (None for a game of 2-4)."""
    return {"players": [p.name for p in state.players], "colours": [p.colour for p in state.players],
            "tribes": [p.tribe for p in state.players], "solo": state.solo.difficulty if state.solo else None}
