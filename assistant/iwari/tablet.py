"""Iwari's part of the tablet: its part of the session's snapshot, its alerts in the players' words, its taps, and
the set-up wizard's choices.

The snapshot part (``snapshot``) holds: ``phase``, ``year`` (the round) and ``stage`` (the round and the journey in
words), ``current`` / ``current_name``, the players with their tribe colour, ``score`` (so far), ``projected_total``
(so far plus what the next scoring would give now), supply and cards in hand, the 2-player ``third_tribe``, the
``leader`` (best projected total, None before any point), the map, the cards (``deck``: cards left until the next
scoring, ``next_scoring``: "half journey" or "end", ``deck_text`` in words), what the next scoring would give now
(``scoring_now``) and the breakdown of each scoring made (``half_scoring``, ``final_scoring``), both as
``assistant.iwari.scoreboard.breakdown`` gives them (per territory and per connection: who holds each majority and
what it is worth), ``results`` once over (``scoreboard.results``) and one entry per move (text and score change per
tribe colour; ``round_label`` "R3", the move log's tag for round 3).
"""

from __future__ import annotations

import re

from assistant.errors import UserError
from assistant.iwari.describe import describe
from assistant.iwari.edition import load_edition
from assistant.iwari.edits import apply_edit
from assistant.iwari.maps import builtin_map, map_names
from assistant.iwari.moves import move_to_json
from assistant.iwari.rules import apply
from assistant.iwari.scoreboard import breakdown, next_scoring, results
from assistant.iwari.setup import new_game
from assistant.iwari.state import State, map_ref

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._'-]{0,23}$")
BOARD_ROLES = {"map": ("iwari-", "iwari-standard"), "display": ("iwari-display", "iwari-display")}
REQUIRED_BOARD = ("map", "choose the map's layout (iwari-standard or a special map, or your own traced map).")


# ---- the snapshot ------------------------------------------------------------------------------------------------
def snapshot(initial: State, moves: list, edits: dict, state: State) -> dict:
    """Iwari's part of the tablet's snapshot for ``moves`` (with ``edits``) from ``initial``, now at ``state``."""
    st = state
    entries, at_half = _move_log(initial, moves, edits)
    over = st.phase == "over"
    now = None if over else breakdown(st, final=next_scoring(st))
    projected = results(st)
    totals = {p["tribe"]: p["total"] for p in [*projected["players"], projected["third_tribe"] or {}] if p}
    players = [
        {
            "index": i,
            "name": p.name,
            "colour": st.tribes[i],
            "score": st.scores[i],
            "projected_total": totals[st.tribes[i]],
            "tents_left": st.tents_left[i],
            "totems_left": st.totems_left[i],
            "cards": len(st.hands[i]),
            "is_current": st.current == i and not over,
        }
        for i, p in enumerate(st.players)
    ]
    third = None
    if st.third is not None:
        k = st.third
        third = {
            "colour": st.tribes[k],
            "score": st.scores[k],
            "projected_total": totals[st.tribes[k]],
            "tents_left": st.tents_left[k],
            "totems_left": st.totems_left[k],
        }
    half = None
    if at_half is not None:
        before = [s - st.half["totals"][c] for s, c in zip(at_half.scores, at_half.tribes)]
        half = breakdown(at_half, final=False, score_track=before) | {"round": at_half.year}
    elif st.half is not None:  # scored before the line starts (a game set up from a recorded state): its points only
        half = {
            "scoring": "half",
            "error": "the half journey was scored before this game's moves start; its points per territory are in the tally.",
            "tally": st.half,
        }
    final = None
    if st.final is not None:
        final = breakdown(st, final=True, score_track=[s - st.final["totals"][c] for s, c in zip(st.scores, st.tribes)])
    return {
        "phase": st.phase,
        "year": st.year,
        "stage": _stage(st),
        "current": None if over else st.current,
        "current_name": None if over else st.players[st.current].name,
        "players": players,
        "third_tribe": third,
        "leader": projected["winner"] if any(totals.values()) and not over else None,
        "map": {"name": st.map.name, "title": st.map.title, "special": st.map.special},
        "display": list(st.display),
        "deck": len(st.deck),
        "next_scoring": "end" if next_scoring(st) else "half journey",
        "deck_text": _deck_text(st),
        "end_triggered": st.end,
        "scoring_now": now,
        "half_scoring": half,
        "final_scoring": final,
        "results": projected if over else None,
        "moves": entries,
    }


def _stage(st: State) -> str:
    """Where the journey is, in words (the hub shows it beside the table)."""
    if st.phase == "over":
        return "Game over"
    journey = "after the half journey" if next_scoring(st) else "before the half journey"
    if st.end is not None:
        journey = "the last round (I-END-2)"
    return f"Round {st.year}, {journey}"


def _deck_text(st: State) -> str:
    if st.phase == "over":
        return "The journey is over."
    if st.end is not None:
        why = "a tribe placed its last tent" if st.end == "tents" else "the deck ran out a second time"
        return f"The end is triggered ({why}, I-END-1): the final scoring comes when this round is finished (I-END-2)."
    card = "card" if len(st.deck) == 1 else "cards"
    if next_scoring(st):
        return f"{len(st.deck)} {card} in the deck until it runs out again and the end is triggered (I-END-1)."
    return f"{len(st.deck)} {card} in the deck until it runs out: then the half-journey scoring (I-HALF-1)."


def _move_log(initial: State, moves: list, edits: dict) -> tuple[list[dict], State | None]:
    """(one entry per move: round, player, text, move JSON, score change per tribe colour; the state right after
    the move that made the half-journey scoring, or None)."""
    out = []
    at_half = None
    st = initial.copy()
    for k, m in enumerate(moves):
        for e in edits.get(k, ()):
            apply_edit(st, e)
        before = st.copy()
        apply(st, m, validate=False)
        if before.half is None and st.half is not None:
            at_half = st.copy()
        change = {c: st.scores[i] - before.scores[i] for i, c in enumerate(st.tribes) if st.scores[i] != before.scores[i]}
        out.append(
            {
                "index": k,
                "seq": None,
                "year": before.year,
                "round_label": f"R{before.year}",  # the tablet's log tag: Iwari plays rounds, not years
                "player": before.current,
                "name": before.players[before.current].name,
                "text": describe(before, m, st),
                "move": move_to_json(m),
                "scores": change,
            }
        )
    return out, at_half


def alert_words(state: State | None, alert: dict) -> dict:
    """An alert in the players' words: its rule, message and fix, and one line per place to put right. A choice
    between a totem on a stack its tribe tops already and a card swap, or another such stack, says why it is asked
    (``_unseen_totem``)."""
    put_back = alert.get("put_back") or alert.get("differences") or []
    message = alert.get("message", "")
    if alert.get("kind") == "NeedsConfirmation" and _unseen_totem(alert.get("candidates") or []):
        message = (
            "A totem put on a stack its own tribe tops already does not show from above, and a card laid alone may be "
            "a swap (I-TURN-8). The stack's height counts for the totem majorities (I-TOT-2): which was it?"
        )
    return {
        "rules": [alert["rule"]] if alert.get("rule") else [],
        "message": message,
        "fix": alert.get("fix"),
        "fix_lines": [d.get("text", "") for d in put_back if isinstance(d, dict)],
        "boards": [],
    }


def _unseen_totem(candidates: list) -> bool:
    """Whether the candidates differ in where an unseen totem went: a totem in one and a swap, or a totem elsewhere,
    in another (the first move of each, as the tracker lists them)."""
    firsts = []
    for c in candidates:
        moves = c.get("moves") if isinstance(c, dict) else None
        if moves and isinstance(moves[0], dict):
            firsts.append(moves[0])
    totems = {m.get("territory") for m in firsts if m.get("type") == "place" and m.get("piece") == "totem"}
    return bool(totems) and (len(totems) > 1 or any(m.get("type") == "swap" for m in firsts))


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
        "maps": {name: builtin_map(name).title for name in map_names()},
        "modules": {"feats": "I-FEAT", "expeditions": "I-EXP"},
        "readings": {
            key: {"rule": ed.raw[key]["rule"], "default": ed.raw[key]["value"], "choices": ed.raw[key]["choices"]}
            for key in ("totem_cap", "pair")
        },
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
