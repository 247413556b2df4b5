"""Iwari's scoring as the tablet shows it: what the next scoring would give now, the breakdown of each scoring made,
and the game's result (``Game.results``).

A breakdown is the scoring calculator's result (``assistant.iwari.tally.tally``, the figures of ``tablewatch iwari
tally``) for the table a state implies, with the rows the scoreboard draws added: ``territory_rows``, one per
territory with pieces (its colour, feat factor, each tribe's tents and totems, who holds the tent majority, what
each tribe scores there) and ``connection_rows``, one per connection at the final scoring (the totems of its two
territories, who holds the totem majority in both, what it is worth; mountains never score, I-TOT-1). Tribes are
named by their player's name (``names``); the 2-player third tribe is "third tribe (<colour>)".
"""

from __future__ import annotations

from assistant.errors import UserError
from assistant.iwari.scoring import score, winner
from assistant.iwari.state import State, map_ref
from assistant.iwari.tally import tally


def names(state: State) -> dict[str, str]:
    """Tribe colour -> who it is at the table: the player's name, or "third tribe (<colour>)" (I-2P-1)."""
    out = {state.tribes[i]: p.name for i, p in enumerate(state.players)}
    if state.third is not None:
        out[state.tribes[state.third]] = f"third tribe ({state.tribes[state.third]})"
    return out


def table_doc(state: State, score_track: list[int] | None = None) -> dict:
    """The table ``state`` implies, in the calculator's form (docs/iwari-tally.md): map, tribes, tents, totems,
    feats, unused pieces and the score track (``score_track``, the state's scores by default)."""
    track = state.scores if score_track is None else score_track
    doc = {
        "map": map_ref(state.map),
        "tribes": list(state.tribes),
        "tents": state.tents_by_colour(),
        "totems": state.totem_counts(),
        "feats": {k: n for k, n in state.feats.items() if n},
        "unused": {c: {"tents": state.tents_left[i], "totems": state.totems_left[i]} for i, c in enumerate(state.tribes)},
        "score_track": {c: track[i] for i, c in enumerate(state.tribes)},
    }
    if state.third is not None:
        doc["options"] = {"third_tribe": state.tribes[state.third]}
    return doc


def breakdown(state: State, final: bool, score_track: list[int] | None = None) -> dict:
    """One scoring of ``state``'s table (the calculator's result, module docstring) with the scoreboard's rows;
    ``{"error": line}`` when the table cannot be scored (a game is never lost over its scoreboard)."""
    try:
        out = tally(table_doc(state, score_track), final=final)
    except UserError as exc:
        return {"scoring": "final" if final else "half", "error": str(exc)}
    who = names(state)
    out["names"] = who
    out["territory_rows"] = [_territory_row(tid, t, who) for tid, t in sorted(out["territories"].items())]
    out["connection_rows"] = [_connection_row(cid, c, who) for cid, c in out["connections"].items()]
    for p in out["players"]:
        p["name"] = who[p["tribe"]]
    return out


def _territory_row(tid: str, t: dict, who: dict[str, str]) -> dict:
    best = max(t["tents"].values(), default=0)
    tribes = sorted(set(t["tents"]) | set(t["totems"]), key=lambda c: (-t["tents"].get(c, 0), -t["totems"].get(c, 0), c))
    return {
        "id": tid,
        "colour": t["colour"],
        "factor": t["factor"],
        "tribes": [
            {
                "tribe": c,
                "name": who[c],
                "tents": t["tents"].get(c, 0),
                "totems": t["totems"].get(c, 0),
                "leads": best > 0 and t["tents"].get(c, 0) == best,
                "points": t["points"].get(c, 0),
            }
            for c in tribes
        ],
        "majority": [who[c] for c in tribes if best > 0 and t["tents"].get(c, 0) == best],
        "worth": max(t["points"].values(), default=0),
    }


def _connection_row(cid: str, c: dict, who: dict[str, str]) -> dict:
    worth = next(iter(c["points"].values()), 0)
    return {
        "id": cid,
        "between": c["between"],
        "by": c["by"],
        "mountain": c["mountain"],
        "totems": c["totems"],
        "factor": c["factor"],
        "holders": [who[h] for h in c["holders"]],
        "worth": worth,
    }


def next_scoring(state: State) -> bool:
    """Whether the next scoring is the final one (the deck ran out once: the half journey is behind, I-HALF-1)."""
    return state.exhaustions >= 1


def results(state: State) -> dict:
    """The game's result (``Game.results``): once over the final scores, winners and tie-break (I-END-4); during
    play each tribe's score so far plus what the next scoring would give now, and who would win on that."""
    who = names(state)
    over = state.phase == "over"
    if over:
        totals = list(state.scores)
        winners = [who[state.tribes[i]] for i in state.winners or ()]
        why = state.tie_break
    else:
        now = score(state.map, state.tribes, state.tents_by_colour(), state.totem_counts(), state.feats, next_scoring(state))
        totals = [s + now.totals[c] for s, c in zip(state.scores, state.tribes)]
        unused = {c: state.tents_left[i] + state.totems_left[i] for i, c in enumerate(state.tribes)}
        eligible = state.tribes if state.options.third_can_win else state.tribes[: state.n]
        won, why = winner(dict(zip(state.tribes, totals)), unused, eligible)
        winners = [who[c] for c in won]
    half = (state.half or {}).get("totals", {})
    final = (state.final or {}).get("totals", {})
    players = [
        {
            "name": who[c],
            "tribe": c,
            "total": totals[i],
            "half_journey": half.get(c),
            "final_scoring": final.get(c),
            "unused": {"tents": state.tents_left[i], "totems": state.totems_left[i]},
            "third_tribe": i == state.third,
        }
        for i, c in enumerate(state.tribes)
    ]
    return {
        "final": over,
        "winners": winners,
        "winner": " and ".join(winners) if winners else None,
        "tie_break": why,
        "players": players[: state.n],
        "third_tribe": players[state.third] if state.third is not None else None,
    }
