"""Iwari's part of the tablet: its part of the session's snapshot, its alerts in the players' words, its taps, and
the set-up wizard's choices.

The snapshot part (``snapshot``) holds: ``phase``, ``year`` (the round), ``current`` / ``current_name``, the players
with their tribe colour, score and supply, the 2-player third tribe, the cards (``deck``: cards left until the next
scoring, ``next_scoring``: "half journey" or "end"), what a scoring would give now (``scoring_now``: the half
journey's tents before it, the final scoring's tents, totems, settlements and road after it, per territory and
connection, ``assistant.iwari.scoring.Tally``), the tallies made (``half``, ``final``), ``results`` once over and
one entry per move (text and score change per tribe colour).
"""

from __future__ import annotations

import re

from assistant.errors import UserError
from assistant.iwari.describe import describe
from assistant.iwari.edition import load_edition
from assistant.iwari.edits import apply_edit
from assistant.iwari.maps import map_names
from assistant.iwari.moves import move_to_json
from assistant.iwari.rules import apply
from assistant.iwari.scoring import score
from assistant.iwari.setup import new_game
from assistant.iwari.state import State, map_ref

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._'-]{0,23}$")
BOARD_ROLES = {"map": ("iwari-", "iwari-standard"), "display": ("iwari-display", "iwari-display")}
REQUIRED_BOARD = ("map", "choose the map's layout (iwari-standard or a special map, or your own traced map).")


# ---- the snapshot ------------------------------------------------------------------------------------------------
def snapshot(initial: State, moves: list, edits: dict, state: State) -> dict:
    """Iwari's part of the tablet's snapshot for ``moves`` (with ``edits``) from ``initial``, now at ``state``."""
    st = state
    players = [
        {
            "index": i,
            "name": p.name,
            "colour": st.tribes[i],
            "score": st.scores[i],
            "tents_left": st.tents_left[i],
            "totems_left": st.totems_left[i],
            "cards": len(st.hands[i]),
            "is_current": st.current == i and st.phase == "play",
        }
        for i, p in enumerate(st.players)
    ]
    third = None
    if st.third is not None:
        k = st.third
        third = {"colour": st.tribes[k], "score": st.scores[k], "tents_left": st.tents_left[k], "totems_left": st.totems_left[k]}
    final_now = st.exhaustions >= 1
    now = score(st.map, st.tribes, st.tents_by_colour(), st.totem_counts(), st.feats, final=final_now).to_json()
    results = None
    if st.phase == "over":
        results = {
            "winners": [st.players[i].name for i in st.winners or ()],
            "tie_break": st.tie_break,
            "scores": {st.tribes[i]: s for i, s in enumerate(st.scores)},
            "final": st.final,
        }
    return {
        "phase": st.phase,
        "year": st.year,
        "current": None if st.phase == "over" else st.current,
        "current_name": None if st.phase == "over" else st.players[st.current].name,
        "players": players,
        "third_tribe": third,
        "map": st.map.name,
        "display": list(st.display),
        "deck": len(st.deck),
        "next_scoring": "half journey" if st.exhaustions == 0 else "end",
        "end_triggered": st.end,
        "scoring_now": now,
        "half": st.half,
        "final": st.final,
        "results": results,
        "moves": _move_log(initial, moves, edits),
    }


def _move_log(initial: State, moves: list, edits: dict) -> list[dict]:
    out = []
    st = initial.copy()
    for k, m in enumerate(moves):
        for e in edits.get(k, ()):
            apply_edit(st, e)
        before = st.copy()
        apply(st, m, validate=False)
        change = {c: st.scores[i] - before.scores[i] for i, c in enumerate(st.tribes) if st.scores[i] != before.scores[i]}
        out.append(
            {
                "index": k,
                "seq": None,
                "year": before.year,
                "player": before.current,
                "name": before.players[before.current].name,
                "text": describe(before, m, st),
                "move": move_to_json(m),
                "scores": change,
            }
        )
    return out


def alert_words(state: State | None, alert: dict) -> dict:
    """An alert in the players' words: its rule, message and fix, and one line per place to put right."""
    put_back = alert.get("put_back") or alert.get("differences") or []
    return {
        "rules": [alert["rule"]] if alert.get("rule") else [],
        "message": alert.get("message", ""),
        "fix": alert.get("fix"),
        "fix_lines": [d.get("text", "") for d in put_back if isinstance(d, dict)],
        "boards": [],
    }


def tablet_moves(state: State | None, action: str, payload: dict) -> list[dict]:
    """Iwari has no tablet taps of its own: a move is entered with "this is what happened"."""
    raise UserError(f'Iwari has no tablet action {action!r}; enter the moves with "this is what happened".')


# ---- set-up ------------------------------------------------------------------------------------------------------
def setup_options() -> dict:
    """The wizard's choices: player counts, tribe colours, boards, the maps and the optional modules and readings."""
    ed = load_edition()
    return {
        "player_counts": list(ed.player_counts),
        "colours": list(ed.colours),
        "boards": BOARD_ROLES,
        "required_board": REQUIRED_BOARD,
        "maps": map_names(),
        "modules": ["feats", "expeditions"],
        "readings": {"totem_cap": ed.raw["totem_cap"]["choices"], "pair": ed.raw["pair"]["choices"]},
    }


def parse_setup(body: dict) -> dict:
    """The wizard's game form checked; the ``new_state`` options (``players``, ``seed`` among them). UserError."""
    ed = load_edition()
    players = body.get("players")
    if not isinstance(players, list) or len(players) not in ed.player_counts:
        raise UserError(f"Iwari needs {min(ed.player_counts)} to {max(ed.player_counts)} players; add or remove players.")
    names, colours = [], []
    for i, p in enumerate(players, 1):
        if not isinstance(p, dict):
            raise UserError(f"player {i}: expected a name and a colour.")
        name = str(p.get("name", "")).strip()
        if not NAME_RE.match(name):
            raise UserError(
                f"player {i}: the name must be 1-24 letters, digits, spaces or . _ ' - (starting with a letter or digit)."
            )
        colour = p.get("colour") or ed.colours[i - 1]
        if colour not in ed.colours:
            raise UserError(f"player {i} ({name}): colour must be one of {', '.join(ed.colours)}.")
        names.append(name)
        colours.append(colour)
    if len({n.lower() for n in names}) != len(names):
        raise UserError("two players have the same name; give each player their own name.")
    if len(set(colours)) != len(colours):
        raise UserError("two players have the same colour; each player needs their own colour.")
    chosen = body.get("map") or "standard"
    if chosen not in map_names():
        raise UserError(f"map must be one of {', '.join(map_names())}.")
    out = {
        "players": names,
        "colours": colours,
        "map": chosen,
        "feats": _flag(body, "feats"),
        "expeditions": _flag(body, "expeditions"),
    }
    for reading in ("totem_cap", "pair"):
        value = body.get(reading)
        if value not in (None, ""):
            if value not in ("A", "B"):
                raise UserError(f'{reading} is reading "A" or "B".')
            out[reading] = value
    seed = body.get("seed")
    if seed not in ("", None):
        try:
            out["seed"] = int(seed)
        except (TypeError, ValueError):
            raise UserError("seed must be a whole number, or left empty.") from None
    new_game(names, seed=0, map=chosen, colours=colours)  # the same checks the game makes, before a session starts
    return out


def _flag(body: dict, key: str) -> bool:
    value = body.get(key, False)
    if not isinstance(value, bool):
        raise UserError(f"{key} is true or false.")
    return value


def setup_record(state: State) -> dict:
    """The set-up as the game log keeps it beside the initial state."""
    return {
        "players": [p.name for p in state.players],
        "colours": list(state.tribes[: state.n]),
        "third_tribe": state.tribes[state.third] if state.third is not None else None,
        "map": map_ref(state.map),
        "first": state.first,
        "options": state.options.to_json(),
    }
