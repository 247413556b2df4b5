"""``tablewatch wendake tally``: exact final scoring of a finished game's table, no camera needed.

Reads the final track values, turtle tiles and unused swap tokens; adds turtle points before the 25 cap
(W-TUR-7, W-SCR-5), picks each level 5 turtle's track to maximise the player's total, counts the lower
track of each pair (W-SCR-2), adds swap tokens, and breaks ties by turn order (W-SCR-4).
"""

from __future__ import annotations

from collections import Counter

from assistant.errors import UserError
from assistant.wendake.edition import Edition, load_edition
from assistant.wendake.schema import schema_errors
from assistant.wendake.scoring import rank, score_player, tie_break_note
from assistant.wendake.state import TRACKS

_TRACK = {"enum": list(TRACKS)}
TALLY_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Tablewatch Wendake tally input",
    "type": "object",
    "required": ["pairs", "players"],
    "additionalProperties": False,
    "properties": {
        "pairs": {"type": "array", "minItems": 2, "maxItems": 2,
                  "items": {"type": "array", "items": _TRACK, "minItems": 2, "maxItems": 2}},
        "players": {"type": "array", "minItems": 1, "maxItems": 4, "items": {
            "type": "object",
            "required": ["name", "turn_order", "tracks"],
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "turn_order": {"type": "integer", "minimum": 1, "maximum": 4},
                "swap_tokens_unused": {"type": "integer", "minimum": 0, "maximum": 2},
                "tribe": {"type": ["string", "null"], "description": "the tribe card's id, where tribes were dealt (W-TRB)"},
                "tracks": {"type": "object", "required": list(TRACKS), "additionalProperties": False,
                           "properties": {t: {"type": "integer", "minimum": 0, "maximum": 25} for t in TRACKS}},
                "turtles": {"type": "array", "items": {"oneOf": [
                    {"type": "object", "required": ["level", "track"], "additionalProperties": False,
                     "properties": {"level": {"enum": [3, 4]}, "track": _TRACK}},
                    {"type": "object", "required": ["level", "tracks"], "additionalProperties": False,
                     "properties": {"level": {"const": 5}, "tracks": {"type": "array", "items": _TRACK, "minItems": 2, "maxItems": 2}}},
                ]}},
            },
        }},
    },
}


TURTLE_FORMS = ('a turtle is {"level": 3 or 4, "track": T} or {"level": 5, "tracks": [T1, T2]}, '
                f"T one of {', '.join(TRACKS)}")


def tally_errors(doc, edition: Edition | None = None) -> list[str]:
    ed = edition or load_edition()
    errors = schema_errors(doc, TALLY_SCHEMA)
    if errors:
        return [e + (f" ({TURTLE_FORMS})" if ".turtles[" in e else "") for e in errors]
    pairs = doc["pairs"]
    if sorted(t for p in pairs for t in p) != sorted(TRACKS):
        errors.append(f"pairs: the two pairs must use each of {', '.join(TRACKS)} exactly once.")
    orders = [p["turn_order"] for p in doc["players"]]
    if sorted(orders) != list(range(1, len(orders) + 1)):
        errors.append(f"players[*].turn_order: must be 1..{len(orders)}, each once; got {orders}.")
    names = [p["name"] for p in doc["players"]]
    if len(set(names)) != len(names):
        errors.append("players[*].name: names must be different.")
    for i, p in enumerate(doc["players"]):
        for j, t in enumerate(p.get("turtles", [])):
            if t["level"] == 5 and t["tracks"][0] == t["tracks"][1]:
                errors.append(f"players[{i}].turtles[{j}].tracks: a level 5 turtle shows two different tracks.")
    return errors + _component_errors(doc["players"], ed)


def _component_errors(players: list, ed: Edition) -> list[str]:
    """The tally's component counts against the edition data: a player owns at most one turtle tile of each
    type (W-TUR-4), so at most as many of a level as turtles.json has types of that level; and holds at most
    the swap tokens of their tribe (1, W-COMP-3; Seneca 2, W-TRB-8), so where no tribe is given, only as many
    players can hold more than 1 as there are tribes that give more."""
    errors = []
    types = Counter(t["level"] for t in ed.turtle_types.values())
    base = ed.per_player["swap_tokens"]
    bonus = sorted(t for t in ed.tribes if ed.swap_tokens(t) > base)
    extra = []
    for i, p in enumerate(players):
        who = f"players[{i}] ({p['name']})"
        for level, k in sorted(Counter(t["level"] for t in p.get("turtles", [])).items()):
            if k > types[level]:
                errors.append(f"{who}.turtles: {k} level {level} turtles; a player owns at most one tile of each type "
                              f"and there are {types[level]} level {level} types (W-TUR-4, turtles.json). Remove {k - types[level]}.")
        tribe, tokens = p.get("tribe"), p.get("swap_tokens_unused", 0)
        if tribe is not None and tribe not in ed.tribes:
            errors.append(f"{who}.tribe: unknown tribe {tribe!r}; tribes are {', '.join(sorted(ed.tribes))}.")
        elif tokens > ed.swap_tokens(tribe) and (tribe is not None or tokens > max(map(ed.swap_tokens, ed.tribes))):
            errors.append(f"{who}.swap_tokens_unused: {tokens}; a {tribe or 'player'} holds at most {ed.swap_tokens(tribe)} "
                          f"(W-COMP-3; only {', '.join(bonus) or 'no tribe'} starts with more, W-TRB-8). Give the count left.")
        elif tribe is None and tokens > base:
            extra.append(i)
    if len(extra) > len(bonus):
        names = ", ".join(f"players[{i}] ({players[i]['name']})" for i in extra)
        errors.append(f"{names}: each holds more than {base} unused swap token; only a {' or '.join(bonus)} player can "
                      f"(W-COMP-3, W-TRB-8: {base} per colour, {len(bonus)} tribe with more). Set each player's tribe, "
                      f"or give {base} for all but the {' or '.join(bonus)} player.")
    return errors


def tally(doc, edition: Edition | None = None) -> dict:
    """The final result of a tally document; raises UserError naming the field at fault."""
    errors = tally_errors(doc, edition)
    if errors:
        raise UserError("the tally input is not valid:\n  " + "\n  ".join(errors))
    pairs = [tuple(p) for p in doc["pairs"]]
    players = doc["players"]
    per = [{"name": p["name"], "turn_order": p["turn_order"],
            **score_player(p["tracks"], p.get("turtles", []), pairs, p.get("swap_tokens_unused", 0))}
           for p in players]
    names = [p["name"] for p in players]
    totals = [x["total"] for x in per]
    positions = [p["turn_order"] - 1 for p in players]
    order = rank(totals, positions)
    return {"players": per, "ranking": [names[i] for i in order], "winner": names[order[0]],
            "tie_break": tie_break_note(names, totals, positions, order)}
