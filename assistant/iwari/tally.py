"""The Iwari scoring calculator (``tablewatch iwari tally``): a table described in JSON, checked and scored.

Owns the table file's format (``docs/iwari-table.schema.json``, worked example in ``docs/iwari-tally.md``), its
checks, and the result (``tally``: JSON; ``describe``: the human text). Every problem is a ``UserError`` of one line
naming the field (``tents.S99: tent space 'S99' is not on the map 'standard'``). An impossible table is refused: two
tents on one space (a key given twice), a tent on an unknown space, a map whose tent space lies in no territory or
whose path leads nowhere. Totems above a territory's tent majority (I-TURN-5) are a warning, not a refusal: such a
table can be described, and the player may have mis-stacked.
"""

from __future__ import annotations

import json
from pathlib import Path

from assistant.errors import UserError
from assistant.iwari.maps import SPECIALS, IwariMap, builtin_map, load_map_file, loads_unique, map_from_json
from assistant.iwari.scoring import CONNECTION_FEAT, Tally, feat_factor, score, totem_holders, winner

KEYS = ("map", "tribes", "tents", "totems", "feats", "unused", "score_track", "options")
OPTIONS = (*SPECIALS, "third_tribe")
FEATS_IN_BOX = 6  # 2 Union, 2 Discovery, 1 Honour, 1 Respect (I-COMP-3)


def load_table(data: str | bytes, source: str):
    """Parse a table file's text; broken JSON, and a key given twice in one object (two tents on one space), raise
    ``UserError`` naming the place."""
    return loads_unique(data, source, why={"tents": "a tent space holds one tent (I-TURN-4); keep the tent really there"})


def _count(value, field: str, what: str = "a count") -> int:
    if type(value) is not int or value < 0:
        raise UserError(f"{field}: {what} is a whole number ≥ 0, got {json.dumps(value)}.")
    return value


def _object(doc, key: str, what: str) -> dict:
    value = doc.get(key, {})
    if not isinstance(value, dict):
        raise UserError(f"{key}: must be an object ({what}), got {type(value).__name__}.")
    return value


def _map(doc, base_dir: Path | None) -> IwariMap:
    if "map" not in doc:
        raise UserError(
            "map: missing; give a built-in map's name (standard, floating-lands, glacial-mass, long-road), an inline map or a .json file."
        )
    value = doc["map"]
    if isinstance(value, dict):
        return map_from_json(value, "map")
    if isinstance(value, str) and value.endswith(".json"):
        path = Path(value)
        return load_map_file(path if path.is_absolute() or base_dir is None else base_dir / path)
    if isinstance(value, str):
        return builtin_map(value)
    raise UserError(f"map: a built-in map's name, an inline map (an object) or a .json file, got {json.dumps(value)}.")


def _tribes(doc) -> list[str]:
    tribes = doc.get("tribes")
    if not isinstance(tribes, list) or len(tribes) < 2:
        raise UserError('tribes: missing or too short; list the tribes (player colours) in play, e.g. ["red", "blue"].')
    for i, t in enumerate(tribes):
        if not isinstance(t, str) or not t.strip() or len(t) > 24:
            raise UserError(f"tribes[{i}]: a tribe is a name of 1 to 24 characters, got {json.dumps(t)}.")
    if len(set(tribes)) != len(tribes):
        dup = next(t for t in tribes if tribes.count(t) > 1)
        raise UserError(f"tribes: {dup!r} is listed twice; list each tribe once.")
    return tribes


def _tribe(value, field: str, tribes: list[str]) -> str:
    if value not in tribes:
        raise UserError(f"{field}: tribe {json.dumps(value)} is not in tribes ({', '.join(tribes)}).")
    return value


def _options(doc, m: IwariMap, tribes: list[str]) -> tuple[IwariMap, str | None]:
    opts = _object(doc, "options", "map specials true/false, third_tribe")
    for key, value in opts.items():
        if key not in OPTIONS:
            raise UserError(f"options.{key}: unknown option; options are {', '.join(OPTIONS)}.")
        if key in SPECIALS and not isinstance(value, bool):
            raise UserError(f"options.{key}: must be true or false, got {json.dumps(value)}.")
    on = [k for k in SPECIALS if opts.get(k) is True]
    if len(on) > 1:
        raise UserError(f"options: {' and '.join(on)} are both on; a map has one special rule (I-MAP).")
    special = on[0] if on else (None if opts.get(m.special) is False else m.special)
    if special == "long-road" and not m.road:
        raise UserError(f"options.long-road: map {m.name!r} has no road; give the map's road (its tent spaces, I-MAP-3).")
    third = opts.get("third_tribe")
    if third is not None:
        _tribe(third, "options.third_tribe", tribes)
        if len(tribes) != 3:
            raise UserError(
                f"options.third_tribe: the shared third tribe is a 2-player rule (I-2P-1): tribes must list the "
                f"2 players' tribes and the third, 3 in all, not {len(tribes)}."
            )
    return (m if special == m.special else _replace_special(m, special)), third


def _replace_special(m: IwariMap, special: str | None) -> IwariMap:
    return IwariMap(m.name, m.title, m.territories, m.tent_spaces, m.paths, m.connections, m.road, special, m.provenance, m.cells)


def _feats(doc, m: IwariMap) -> dict[str, int]:
    feats = _object(doc, "feats", "territory id or 'connection:<id>' -> count")
    by = {"land": 0, "water": 0}
    for key, n in feats.items():
        _count(n, f"feats.{key}", "a feat count")
        if key.startswith(CONNECTION_FEAT):
            cid = key[len(CONNECTION_FEAT) :]
            ids = [c.id for c in m.connections]
            if cid not in ids:
                raise UserError(f"feats.{key}: no connection {cid!r} on the map; connections are {', '.join(ids)}.")
            by[m.connection(cid).by] += n
        elif key not in m.territories:
            raise UserError(f"feats.{key}: no territory {key!r} on the map; a key is a territory id or 'connection:<id>'.")
    for kind, feat, rule in (("land", "Honour", "I-FEAT-3"), ("water", "Respect", "I-FEAT-4")):
        if by[kind] > 1:
            raise UserError(f"feats: {by[kind]} feats on connections by {kind}; only the one {feat} feat goes there ({rule}).")
    if sum(feats.values()) > FEATS_IN_BOX:
        raise UserError(
            f"feats: {sum(feats.values())} feats; the box has {FEATS_IN_BOX} (2 Union, 2 Discovery, 1 Honour, 1 Respect, I-COMP-3)."
        )
    return {k: n for k, n in feats.items() if n}


def read_table(doc, base_dir: Path | None = None) -> dict:
    """The checked table: map, tribes, tents, totems, feats, unused, score track, third tribe; ``UserError`` naming
    the field for anything wrong."""
    if not isinstance(doc, dict):
        raise UserError(f"the table must be a JSON object with {', '.join(KEYS)}; got {type(doc).__name__}.")
    for key in doc:
        if key not in KEYS and key not in ("$schema", "about"):
            raise UserError(f"{key}: unknown key; a table has {', '.join(KEYS)} (docs/iwari-tally.md).")
    m = _map(doc, base_dir)
    tribes = _tribes(doc)
    m, third = _options(doc, m, tribes)
    tents = {}
    for space, tribe in _object(doc, "tents", "tent space -> tribe").items():
        if space not in m.tent_spaces:
            raise UserError(
                f"tents.{space}: tent space {space!r} is not on the map {m.name!r}; its spaces are listed in its tent_spaces."
            )
        tents[space] = _tribe(tribe, f"tents.{space}", tribes)
    totems = {}
    for territory, stack in _object(doc, "totems", "territory -> {tribe: count}").items():
        if territory not in m.territories:
            raise UserError(f"totems.{territory}: no territory {territory!r} on the map {m.name!r}.")
        if not isinstance(stack, dict):
            raise UserError(f"totems.{territory}: must be an object {{tribe: count}}, got {json.dumps(stack)}.")
        totems[territory] = {
            _tribe(t, f"totems.{territory}.{t}", tribes): _count(n, f"totems.{territory}.{t}") for t, n in stack.items()
        }
    unused = {}
    for tribe, pieces in _object(doc, "unused", "tribe -> {tents, totems}").items():
        _tribe(tribe, f"unused.{tribe}", tribes)
        if not isinstance(pieces, dict) or set(pieces) - {"tents", "totems"}:
            raise UserError(f'unused.{tribe}: must be {{"tents": n, "totems": n}}, got {json.dumps(pieces)}.')
        unused[tribe] = sum(_count(n, f"unused.{tribe}.{k}") for k, n in pieces.items())
    track = {
        _tribe(t, f"score_track.{t}", tribes): _count(n, f"score_track.{t}", "points")
        for t, n in _object(doc, "score_track", "tribe -> points").items()
    }
    return {
        "map": m,
        "tribes": tribes,
        "tents": tents,
        "totems": totems,
        "feats": _feats(doc, m),
        "unused": unused,
        "score_track": track,
        "third_tribe": third,
    }


def _warnings(m: IwariMap, tents: dict, totems: dict) -> list[str]:
    out = []
    for territory, stack in sorted(totems.items()):
        counts: dict[str, int] = {}
        for s in m.spaces_of(territory):
            if s in tents:
                counts[tents[s]] = counts.get(tents[s], 0) + 1
        cap, height = max(counts.values(), default=0), sum(stack.values())
        if height > cap:
            out.append(
                f"totems.{territory}: a stack of {height} is above the tent majority there ({cap}, I-TURN-5); "
                "scored as given, check the table."
            )
    return out


def tally(doc, final: bool = True, base_dir: Path | None = None) -> dict:
    """Score the table ``doc`` at the end (``final``) or at half journey; the result as JSON (docs/iwari-tally.md)."""
    t = read_table(doc, base_dir)
    m, tribes = t["map"], t["tribes"]
    result: Tally = score(m, tribes, t["tents"], t["totems"], t["feats"], final=final)
    players = []
    for tribe in tribes:
        before = t["score_track"].get(tribe, 0)
        players.append(
            {
                "tribe": tribe,
                "total": before + result.totals[tribe],
                "score_track": before,
                "this_scoring": result.totals[tribe],
                "tents": {ter: pts[tribe] for ter, pts in result.tents.items() if tribe in pts},
                "totems": {cid: pts[tribe] for cid, pts in result.totems.items() if tribe in pts},
                "settlements": result.settlements.get(tribe, []),
                "road": result.road.get(tribe, 0),
                "unused": t["unused"].get(tribe),
                "third_tribe": tribe == t["third_tribe"],
            }
        )
    out = {
        "scoring": "final" if final else "half",
        "map": {"name": m.name, "title": m.title, "special": m.special, "source": m.provenance.get("source")},
        "tribes": tribes,
        "players": players,
        "territories": _territories(m, t, result),
        "connections": _connections(m, t, final) if final else {},
        "settlements": {tr: [{"size": len(p), "spaces": p} for p in ps] for tr, ps in result.settlement_spaces.items()},
        "road": _road(m, t, result) if final and m.special == "long-road" else None,
        "warnings": _warnings(m, t["tents"], t["totems"]),
    }
    totals = {p["tribe"]: p["total"] for p in players}
    eligible = [tr for tr in tribes if tr != t["third_tribe"]]
    winners, why = winner(totals, t["unused"], eligible)
    top = max((totals[e] for e in eligible), default=0)
    tied = [e for e in eligible if totals[e] == top]
    missing = [tr for tr in tied if tr not in t["unused"]] if len(tied) > 1 else []
    if missing:
        why += f" (no unused pieces given for {', '.join(missing)}: counted as 0; give them under 'unused')"
    if t["third_tribe"]:
        why += f" The third tribe {t['third_tribe']} scores but never wins (I-2P-4)."
    out["winners" if final else "leaders"] = winners
    out["tie_break"] = why
    return out


def _territories(m: IwariMap, t: dict, result: Tally) -> dict:
    out = {}
    for territory in m.territories:
        counts: dict[str, int] = {}
        for s in m.spaces_of(territory):
            if s in t["tents"]:
                counts[t["tents"][s]] = counts.get(t["tents"][s], 0) + 1
        if counts or territory in t["totems"] or territory in t["feats"]:
            out[territory] = {
                "colour": m.territories[territory],
                "tents": counts,
                "totems": t["totems"].get(territory, {}),
                "factor": feat_factor(t["feats"], territory),
                "points": result.tents.get(territory, {}),
            }
    return out


def _connections(m: IwariMap, t: dict, final: bool) -> dict:
    out = {}
    for c in m.connections:
        u, v = (t["totems"].get(x, {}) for x in c.between)
        holders = sorted(totem_holders(u) & totem_holders(v))
        k = feat_factor(t["feats"], CONNECTION_FEAT + c.id)
        worth = (sum(u.values()) + sum(v.values())) * k
        out[c.id] = {
            "between": list(c.between),
            "by": c.by,
            "mountain": c.mountain,
            "totems": sum(u.values()) + sum(v.values()),
            "factor": k,
            "holders": [] if c.mountain else holders,
            "points": {} if c.mountain or not holders else {h: worth for h in holders},
        }
    return out


def _road(m: IwariMap, t: dict, result: Tally) -> dict:
    counts: dict[str, int] = {}
    for s in m.road:
        if s in t["tents"]:
            counts[t["tents"][s]] = counts.get(t["tents"][s], 0) + 1
    return {"spaces": list(m.road), "tents": counts, "points": result.road}


def describe(out: dict) -> str:
    """The human text of a tally result: per tribe its total and parts, each connection, the winner and the tie-break."""
    final = out["scoring"] == "final"
    m = out["map"]
    lines = [
        f"Iwari {'final scoring (I-END-3)' if final else 'half-journey scoring: tents only (I-HALF-2)'}, "
        f"map {m['name']}"
        + (f" ({m['special']})" if m["special"] and m["special"] != m["name"] else "")
        + (", a schematic map" if m["source"] == "unknown" and m["name"] != "inline" else "")
    ]
    width = max(len(p["tribe"]) for p in out["players"])
    for p in out["players"]:
        parts = [f"tents {sum(p['tents'].values())}"]
        if final:
            parts += [f"totems {sum(p['totems'].values())}", f"settlements {sum(p['settlements'])}"]
            if out["road"] is not None:
                parts.append(f"road {p['road']}")
        before = f"score track {p['score_track']} + " if p["score_track"] else ""
        third = "  (third tribe)" if p["third_tribe"] else ""
        lines.append(f"\n{p['tribe']:<{width}}  total {p['total']} = {before}{' + '.join(parts)}{third}")
        if p["tents"]:
            lines.append("  tents:       " + ", ".join(_place(out["territories"][t], t, n) for t, n in p["tents"].items()))
        if p["totems"]:
            lines.append("  totems:      " + ", ".join(_link(out["connections"][c], c, n) for c, n in p["totems"].items()))
        if p["settlements"]:
            lines.append(
                "  settlements: "
                + ", ".join(f"{s['size']} tents ({' '.join(s['spaces'])})" for s in out["settlements"][p["tribe"]])
            )
        if final and p["road"]:
            lines.append(f"  road:        {p['road']} (I-MAP-3)")
    if final:
        skipped = [c for c, x in out["connections"].items() if x["mountain"]]
        if skipped:
            lines.append(f"\nNot scored, under mountains (I-TOT-1): connection {', '.join(skipped)}.")
    for w in out["warnings"]:
        lines.append(f"WARNING {w}")
    who = out["winners" if final else "leaders"]
    lines.append(f"\n{'Winner' if final else 'Leading at half journey'}: {', '.join(who) or 'none'}. {out['tie_break']}")
    return "\n".join(lines)


def _place(territory: dict, tid: str, points: int) -> str:
    counts = "/".join(f"{t}{n}" for t, n in sorted(territory["tents"].items(), key=lambda x: -x[1]))
    k = territory["factor"]
    return f"{tid} {points}" + (f" (x{k})" if k > 1 else "") + f" [{counts}]"


def _link(c: dict, cid: str, points: int) -> str:
    k = c["factor"]
    return f"#{cid} {'-'.join(c['between'])} {points}" + (f" (x{k})" if k > 1 else "")
