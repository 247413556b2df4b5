"""A new Iwari game (I-SET): the cards in play after the removal, shuffled (I-COMP-2, I-SET-1), hands of 3 dealt
(I-NIT-3), the display filled (I-NIT-4), a random first player (I-NIT-5), each tribe's supply (I-NIT-2), and the
optional modules with their edition data. Everything the text leaves out comes from the edition (``edition.py``).
"""

from __future__ import annotations

import random

from assistant.errors import UserError
from assistant.iwari.edition import Edition, load_edition
from assistant.iwari.maps import IwariMap, builtin_map, map_from_json
from assistant.iwari.state import Options, Player, State, Turn

READINGS = ("A", "B")


def resolve_map(choice) -> IwariMap:
    """A map option: a built-in name, an inline map (JSON object) or a map already built."""
    if isinstance(choice, IwariMap):
        return choice
    if isinstance(choice, dict):
        return map_from_json(choice)
    return builtin_map(choice)


def new_game(
    players,
    seed: int | None = None,
    map="standard",
    colours=None,
    feats: bool = False,
    expeditions: bool = False,
    totem_cap: str | None = None,
    pair: str | None = None,
    first: int | None = None,
    edition: Edition | None = None,
) -> State:
    """The set-up of an Iwari game for ``players`` (names, seat order). ``seed`` makes the shuffles and the first
    player repeatable; ``colours`` the players' tribe colours (the edition's first ones by default); ``totem_cap``
    and ``pair`` the readings of I-TURN-5 and I-TURN-6 (the edition's by default); ``first`` the first player's
    seat (random by default). ``UserError`` for a choice that does not fit."""
    ed = edition or load_edition()
    players = [str(p) for p in players]
    n = len(players)
    counts = ed.cards_for(n)  # UserError for an unsupported player count
    if len(set(players)) != n:
        raise UserError("two players have the same name; give each player their own name.")
    colours = list(colours) if colours else list(ed.colours[:n])
    if len(colours) != n or len(set(colours)) != n or any(c not in ed.colours for c in colours):
        raise UserError(f"give each of the {n} players their own tribe colour, one of {', '.join(ed.colours)}.")
    tribes = list(colours)
    if n == 2:  # I-2P-1: the third tribe takes the first colour nobody chose
        tribes.append(next(c for c in ed.colours if c not in colours))
    cap = totem_cap or ed.totem_cap
    pairing = pair or ed.pair
    if cap not in READINGS or pairing not in READINGS:
        raise UserError('totem_cap and pair are readings "A" or "B" (I-TURN-5, I-TURN-6).')
    options = Options(
        feats=bool(feats),
        expeditions=bool(expeditions),
        totem_cap=cap,
        pair=pairing,
        third_can_win=ed.third_can_win,
        third_tents_out_ends=ed.third_tents_out_ends,
        third_earns_feats=ed.third_earns_feats,
        third_scores_expeditions=ed.third_scores_expeditions,
        feat_mountains=ed.feat_mountains,
    )
    rng = random.Random(seed)
    deck = [c for c, k in counts.items() for _ in range(k)]
    rng.shuffle(deck)
    hands = [[deck.pop() for _ in range(ed.hand_size)] for _ in range(n)]
    display = [deck.pop() if deck else None for _ in range(ed.display_size)]
    if first is None:
        first = rng.randrange(n)
    elif not (type(first) is int and 0 <= first < n):
        raise UserError(f"the first player is a seat number from 0 to {n - 1}.")
    supply = [[ed.tents, ed.totems] for _ in range(n)] + ([[ed.third_tents, ed.third_totems]] if n == 2 else [])
    return State(
        players=[Player(name) for name in players],
        tribes=tribes,
        map=resolve_map(map),
        options=options,
        cards=counts,
        hand_size=ed.hand_size,
        deck=deck,
        display=display,
        hands=hands,
        played=[],
        discard=[],
        tents={},
        stacks={},
        supply=supply,
        tents_left=[s[0] for s in supply],
        totems_left=[s[1] for s in supply],
        feat_supply=dict(ed.feats) if feats else {},
        expeditions=[{**c, "done": []} for c in ed.expeditions] if expeditions else [],
        scores=[0] * len(tribes),
        first=first,
        current=first,
        turn=Turn(first),
        turns_taken=[0] * n,
        seed=rng.randrange(2**31),
    )
