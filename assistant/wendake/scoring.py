"""Wendake scoring (W-SCR): turtle points, the 25 cap, the lower track of each pair, swap tokens, tie-break.

Used both by the engine (final result and the live projection) and by the stand-alone tally calculator.
A turtle is ``{"level": 3|4, "track": T}`` or ``{"level": 5, "tracks": [A, B]}``; ``None`` marks a tile
whose hidden side is not known.
"""

from __future__ import annotations

from itertools import product

from assistant.errors import UserError
from assistant.wendake import progress
from assistant.wendake.edition import Edition, load_edition
from assistant.wendake.state import TRACKS, State

TURTLE_POINTS = {3: 1, 4: 2, 5: 2}  # W-TUR-7


def score_player(tracks: dict, turtles: list, pairs, swap_tokens: int, cap: int = 25) -> dict:
    """One player's final score with its breakdown; each L5 turtle goes where it maximises the total."""
    fixed = dict.fromkeys(TRACKS, 0)
    flexible = []
    unknown = 0
    for t in turtles:
        if t is None:
            unknown += 1
        elif t["level"] == 5:
            flexible.append(t)
        else:
            fixed[t["track"]] += TURTLE_POINTS[t["level"]]
    best = None
    for choice in product(*[t["tracks"] for t in flexible]) if flexible else [()]:
        bonus = dict(fixed)
        for track in choice:
            bonus[track] += TURTLE_POINTS[5]
        final = {k: min(cap, tracks[k] + bonus[k]) for k in TRACKS}
        pair_values = [min(final[a], final[b]) for a, b in pairs]
        total = sum(pair_values) + swap_tokens
        if best is None or total > best[0]:
            best = (total, final, bonus, pair_values, choice)
    total, final, bonus, pair_values, choice = best
    return {
        "total": total,
        "tracks": {k: {"before_turtles": tracks[k], "turtles": bonus[k], "final": final[k]} for k in TRACKS},
        "pairs": [{"tracks": list(pair), "values": [final[pair[0]], final[pair[1]]], "counted": v}
                  for pair, v in zip(pairs, pair_values)],
        "swap_tokens": swap_tokens,
        "turtle_choices": [{"level": 5, "tracks": list(t["tracks"]), "chosen": c} for t, c in zip(flexible, choice)],
        "unknown_turtles": unknown,
    }


def rank(totals: list[int], turn_positions: list[int]) -> list[int]:
    """Player indices best first: highest total, ties to the lower turn-order position (W-SCR-3, W-SCR-4)."""
    return sorted(range(len(totals)), key=lambda i: (-totals[i], turn_positions[i]))


def tie_break_note(names: list[str], totals: list[int], positions: list[int], order: list[int]) -> str | None:
    winner = order[0]
    tied = [i for i in order if totals[i] == totals[winner]]
    if len(tied) < 2:
        return None
    others = ", ".join(names[i] for i in tied[1:])
    return (f"{names[winner]} and {others} tie on {totals[winner]}; {names[winner]} wins with the lower "
            f"turn-order marker ({positions[winner] + 1}) (W-SCR-4).")


def engine_turtles(player) -> list:
    """A player's turtle tiles in scoring form (level and hidden track(s)), None where the side is unknown;
    tiles already scored during play (W-SOLO-13) are left out."""
    out = []
    for t in player.turtles:
        if t.get("scored"):  # already on the track (solo option W-SOLO-13)
            continue
        level = int(t["type"].rsplit("-", 1)[1])
        out.append(None if t["hidden"] is None else {"level": level, **t["hidden"]})
    return out


def results(state, include_turtles: bool = True, cap: int = 25) -> dict:
    """Each player's total if the game ended now (the final result once the game is over), and the leader.

    During play turtle values are secret (W-TUR-6); ``include_turtles=False`` leaves them out, as the
    table sees it. A solo game is scored by ``solo_results`` (W-SOLO-12)."""
    if getattr(state, "solo", None) is not None:
        return solo_results(state, include_turtles, cap)
    names = [p.name for p in state.players]
    positions = [state.turn_order.index(i) for i in range(state.n)]
    per = []
    for p in state.players:
        turtles = engine_turtles(p) if include_turtles else []
        per.append({"name": p.name, **score_player(p.tracks, turtles, state.pairs, p.swap_tokens, cap)})
    totals = [x["total"] for x in per]
    order = rank(totals, positions)
    return {"final": state.phase == "over", "players": per, "ranking": [names[i] for i in order],
            "winner": names[order[0]], "tie_break": tie_break_note(names, totals, positions, order)}


def solo_results(state, include_turtles: bool = True, cap: int = 25) -> dict:
    """W-SOLO-12 in the shape of ``results``: the player's normal score plus the objectives met now (each worth
    3/2/1 points by difficulty, W-SOLO-14), against the Ghost's total (the sum of its 2 score disks). The
    player wins only with a strictly greater total: a tie is the Ghost's (``tie_break`` says so). ``solo`` holds
    ``solo_score``'s objectives and difficulty."""
    ed = load_edition()
    solo = state.solo
    res = solo_score(state, ed)
    me_index = next(i for i in range(state.n) if i != solo.ghost)
    me = state.players[me_index]
    if include_turtles:
        score = res["score"]
    else:
        score = score_player(me.tracks, [], state.pairs, me.swap_tokens, cap)
    objective_points = sum(o["points"] for o in res["objectives"])
    gp = state.players[solo.ghost]
    ghost_entry = {
        "name": gp.name, "total": res["ghost_total"], "ghost": True,
        "tracks": {t: {"before_turtles": gp.tracks[t], "turtles": 0, "final": gp.tracks[t]} for t in TRACKS},
        "pairs": [], "score_tracks": list(solo.score_tracks), "swap_tokens": 0, "turtle_choices": [], "unknown_turtles": 0,
    }
    mine = {"name": me.name, **score, "total": score["total"] + objective_points, "objective_points": objective_points,
            "objectives": res["objectives"]}
    per = [None] * state.n
    per[me_index], per[solo.ghost] = mine, ghost_entry
    win = mine["total"] > ghost_entry["total"]
    winner, loser = (mine, ghost_entry) if win else (ghost_entry, mine)
    note = None
    if mine["total"] == ghost_entry["total"]:
        note = f"{me.name} and the Ghost tie on {mine['total']}; a tie is a loss in the solo game (W-SOLO-12)."
    return {"final": state.phase == "over", "players": per, "ranking": [winner["name"], loser["name"]],
            "winner": winner["name"], "tie_break": note,
            "solo": {"difficulty": res["difficulty"], "objectives": res["objectives"], "win": win,
                     "total": mine["total"], "ghost_total": ghost_entry["total"],
                     "placeholder_cards": res["placeholder_cards"]}}


# ---- the solo game's end: objectives and the result (W-SOLO-12, W-SOLO-14) -------------------------------------------------------------------------
def objective_met(state: State, objective: str, final_tracks: dict, ed: Edition, p: int = 0) -> bool:
    """W-SOLO-14: each objective, checked at the end of the game."""
    player = state.players[p]
    g = state.solo.ghost
    if objective == "long_house_4":
        return sum(player.long_house.values()) <= 4
    if objective == "all_turtles":
        return {t["type"] for t in player.turtles} >= set(ed.turtle_types)
    if objective == "track_25":
        return any(v >= ed.cap for v in final_tracks.values())
    if objective == "progress_6":
        return len(player.progress) >= 6
    if objective == "majorities_4":
        return progress.majorities(state, p, ed) >= 4
    if objective == "pas_8":
        return state.occupied_pas(p, "woman") + state.occupied_pas(p, "hunter") >= 8
    if objective == "ghost_outside_5":
        home = state.players[g].home
        outside = sum(t.guards[g] + sum(pa.count for pa in t.pas if pa.owner == g)
                      for tid, t in state.territories.items() if tid != home)
        return outside <= 5
    if objective == "masks_6":
        return len(player.hand) + len(player.played) >= 6
    raise UserError(f"ghost.json: unknown objective {objective!r}; known: {', '.join(ed.objectives)}.")


def solo_score(state: State, ed: Edition | None = None) -> dict:
    """W-SOLO-12: the player's normal score plus the objectives by difficulty, against the Ghost's total."""
    ed = ed or load_edition()
    solo = state.solo
    me = state.players[0]
    score = score_player(me.tracks, engine_turtles(me), state.pairs, me.swap_tokens, ed.cap)
    final_tracks = {k: v["final"] for k, v in score["tracks"].items()}
    each = ed.objective_points[solo.difficulty]
    objectives = []
    for side in solo.cards:
        oid = ed.ghost_sides[side]["objective"]
        met = objective_met(state, oid, final_tracks, ed)
        objectives.append({"card": side, "objective": oid, "text": ed.objectives[oid], "met": met, "points": each if met else 0})
    total = score["total"] + sum(o["points"] for o in objectives)
    ghost_total = sum(state.players[solo.ghost].tracks[t] for t in solo.score_tracks)
    return {"final": state.phase == "over", "difficulty": solo.difficulty, "score": score, "objectives": objectives,
            "total": total, "ghost_total": ghost_total, "win": total > ghost_total,
            "placeholder_cards": ed.ghost_placeholder}
