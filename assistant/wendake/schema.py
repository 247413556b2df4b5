"""The JSON Schema of a Wendake game state, and the validator whose errors name the field at fault.

``STATE_SCHEMA`` is the one definition; ``docs/wendake-state.schema.json`` is written from it
(``tablewatch wendake schema --out docs/wendake-state.schema.json``) and a test keeps the two equal.
``validate_state`` runs the schema, then the checks a schema cannot express (player indices, tile and card
ids, the map's territories, the conservation of pieces), and returns messages such as
``players[1].tracks.mask: 30 is greater than the maximum of 25``.
"""

from __future__ import annotations

from collections import Counter

from assistant.wendake.edition import Edition, load_edition
from assistant.wendake.state import NATIVES, OPTION_SPECS, PHASES, RESOURCES, TRACKS

PLURAL = {"warrior": "warriors", "woman": "women", "hunter": "hunters"}
_INT = {"type": "integer", "minimum": 0}
_PLAYER = {"type": "integer", "minimum": 0, "maximum": 3}
_SLOT = {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 2}, "minItems": 2, "maxItems": 2}
_CARD = {"type": ["string", "null"], "description": "a mask card id; null where the face is not known"}
_TILE_ID = {"type": ["string", "null"]}


def _obj(props: dict, required=None, extra=False) -> dict:
    return {"type": "object", "properties": props, "required": list(required if required is not None else props),
            "additionalProperties": extra}


def _counts(keys) -> dict:
    return _obj({k: _INT for k in keys})


_CELL = {"oneOf": [{"type": "null"}, _obj({"tile": {"type": "string"}, "side": {"enum": ["action", "ritual"]}})]}
_TURTLE_HIDDEN = {"oneOf": [
    {"type": "null"},
    _obj({"track": {"enum": list(TRACKS)}}),
    _obj({"tracks": {"type": "array", "items": {"enum": list(TRACKS)}, "minItems": 2, "maxItems": 2}}),
]}

STATE_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://tablewatch.invalid/schemas/wendake-state.schema.json",
    "title": "Tablewatch Wendake game state",
    "description": "A Wendake game in progress. Rule IDs refer to the Tablewatch rules spec (wendake.md). "
                   "Players are indices 0..N-1 in seating order; piles list their top card or tile last.",
    **_obj({
        "format": {"const": "tablewatch.wendake.state/1"},
        "year": {"type": "integer", "minimum": 1, "maximum": 7},
        "phase": {"enum": list(PHASES)},
        "turn_order": {"type": "array", "items": _PLAYER, "minItems": 2, "maxItems": 4, "uniqueItems": True},
        "current": {"oneOf": [_PLAYER, {"type": "null"}]},
        "turn": {"oneOf": [{"type": "null"}, _obj({
            "player": _PLAYER,
            "placed": {"enum": [None, "tile", "reserve"]},
            "slot": {"oneOf": [{"type": "null"}, _SLOT]},
            "pending": {"type": "array", "items": _obj({"kind": {"type": "string"}, "n": _INT, "source": {"enum": ["tile", "fire"]}})},
            "cursor": _INT,
            "free_order": {"type": "boolean"},
            "bonus": {"type": "boolean"},
            "done": {"type": "array", "items": {"type": "string"},
                     "description": "W-XFER-4: the action kinds resolved this turn and each 'transfer', in order"},
        }, required=["player", "placed", "slot", "pending", "cursor"])]},
        "pairs": {"type": "array", "minItems": 2, "maxItems": 2,
                  "items": {"type": "array", "items": {"enum": list(TRACKS)}, "minItems": 2, "maxItems": 2}},
        "options": _obj({name: {"type": "boolean", "description": f"{rule}: {meaning} (default {default})"}
                         for name, rule, default, meaning in OPTION_SPECS}, required=[]),
        "map": _obj({
            "territories": {"type": "object", "additionalProperties": _obj({
                "home_of": {"oneOf": [_PLAYER, {"type": "null"}]},
                "guards": {"type": "array", "items": _INT},
                "pas": {"type": "array", "items": _obj({
                    "kind": {"enum": ["harvest", "hunt"]},
                    "crop": {"enum": ["corn", "beans", "pumpkins"]},
                    "owner": {"oneOf": [_PLAYER, {"type": "null"}]},
                    "native": {"enum": [None, *NATIVES]},
                    "count": {"type": "integer", "minimum": 0, "maximum": 7},
                }, required=["kind", "owner", "native", "count"])},
            })},
            "lakes": {"type": "object", "additionalProperties": {"type": "array", "items": _INT}},
        }),
        "players": {"type": "array", "minItems": 2, "maxItems": 4, "items": _obj({
            "name": {"type": "string", "minLength": 1},
            "colour": {"type": "string"},
            "home": {"type": "string"},
            "tribe": {"type": ["string", "null"]},
            "grid": {"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "array", "minItems": 3, "maxItems": 3, "items": _CELL}},
            "action_markers": {"type": "array", "items": _SLOT, "maxItems": 3},
            "fire": {"oneOf": [{"type": "null"}, _SLOT]},
            "sages": {"type": "integer", "minimum": 0, "maximum": 4},
            "reserved": {"type": "boolean"},
            "long_house": _counts(NATIVES),
            "canoe_reserve": {"type": "integer", "minimum": 0, "maximum": 5},
            "resources": _counts(RESOURCES),
            "beavers": _INT,
            "hand": {"type": "array", "items": _CARD},
            "played": {"type": "array", "items": _CARD},
            "progress": {"type": "array", "items": {"type": "string"}},
            "progress_used": {"type": "array", "items": {"type": "string"}},
            "turtles": {"type": "array", "items": _obj({"type": {"type": "string"}, "hidden": _TURTLE_HIDDEN,
                                                        "scored": {"type": "boolean"}}, required=["type", "hidden"])},
            "swap_tokens": {"type": "integer", "minimum": 0, "maximum": 2},
            "flag": {"enum": [None, "english", "french"]},
            "tracks": _obj({k: {"type": "integer", "minimum": 0, "maximum": 25} for k in TRACKS}),
            "mask_space": {"type": ["string", "null"]},
            "below": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            "set_aside": {"type": "array", "items": {"type": "string"}},
            "mohawk": {"oneOf": [{"type": "null"}, _obj({
                "at": {"enum": ["guard", "outpost", "long_house"]},
                "territory": {"type": ["string", "null"]},
                "pa": {"oneOf": [{"type": "null"}, _INT]},
            })], "description": "where Mohawk's black warrior is (W-TRB-3); null for other tribes"},
            "ojibwa_used": {"type": "boolean"},
        }, required=["name", "colour", "home", "tribe", "grid", "action_markers", "fire", "sages", "reserved",
                     "long_house", "canoe_reserve", "resources", "beavers", "hand", "played", "progress",
                     "progress_used", "turtles", "swap_tokens", "flag", "tracks", "mask_space", "below", "set_aside"])},
        "mask_board": _obj({
            "turn_order_track": {"type": "array", "items": _PLAYER, "maxItems": 4, "uniqueItems": True},
            "deck": {"type": "array", "items": _CARD},
            "discard": {"type": "array", "items": _CARD},
            "turtle_stacks": {"type": "object", "additionalProperties": {"type": "array", "items": _TURTLE_HIDDEN}},
        }),
        "restore_queue": {"type": "array", "items": _PLAYER},
        "progress_rows": _obj({k: {"type": "array", "items": {"type": "string"}} for k in ("1", "2", "3")}),
        "advanced": _obj({
            "level": {"enum": [1, 2]},
            "display": {"type": "array", "items": _TILE_ID, "maxItems": 6},
            "pile": {"type": "array", "items": _TILE_ID},
            "pile_l2": {"type": "array", "items": _TILE_ID},
        }),
        "flag_supply": {"type": "array", "items": {"enum": ["english", "french"]}, "uniqueItems": True},
        "progress_box": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        "solo": {"oneOf": [{"type": "null"}, _obj({
            "difficulty": {"enum": ["easy", "medium", "hard"]},
            "ghost": _PLAYER,
            "cards": {"type": "array", "items": {"type": "string"}, "minItems": 3, "maxItems": 3},
            "under": {"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "array", "items": _CARD}},
            "year_card": _CARD,
            "year_slot": {"type": "integer", "minimum": 0, "maximum": 2},
            "awaiting_card": {"type": "boolean"},
            "actions_done": {"type": "integer", "minimum": 0, "maximum": 3},
            "progress_level": {"type": "integer", "minimum": 1, "maximum": 3},
            "advanced_disk": _INT,
            "mask_index": _INT,
            "removed": {"type": "array", "items": {"type": "string"}},
            "score_tracks": {"type": "array", "items": {"enum": list(TRACKS)}, "maxItems": 2},
        }, required=["difficulty", "ghost", "cards", "under", "year_card", "year_slot", "awaiting_card",
                     "actions_done", "progress_level", "advanced_disk", "mask_index"])],
            "description": "the solo game's Ghost (W-SOLO); null in a multiplayer game"},
    }, required=["format", "year", "phase", "turn_order", "current", "turn", "pairs", "options", "map", "players",
                 "mask_board", "restore_queue", "progress_rows", "advanced"]),
}


def _path(parts) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _deepest(error):
    """For a oneOf/anyOf failure, the sub-error that got furthest into the document (e.g. a cell's 'side')."""
    while error.context:
        inner = max(error.context, key=lambda e: (len(e.absolute_path), e.validator != "type"))
        if len(inner.absolute_path) <= len(error.absolute_path):
            break
        error = inner
    return error


def schema_errors(doc, schema: dict) -> list[str]:
    """JSON Schema errors as 'path.to.field: what is wrong', in document order."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    errors = [_deepest(e) for e in validator.iter_errors(doc)]
    errors.sort(key=lambda e: list(map(str, e.absolute_path)))
    return [f"{_path(e.absolute_path)}: {e.message}" for e in errors]


def validate_state(doc, edition: Edition | None = None) -> list[str]:
    """Every problem with a state document, each starting with the path of the field at fault."""
    errors = schema_errors(doc, STATE_SCHEMA)
    if errors:
        return errors
    return _semantic_errors(doc, edition or load_edition())


def _semantic_errors(d: dict, ed: Edition) -> list[str]:
    out = []
    n = len(d["players"])
    if sorted(d["turn_order"]) != list(range(n)):
        out.append(f"turn_order: must list each player index 0..{n - 1} exactly once.")
    if d["current"] is not None and d["current"] >= n:
        out.append(f"current: player {d['current']} does not exist; there are {n} players.")
    if d["phase"] != "over" and d["current"] is None:
        out.append("current: must name the player to move while the game is not over.")
    topo = ed.maps.get(n)
    if topo is None:
        return out + [f"players: no map for {n} players."]
    terr = d["map"]["territories"]
    if set(terr) != set(topo.territories):
        missing = sorted(set(topo.territories) - set(terr))
        extra = sorted(set(terr) - set(topo.territories))
        out.append(f"map.territories: must be exactly the {n}-player map's territories"
                   + (f"; missing {', '.join(missing)}" if missing else "") + (f"; unknown {', '.join(extra)}" if extra else "") + ".")
        return out
    if set(d["map"]["lakes"]) != set(topo.lakes):
        out.append(f"map.lakes: must be exactly the lakes {', '.join(topo.lakes)}.")
    natives = [Counter() for _ in range(n)]
    for tid, t in terr.items():
        if len(t["guards"]) != n:
            out.append(f"map.territories.{tid}.guards: needs one count per player ({n}).")
            continue
        if len(t["pas"]) != len(topo.territories[tid]["pas"]):
            out.append(f"map.territories.{tid}.pas: the map gives {tid} {len(topo.territories[tid]['pas'])} productive areas.")
            continue
        for p, g in enumerate(t["guards"]):
            natives[p]["warrior"] += g
        for i, pa in enumerate(t["pas"]):
            where = f"map.territories.{tid}.pas[{i}]"
            if pa["count"] and (pa["owner"] is None or pa["native"] is None):
                out.append(f"{where}: a count above 0 needs an owner and a native.")
            elif pa["count"] > 1 and t["home_of"] is None:
                out.append(f"{where}: outside a Home a productive area holds at most 1 native (W-TERM-4).")
            elif pa["count"] and pa["owner"] < n:
                natives[pa["owner"]][pa["native"]] += pa["count"]
    for lid, c in d["map"]["lakes"].items():
        if len(c) != n:
            out.append(f"map.lakes.{lid}: needs one canoe count per player ({n}).")
    cards = Counter(c for c in d["mask_board"]["deck"] + d["mask_board"]["discard"] if c is not None)
    for p, pl in enumerate(d["players"]):
        where = f"players[{p}]"
        if pl["home"] not in topo.territories or not topo.territories[pl["home"]]["home"]:
            out.append(f"{where}.home: {pl['home']!r} is not a Home territory of the {n}-player map.")
        for r, row in enumerate(pl["grid"]):
            for c, cell in enumerate(row):
                if cell is not None and cell["tile"] not in ed.tiles:
                    out.append(f"{where}.grid[{r}][{c}].tile: unknown tile {cell['tile']!r}.")
        for kind in NATIVES:
            total = natives[p][kind] + pl["long_house"][kind]
            owned = ed.per_player[PLURAL[kind]] + (1 if kind == "warrior" and pl.get("mohawk") else 0)  # W-TRB-3
            if total != owned:
                out.append(f"{where}.long_house.{kind}: {total} {PLURAL[kind]} counted on the map and in the Long House; this player owns exactly {owned} (W-COMP-3, W-TRB-3).")
        canoes = sum(v[p] for v in d["map"]["lakes"].values() if len(v) == n) + pl["canoe_reserve"]
        if canoes != ed.per_player["canoes"]:
            out.append(f"{where}.canoe_reserve: {canoes} canoes counted on lakes and in reserve; each player owns {ed.per_player['canoes']} (W-COMP-3).")
        for t in pl["progress"]:
            if t not in ed.progress:
                out.append(f"{where}.progress: unknown progress tile {t!r}.")
        for t in pl["turtles"]:
            if t["type"] not in ed.turtle_types:
                out.append(f"{where}.turtles: unknown turtle type {t['type']!r}.")
        if pl["mask_space"] is not None and pl["mask_space"] not in ed.mask_spaces:
            out.append(f"{where}.mask_space: unknown ceremony space {pl['mask_space']!r}.")
        cards.update(c for c in pl["hand"] + pl["played"] if c is not None)
    for card, k in cards.items():
        if card not in ed.mask_cards:
            out.append(f"mask_board: unknown mask card {card!r}.")
        elif k > 1:
            out.append(f"mask_board: card {card} appears {k} times across deck, discard and hands.")
    for level, row in d["progress_rows"].items():
        for t in row:
            if t not in ed.progress:
                out.append(f"progress_rows.{level}: unknown progress tile {t!r}.")
    return out + component_count_errors(d, ed)


def _holdings(d: dict, ed: Edition):
    """Every countable component of the state: (component, holder, item, where it lies). The holder is "table"
    for the box's own count of a component, or a player index for a player's own count."""
    mb, adv = d["mask_board"], d["advanced"]
    for tid, stack in mb["turtle_stacks"].items():
        yield from (("turtle tile", "table", tid, f"mask_board.turtle_stacks.{tid}") for _ in stack)
    for level, row in d["progress_rows"].items():
        yield from (("progress tile", "table", t, f"progress_rows.{level}") for t in row)
    for level, row in d.get("progress_box", {}).items():
        yield from (("progress tile", "table", t, f"progress_box.{level}") for t in row)
    yield from (("flag tile", "table", f, "flag_supply") for f in d.get("flag_supply", []))
    for key in ("display", "pile", "pile_l2"):
        yield from (("advanced tile", "table", t, f"advanced.{key}") for t in adv[key] if t is not None)
    for p, pl in enumerate(d["players"]):
        where = f"players[{p}]"
        for t in pl["turtles"]:
            yield "turtle tile", "table", t["type"], f"{where}.turtles"
            yield "turtle tile", p, t["type"], f"{where}.turtles"
        yield from (("progress tile", "table", t, f"{where}.progress") for t in pl["progress"])
        if pl["flag"] is not None:
            yield "flag tile", "table", pl["flag"], f"{where}.flag"
        tiles = [(c["tile"], f"{where}.grid") for row in pl["grid"] for c in row if c is not None]
        tiles += [(t, f"{where}.{key}") for key in ("below", "set_aside") for t in pl[key]]
        for t, at in tiles:
            basic = t in ed.tiles and ed.tiles[t].level == 0
            yield ("basic tile", p, t, at) if basic else ("advanced tile", "table", t, at)
        yield from (("swap token", p, "swap token", f"{where}.swap_tokens") for _ in range(pl["swap_tokens"]))
        markers = len(pl["action_markers"]) + pl["sages"] + pl["reserved"]
        yield from (("action marker", p, "action marker", f"{where}.sages") for _ in range(markers))


def _allowed(component: str, holder, item: str, d: dict, ed: Edition) -> tuple[int, str]:
    """How many of ``item`` the box gives ``holder``, and where that number comes from (rule ID, data file)."""
    n = len(d["players"])
    if component == "turtle tile" and holder == "table":
        if d.get("solo") is not None:
            return 1, "W-SOLO-2: 1 tile per type in the solo game"
        return ed.by_count[n]["turtles_per_stack"], f"W-SET-14, components.json by_player_count.{n}.turtles_per_stack"
    if component == "turtle tile":
        return 1, "W-TUR-4: never two tiles of the same type"
    if component == "progress tile":
        return ed.progress_copies, "W-NIT-9, progress.json copies_per_tile"
    if component == "swap token":
        tribe, base = d["players"][holder]["tribe"], ed.per_player["swap_tokens"]
        if ed.swap_tokens(tribe) != base:
            return ed.swap_tokens(tribe), f"W-TRB-8, tribes.json {tribe}.swap_tokens"
        more = ", ".join(ed.tribes[t]["name"] for t in ed.tribes if ed.swap_tokens(t) > base) or "no tribe"
        return base, f"W-COMP-3, components.json per_player.swap_tokens; only {more} starts with more (W-TRB-8)"
    if component == "action marker":
        return ed.per_player["action_markers"], "W-COMP-3, components.json per_player.action_markers"
    rules = {"flag tile": "W-COMP-6: one English and one French flag tile", "advanced tile": "W-COMP-5: one of each advanced tile",
             "basic tile": "W-COMP-3: one of each basic tile per colour"}
    return 1, rules[component]


def component_count_errors(d: dict, ed: Edition) -> list[str]:
    """Every component held more times than the edition data allows, as one line naming the holder, the
    component, the count allowed with its provenance, and the fix. One check for every kind of component:
    ``_holdings`` says where each lies and ``_allowed`` how many the box has."""
    counts: Counter = Counter()
    places: dict = {}
    for component, holder, item, where in _holdings(d, ed):
        counts[component, holder, item] += 1
        places.setdefault((component, holder, item), []).append(where)
    out = []
    for (component, holder, item), k in counts.items():
        allowed, why = _allowed(component, holder, item, d, ed)
        if k <= allowed:
            continue
        at = ", ".join(dict.fromkeys(places[component, holder, item]))
        name = item if item != component else ""
        if holder == "table":
            who = f"{component} {name}: {k} in the game ({at})"
        else:
            who = f"players[{holder}] ({d['players'][holder]['name']}): {k} {component}s{f' {name}' if name else ''}"
        out.append(f"{who}; the box allows {allowed} ({why}). Remove {k - allowed} from {at}.")
    return out
