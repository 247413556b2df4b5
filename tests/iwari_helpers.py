"""Helpers for the Iwari rules tests: a game with a fixed first player, and arranging a position (hands, tents,
totems, the deck) the way a table could be, cards and pieces conserved.

Standard map (schematic, ``assistant/iwari/data/maps/standard.json``): T01 tundra S01-S04, T02 forest S05-S09,
T03 glaciers S10-S12, T04 coast S13-S16, T05 coast S17-S21, T06 desert S22-S27, T07 tundra S28-S31,
T08 forest S32-S34, T09 glaciers S35-S38, T10 tundra S39-S43, T11 coast S44-S47, T12 desert S48-S50.
"""

from __future__ import annotations

from assistant.iwari import moves as M
from assistant.iwari import rules
from assistant.iwari.invariants import invariant_errors
from assistant.iwari.observer import PLAY_AREA, PLAYED, expected_readings, play_space_key, play_spaces
from assistant.iwari.setup import new_game
from assistant.iwari.state import Turn
from assistant.table.observation import Observation, Reading, camera_values

NAMES = ["Ann", "Bob", "Cy", "Di", "Eve"]


def game(n: int = 4, **options):
    """A new game of ``n`` players, Ann (seat 0) first."""
    return new_game(NAMES[:n], seed=options.pop("seed", 1), first=0, **options)


def give(s, p: int, *cards: str) -> None:
    """Player ``p``'s hand becomes ``cards``: the old hand goes under the deck (or to the discard pile when the deck
    is empty), the cards come out of the deck or, failing that, the discard pile."""
    (s.deck if s.deck else s.discard)[:0] = s.hands[p]
    s.hands[p] = []
    for c in cards:
        pile = s.deck if c in s.deck else s.discard
        i = max(i for i, x in enumerate(pile) if x == c)
        s.hands[p].append(pile.pop(i))


def tent(s, space: str, tribe: int) -> None:
    s.tents[space] = tribe
    s.tents_left[tribe] -= 1


def totem(s, territory: str, tribe: int) -> None:
    s.stacks.setdefault(territory, []).append(tribe)
    s.totems_left[tribe] -= 1


def supply(s, tribe: int, tents: int | None = None, totems: int | None = None) -> None:
    """Tribe ``tribe`` has ``tents`` / ``totems`` left (its set shrunk to match what is placed, I-NIT-2)."""
    s.supply = [list(x) for x in s.supply]
    if tents is not None:
        s.supply[tribe][0] += tents - s.tents_left[tribe]
        s.tents_left[tribe] = tents
    if totems is not None:
        s.supply[tribe][1] += totems - s.totems_left[tribe]
        s.totems_left[tribe] = totems


def play(s, *moves) -> None:
    """Play ``moves`` in turn, checked; the state keeps its invariants."""
    for m in moves:
        rules.apply(s, m)
        assert invariant_errors(s) == [], m


def rules_of(violations) -> list[str]:
    return [v.rule for v in violations]


def finish_turn(s) -> None:
    """Refill from the deck and end the turn."""
    while len(s.hands[s.current]) < s.hand_size and s.deck:
        play(s, M.Draw())
    play(s, M.EndTurn())


def new_turn(s, p: int) -> None:
    """Player ``p``'s turn starts now (the play area cleared to the discard pile)."""
    s.discard += s.played
    s.played = []
    s.current = p
    s.turn = Turn(p)


def look(tracker, readings: dict, weak: dict | None = None) -> list:
    """The events of one look: ``readings`` read sure, those in ``weak`` at the confidence it gives."""
    weak = weak or {}
    return tracker.observe(Observation(1, 1.0, {k: Reading(v, weak.get(k, 1.0)) for k, v in readings.items()}))


def spaces_look(s, changes: dict, spaces: list) -> Observation:
    """A look at ``s`` with ``changes`` read surely on the map, and the play spaces read as ``spaces`` (Readings, the
    rest bare): what the camera gives, the play area as its spaces."""
    readings = {k: Reading(v, 1.0) for k, v in camera_values(expected_readings(s)).items() if k not in (PLAYED, PLAY_AREA)}
    readings.update({k: Reading(v, 1.0) for k, v in changes.items()})
    for i in range(1, len(play_spaces()) + 1):
        readings[play_space_key(i)] = spaces[i - 1] if i <= len(spaces) else Reading(None, 1.0)
    return Observation(1, 1.0, readings)
