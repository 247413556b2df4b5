"""The one place the web app touches the game session (``assistant.table.session.GameSession``) and its data shapes.

The app calls only these functions, so a change in the session's API or snapshot JSON is absorbed here:
``snapshot`` returns the session's snapshot normalised to the view model the templates use, ``events_since``
returns ``[(seq, event JSON text)]``, and the actions (``undo``, ``correct``, ``confirm``) pass through.

View model (``snapshot``)::

    {"game", "year", "phase", "finished", "leader", "current", "turn_order": [names], "pairs": [[a, b], ...],
     "players": [{"name", "colour", "tracks": {track: n}, "pairs": [{"tracks", "values", "lower", "counted"}],
                  "projected", "turtles", "swap_tokens", "is_current", "is_leader", "turn_position"}],
     "alerts": [{"rule", "rules", "message", "fix", "fix_lines", "boards", "kind", "candidates": [{"index", "text"}]}],
     "log": [{"index", "text", "player", "year", "changes": {track: +n}, "kind"}],
     "results": None | {"players": [...per-player score_player breakdown + name], "winner", "tie_break", "ranking"},
     "score_by_year": {name: [score after year 1, 2, ...]}, "raw": <the session's own snapshot>,
     "options": [{"option", "rule", "value", "default", "changed", "when_true"}],   # state.options_in_force
     "options_changed": n,
     "ghost": None | {"text", "awaiting_card", "card_unread", "difficulty", "cards", "year_card", "score_tracks",
                      "total", "placeholder", "next_slot", "choices": [{"id", "label"}]}}   # solo games only

An alert speaks the players' language (``_alert_view``): ``fix_lines`` holds one short line per thing to move
("Put back: 1 yellow warrior from Lake Huron to North-West Home"), made from the tracker's put-back list
(``IllegalMove.put_back`` / ``TableOutOfSync.differences``) with place names from the built-in layouts and the
players' names, never region ids; ``fix`` is then only the rule's own advice. ``boards`` are the boards those
places are on, as schematic pictures with the places to fix marked: ``{"board", "title", "width", "height",
"regions": [{"points", "marked"}]}`` in the layout's millimetres (``parts/alerts.html`` draws them as SVG).
``rules`` is every rule the alert refers to: its own, then those its texts cite (the badge shows all, so that
it matches the text: W-MOV-2 with "(W-TERM-2)"), and map ids in the texts (``T07``) read as names.

``options`` and ``ghost`` come from the engine State the session holds (``engine_state``: the session's
``state`` property, else ``session.tracker.state``); a session without one (the NoGame page, test doubles)
shows neither. ``ghost_card(session, card)`` enters the Ghost's revealed mask card as a correction move.
"""

from __future__ import annotations

import functools
import json
import re

from assistant.errors import UserError
from assistant.table.observation import split_key
from assistant.wendake.edition import load_edition
from calibration import layout

TRACKS = ("economic", "military", "ritual", "mask")


# ---- events ----------------------------------------------------------------------------------------------
def last_seq(session) -> int:
    value = getattr(session, "last_seq", 0)
    return int(value() if callable(value) else value or 0)


def event_json(event) -> dict:
    if hasattr(event, "to_json"):
        return event.to_json()
    if isinstance(event, dict):
        return event
    raise TypeError(f"an event must have to_json() or be a dict; got {type(event).__name__}")


def events_since(session, seq: int, timeout: float | None) -> list[tuple[int, str]]:
    """[(seq, JSON text)] of the session's events after ``seq``, waiting up to ``timeout`` s for the first."""
    raw = session.events_since(seq, timeout=timeout)
    out = []
    for n, item in enumerate(raw or ()):
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], int):
            s, ev = item
            d = event_json(ev)
        else:
            d = event_json(item)
            s = getattr(item, "seq", None)
            if s is None:
                s = d.get("seq")
            if s is None:  # events without numbers: count up from the one asked after
                s = seq + n + 1
        d = dict(d)
        d.setdefault("seq", int(s))
        out.append((int(s), json.dumps(d, separators=(",", ":"), default=str)))
    return out


# ---- actions ---------------------------------------------------------------------------------------------
def undo(session):
    return session.undo()


def correct(session, moves: list):
    return session.correct(moves)


def confirm(session, index: int):
    return session.confirm(index)


def feed(session, observation):
    return session.feed(observation)


# ---- snapshot --------------------------------------------------------------------------------------------
def _first(d: dict, *keys, default=None):
    for k in keys:
        if isinstance(d, dict) and k in d and d[k] is not None:
            return d[k]
    return default


def _name_of(value, names: list[str]):
    """A player name from a name or an index."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return names[value] if 0 <= value < len(names) else None
    if isinstance(value, dict):
        return _first(value, "name", "player")
    return str(value)


def _pairs_for(tracks: dict, pairs: list) -> list[dict]:
    out = []
    for pair in pairs:
        a, b = pair[0], pair[1]
        va, vb = int(tracks.get(a, 0)), int(tracks.get(b, 0))
        lower = a if va < vb else b if vb < va else None
        out.append({"tracks": [a, b], "values": [va, vb], "lower": lower, "counted": min(va, vb)})
    return out


def _player_pairs(p: dict, tracks: dict, pairs: list) -> list[dict]:
    given = p.get("pairs")
    if not given:
        return _pairs_for(tracks, pairs)
    out = []
    for x in given:
        if isinstance(x, dict) and "tracks" in x:
            a, b = x["tracks"][0], x["tracks"][1]
            values = x.get("values") or [tracks.get(a, 0), tracks.get(b, 0)]
            va, vb = int(values[0]), int(values[1])
            lower = x.get("lower")
            if lower is None or lower is True or lower is False:
                lower = a if va < vb else b if vb < va else None
            out.append({"tracks": [a, b], "values": [va, vb], "lower": lower, "counted": int(x.get("counted", min(va, vb)))})
        elif isinstance(x, (list, tuple)) and len(x) == 2:
            out += _pairs_for(tracks, [x])
    return out


def _turtles(value) -> int:
    if isinstance(value, list):
        return len(value)
    if isinstance(value, dict):
        return int(_first(value, "count", "n", default=0))
    return int(value or 0)


def _changes(entry: dict) -> dict:
    ch = _first(entry, "score_changes", "changes", "scores", "delta", default={})
    if isinstance(ch, dict):
        # {"Ann": {"military": 2}} (per player) or {"military": 2}
        if ch and all(isinstance(v, dict) for v in ch.values()):
            flat = {}
            for who, per in ch.items():
                for t, n in per.items():
                    if n:
                        flat[f"{who} {t}"] = int(n)
            return flat
        return {k: int(v) for k, v in ch.items() if isinstance(v, (int, float)) and v}
    if isinstance(ch, list):
        return {str(x.get("track")): int(x.get("delta", x.get("points", 0))) for x in ch if isinstance(x, dict)}
    return {}


def _shared_start(cands: list) -> tuple[list[str], list]:
    """(the move texts every candidate starts with, the candidates without them): the buttons then show only where
    the candidates differ ("puts a canoe on L1" / "on L2" after "Bob: activates Canoe ..."); a candidate that is
    only the shared start reads "nothing more"."""
    lists = [c.get("moves") for c in cands if isinstance(c, dict)]
    if len(lists) != len(cands) or len(cands) < 2 or not all(isinstance(m, list) for m in lists):
        return [], cands
    n = 0
    while all(len(m) > n for m in lists) and all(str(m[n]) == str(lists[0][n]) for m in lists):
        n += 1
    if not n or all(len(m) == n for m in lists):  # nothing shared, or nothing but (texts alike: leave them whole)
        return [], cands
    return [str(m) for m in lists[0][:n]], [{**c, "moves": c["moves"][n:] or ["nothing more"]} for c in cands]


def _candidate(c, i: int) -> dict:
    """{"index", "text"} for one candidate explanation of a change (a text, or {"index", "moves": [texts]})."""
    if isinstance(c, dict):
        moves = _first(c, "moves", "text", "description", default="")
        text = "; ".join(str(m) for m in moves) if isinstance(moves, list) else str(moves)
        return {"index": int(c.get("index", i)), "text": text}
    return {"index": i, "text": "; ".join(map(str, c)) if isinstance(c, list) else str(c)}


def snapshot(session) -> dict:
    """The session's snapshot normalised to the view model (see the module docstring)."""
    raw = session.snapshot() or {}
    players_raw = list(_first(raw, "players", default=[]))
    names = [str(_first(p, "name", default=f"player {i + 1}")) for i, p in enumerate(players_raw)]
    pairs = [list(p) for p in _first(raw, "pairs", default=[])]
    current = _first(raw, "current_name") or _name_of(_first(raw, "whose_turn", "current", "current_player"), names)
    leader = _name_of(_first(raw, "leader"), names)
    order = [_name_of(x, names) for x in _first(raw, "turn_order", default=[])]
    order = [x for x in order if x]
    players = []
    for i, p in enumerate(players_raw):
        tracks = {t: int((_first(p, "tracks", default={}) or {}).get(t, 0)) for t in TRACKS}
        proj = _first(p, "projected_total", "projected", "projected_score", "projected_final", "total", "score", default=None)
        if isinstance(proj, dict):
            proj = _first(proj, "total", default=None)
        player_pairs = _player_pairs(p, tracks, pairs)
        if proj is None:
            proj = sum(x["counted"] for x in player_pairs) + int(_first(p, "swap_tokens", default=0))
        players.append({
            "name": names[i],
            "colour": str(_first(p, "colour", "color", default="grey")),
            "tribe": _first(p, "tribe"),
            "tracks": tracks,
            "pairs": player_pairs,
            "projected": int(proj),
            "turtles": _turtles(_first(p, "turtles", "turtle_count", default=0)),
            "swap_tokens": int(_first(p, "swap_tokens", "swap_tokens_left", default=0)),
            "is_current": names[i] == current,
            "is_leader": names[i] == leader,
            "turn_position": order.index(names[i]) + 1 if names[i] in order else None,
        })
    if leader is None and players:
        leader = max(players, key=lambda x: x["projected"])["name"]
        for x in players:
            x["is_leader"] = x["name"] == leader
    alerts = []
    for a in _first(raw, "alerts", "active_alerts", default=[]):
        if isinstance(a, str):
            a = {"message": a}
        cands = a.get("candidates") or []
        alerts.append(_alert_view(session, a, names, pairs) | {
            "kind": a.get("kind") or "IllegalMove",
            "candidates": [_candidate(c, i) for i, c in enumerate(cands)],
        })
    conf = _first(raw, "confirmation")
    if isinstance(conf, dict) and conf.get("candidates"):
        shared, cands = _shared_start(conf["candidates"])
        texts = [_candidate(c, i) for i, c in enumerate(cands)]
        target = next((a for a in alerts if a["kind"] == "NeedsConfirmation"), None)
        if target is None:
            target = {"rule": "", "rules": [], "message": "The camera saw a change that fits more than one move.", "fix": "",
                      "fix_lines": [], "boards": [], "kind": "NeedsConfirmation", "candidates": []}
            alerts.append(target)
        target["candidates"] = texts
        if shared:
            target["message"] = f"{target['message']} After \u201c{'; '.join(shared)}\u201d, which was it?"
    status = _first(raw, "log_status")
    if isinstance(status, dict) and status.get("ok") is False:
        alerts.append({"rule": "", "rules": [], "fix_lines": [], "boards": [], "kind": "LogProblem", "candidates": [],
                       "message": status.get("message") or "The game log cannot be written.",
                       "fix": "Free disk space or check the database file; moves are not being saved."})
    log = []
    for n, e in enumerate(_first(raw, "log", "moves", "move_log", default=[])):
        if isinstance(e, str):
            e = {"text": e}
        log.append({
            "index": int(_first(e, "index", "seq", default=n)),
            "text": str(_first(e, "text", "description", "describe", default=_first(e, "type", default="move"))),
            "player": _first(e, "name") or _name_of(_first(e, "player"), names),
            "year": _first(e, "year"),
            "changes": _changes(e),
            "kind": _first(e, "kind", default="move"),
        })
    finished = bool(_first(raw, "finished", "over", default=False)) or _first(raw, "phase") == "over"
    results = _first(raw, "results", "final", "final_results")
    if isinstance(results, dict) and "players" in results:
        results = dict(results)
    else:
        results = None
    by_year = _first(raw, "score_by_year", "scores_by_year", default={}) or {}
    if isinstance(by_year, dict) and isinstance(by_year.get("players"), list):  # {"years", "players": [{name, totals}]}
        by_year = {str(p.get("name")): list(p.get("totals") or []) for p in by_year["players"]}
    if isinstance(by_year, list):  # [{"year": 1, "scores": {name: n}}] or [[n, n, ...] per year]
        conv: dict[str, list] = {n: [] for n in names}
        for row in by_year:
            scores = row.get("scores", row) if isinstance(row, dict) else dict(zip(names, row))
            for n in names:
                if n in scores:
                    conv[n].append(int(scores[n]))
        by_year = conv
    return {
        "game": str(_first(raw, "game", default="wendake")),
        "game_id": _first(raw, "game_id", "id"),
        "year": _first(raw, "year", default=1),
        "phase": str(_first(raw, "phase", default="")),
        "finished": finished,
        "leader": leader,
        "current": current,
        "turn_order": order,
        "pairs": pairs,
        "players": players,
        "alerts": alerts,
        "log": log,
        "results": results,
        "score_by_year": {str(k): [int(v) for v in vs] for k, vs in by_year.items()},
        "raw": raw,
        **engine_extras(session),
    }


# ---- alerts in the players' words -----------------------------------------------------------------------------
RULE_ID = re.compile(r"\bW(?:-[A-Za-z0-9]+)+\b")
CITED = re.compile(r"\s*\((W(?:-[A-Za-z0-9]+)+)\)")  # "... lakes or rivers (W-TERM-2)."
MAP_ID = re.compile(r"\b([HT]\d{1,2}|L\d)\b")
MAX_FIX_LINES = 6
PIECE_NOUNS = {"warrior_standing": "warrior", "warrior_lying": "outpost warrior", "action_marker": "action marker",
               "tribe_disk": "tribe disk", "fire_token": "Sacred Fire token", "progress_tile": "progress tile"}


@functools.lru_cache(maxsize=32)
def _regions(board: str) -> dict:
    """{region id: region} of a built-in layout; {} for a board without one."""
    try:
        return {r["id"]: r for r in layout.load_builtin(board).get("regions", [])}
    except (UserError, OSError, ValueError, KeyError, TypeError):
        return {}


def _board_owner(board: str, names: list[str]) -> str | None:
    m = re.fullmatch(r"wendake-village-(\d+)", board)
    if not m:
        return None
    p = int(m.group(1)) - 1
    return f"{names[p]}'s" if 0 <= p < len(names) else f"village {p + 1}'s"


def place_name(board: str, region: str, names: list[str], pairs: list) -> str:
    """Where a region is, as a player says it: "Pine Ridge", "the corn area of Pine Ridge", "Bob's Long House",
    "Bob's grid, row 1, column 3", "the Economic track, space 17", "the mask board's ceremony space 2"."""
    regions = _regions(board)
    reg = regions.get(region, {})
    label = str(reg.get("label") or region)
    owner = _board_owner(board, names)
    if board.startswith("wendake-map"):
        if reg.get("kind") == "productive_area":
            parent = regions.get(reg.get("parent"), {})
            what = "hunting" if label == "hunt" else label
            return f"the {what} area of {parent.get('label') or reg.get('parent')}"
        return label
    if owner:
        if region == "progress":
            return f"{owner} progress spaces"
        if region.startswith("slot."):
            row, col = divmod(int(region.split(".")[1]), 3)
            return f"{owner} grid, row {row + 1}, column {col + 1}"
        if region.startswith("sage."):
            return f"{owner} sage space {region.split('.')[1]}"
        if region.startswith("resource."):
            return f"{owner} {label} space"
        return f"{owner} {label}"
    m = re.fullmatch(r"wendake-scores-([ab])", board)
    if m and "." in region:
        row, space = region.split(".", 1)
        i = "ab".index(m.group(1))
        if i < len(pairs) and row in ("upper", "lower"):
            return f"the {str(pairs[i][0 if row == 'upper' else 1]).capitalize()} track, space {space}"
        return f"score board {m.group(1).upper()}, {row} row, space {space}"
    if board == "wendake-mask":
        return "the mask board's restore area" if region == "restore" else f"the mask board's {label.replace('_', ' ')}"
    return label


def _piece(key: str, n: int) -> str:
    """``"woman:blue:colour"``, 2 -> "2 blue women (colour side)"."""
    cls, colour, side = split_key(key)
    if cls == "progress_tile":
        return f"{n} level-{colour.lstrip('P')} progress tile{'s' if n > 1 else ''} ({side} up)"
    noun = PIECE_NOUNS.get(cls, cls.replace("_", " "))
    if n > 1:
        noun = "women" if noun == "woman" else noun + "s"
    return f"{n} {'' if colour == 'none' else colour + ' '}{noun}" + (f" ({side} side)" if side else "")


def _tile(value) -> str:
    tid, _, side = str(value).partition(":")
    try:
        name = load_edition().tiles[tid].name
    except (KeyError, UserError):
        name = tid
    return f"the {name} tile" + (f" ({side} side up)" if side else "")


def fix_lines(put_back: list, names: list[str], pairs: list) -> list[str]:
    """One short line per thing to move, from the tracker's put-back list (module docstring)."""
    lines, extra, short = [], [], []  # extra: (piece, place); short: (piece, place) per piece
    for d in put_back:
        if not isinstance(d, dict) or "board" not in d:
            continue
        region = str(d.get("region", ""))
        place = place_name(d["board"], region.removesuffix("#tile"), names, pairs)
        exp, seen = d.get("expected"), d.get("seen")
        if region.endswith("#tile") or not isinstance(exp or {}, dict) or not isinstance(seen or {}, dict):
            if exp is None:
                lines.append(f"Take away: {_tile(seen)} from {place}")
            elif seen is None:
                lines.append(f"Put back: {_tile(exp)} on {place}")
            else:
                lines.append(f"Put back: {_tile(exp)} on {place} (not {_tile(seen)})")
            continue
        exp, seen = exp or {}, seen or {}
        for key in sorted(set(exp) | set(seen)):
            delta = int(seen.get(key, 0)) - int(exp.get(key, 0))
            for _ in range(abs(delta)):
                (extra if delta > 0 else short).append((key, place))
    # the same piece shown on its other side where it belongs: turn it over
    for key, place in list(short):
        cls, colour, side = split_key(key)
        flipped = next(((k, p) for k, p in extra if p == place and split_key(k)[:2] == (cls, colour) and side), None)
        if flipped is not None:
            extra.remove(flipped)
            short.remove((key, place))
            lines.append(f"Turn over: {_piece(key, 1)[:-len(f' ({side} side)')]} on {place} to its {side} side")
    # a piece where it should not be, missing where it should: move it back
    moves: dict[tuple, int] = {}
    for key, place in list(extra):
        dest = next(((k, p) for k, p in short if k == key), None)
        if dest is not None:
            short.remove(dest)
            extra.remove((key, place))
            moves[(key, place, dest[1])] = moves.get((key, place, dest[1]), 0) + 1
    lines += [f"Put back: {_piece(k, n)} from {a} to {b}" for (k, a, b), n in moves.items()]
    for what, items, word in (("Take away", extra, "from"), ("Put back", short, "on")):
        counted: dict[tuple, int] = {}
        for k, p in items:
            counted[(k, p)] = counted.get((k, p), 0) + 1
        lines += [f"{what}: {_piece(k, n)} {word} {p}" for (k, p), n in counted.items()]
    if len(lines) > MAX_FIX_LINES:
        lines = lines[:MAX_FIX_LINES - 1] + [f"… and {len(lines) - MAX_FIX_LINES + 1} more: see the Board page"]
    return lines


def board_marks(put_back: list, names: list[str]) -> list[dict]:
    """The boards of the put-back places as schematic pictures, those places marked (module docstring)."""
    marked: dict[str, set] = {}
    for d in put_back:
        if isinstance(d, dict) and "board" in d:
            region = str(d.get("region", "")).removesuffix("#tile")
            regions = _regions(d["board"])
            ids = {r for r in regions if r.startswith("progress.")} if region == "progress" else {region}
            marked.setdefault(d["board"], set()).update(i for i in ids if i in regions)
    out = []
    for board, ids in marked.items():
        regions = _regions(board)
        if not ids:
            continue
        try:
            w, h = layout.load_builtin(board)["size_mm"]
        except (UserError, OSError, KeyError, ValueError):
            continue
        owner = _board_owner(board, names)
        title = (f"{owner} village" if owner else "The map" if board.startswith("wendake-map")
                 else "The mask board" if board == "wendake-mask" else f"Score board {board[-1].upper()}")
        shapes = [{"points": " ".join(f"{x:.0f},{y:.0f}" for x, y in r["polygon"]), "marked": rid in ids}
                  for rid, r in regions.items() if r.get("polygon") and r.get("kind") != "colour_spot"]
        shapes.sort(key=lambda r: r["marked"])  # the marked places drawn last, over their neighbours
        out.append({"board": board, "title": title, "width": w, "height": h, "regions": shapes})
    return out


def _map_names(session, text: str) -> str:
    """Map ids in a rule text (``T07``, ``H2``, ``L1``) as their printed names, when the game's map knows them."""
    st = engine_state(session)
    if st is None or not text:
        return text
    try:
        m = load_edition().raw["map"]["maps"].get(str(st.n), {})
    except UserError:
        return text
    known = {**{k: v["name"] for k, v in m.get("territories", {}).items()}, **{k: v["name"] for k, v in m.get("lakes", {}).items()}}
    return MAP_ID.sub(lambda mt: known.get(mt.group(1), mt.group(1)), text)


def _put_back_of(session, a: dict) -> list:
    """The alert's put-back list: from the snapshot when it carries one, else from the tracker's alert event."""
    given = a.get("put_back") or a.get("differences")
    if isinstance(given, list):
        return given
    ev = getattr(getattr(session, "tracker", None), "alerts", {}).get(a.get("id"))
    return list(getattr(ev, "put_back", None) or getattr(ev, "differences", None) or [])


def _alert_view(session, a: dict, names: list[str], pairs: list) -> dict:
    """rule(s), message, fix, fix_lines and boards of one alert of the session's snapshot (module docstring)."""
    put_back = _put_back_of(session, a)
    message = str(a.get("message") or a.get("text") or "")
    fix = str(a.get("fix") or "")
    if put_back:
        lines = fix_lines(put_back, names, pairs)
        if a.get("kind") == "TableOutOfSync":
            message = "The table does not match any legal move. Put the pieces back as shown, or enter what happened."
        ev = getattr(getattr(session, "tracker", None), "alerts", {}).get(a.get("id"))
        fix = str(getattr(ev, "fix", None) or "") if a.get("kind") in ("IllegalMove", "TableOutOfSync") else fix
    else:
        lines = []
    rule = str(a.get("rule") or "")
    rules = [rule] if rule else []
    for text in (message, fix):
        rules += [r for r in RULE_ID.findall(text) if r not in rules]
    message, fix = CITED.sub("", message), CITED.sub("", fix)
    return {"rule": rule, "rules": rules, "message": _map_names(session, message), "fix": _map_names(session, fix),
            "fix_lines": lines, "boards": board_marks(put_back, names)}


# ---- from the engine state: game options and the solo Ghost ----------------------------------------------------
def engine_state(session):
    """The engine State of the game in progress, or None. ``GameSession.state`` is ``tracker.state``."""
    st = getattr(session, "state", None)
    if st is None:
        st = getattr(getattr(session, "tracker", None), "state", None)
    return st if hasattr(st, "options") and hasattr(st, "players") and hasattr(st, "solo") else None


def engine_extras(session) -> dict:
    """The view model's ``options`` (every game option in force, spec section 20) and ``ghost`` (solo only)."""
    st = engine_state(session)
    if st is None:
        return {"options": [], "options_changed": 0, "ghost": None}
    from assistant.wendake.state import options_in_force

    options = options_in_force(st.options)
    return {"options": options, "options_changed": sum(o["changed"] for o in options),
            "ghost": ghost_view(st) if st.solo is not None else None}


def ghost_view(st) -> dict:
    """What the tablet shows in a solo game: the Ghost's next instruction (``ghost.instruction``, W-SOLO-8..11)
    and, while the year's Ghost mask card is awaited, the cards it can be (for the tap form)."""
    from assistant.wendake import ghost
    from assistant.wendake.generate import unaccounted_cards

    ed = load_edition()
    solo = st.solo
    awaiting = st.phase == "actions" and solo.awaiting_card
    top = st.mask_deck[-1] if st.mask_deck else None
    unread = awaiting and top is None
    next_slot = next((i for i, u in enumerate(solo.under) if not u), None)
    if st.phase == "over":
        text = "The game is over."
    elif unread:  # the engine cannot know the card: ask for it instead of guessing one
        text = (f"Year {st.year}: reveal the top mask card of the deck for the Ghost and put it under Ghost card "
                f"{(next_slot or 0) + 1} ({solo.cards[next_slot or 0]}). If the camera cannot read it, tap it below.")
    else:
        text = ghost.instruction(st, ed)["text"]
    choices = []
    if awaiting:
        ids = [top] if top is not None else sorted(unaccounted_cards(st, ed))
        for cid in ids:
            c = ed.mask_cards[cid]
            flag = ghost.FLAG_OF_OVAL.get(c.oval, "?")
            choices.append({"id": cid, "label": f"{cid}: {c.mask}, {c.oval} oval ({flag} flag), line {c.ghost_line}"})
    g = st.players[solo.ghost]
    return {"text": text, "awaiting_card": awaiting, "card_unread": unread, "difficulty": solo.difficulty,
            "cards": list(solo.cards), "year_card": solo.year_card, "score_tracks": list(solo.score_tracks),
            "total": sum(g.tracks[t] for t in solo.score_tracks), "placeholder": bool(ed.ghost_placeholder),
            "next_slot": next_slot, "choices": choices}


def ghost_card(session, card) -> object:
    """Enter the Ghost's revealed mask card (W-SOLO-8) from a tap on the tablet, as a correction move."""
    st = engine_state(session)
    if st is None or st.solo is None:
        raise UserError("this is not a solo game: only the solo Ghost has a mask card to enter (W-SOLO-8).")
    if not (st.phase == "actions" and st.solo.awaiting_card):
        raise UserError("the Ghost's mask card for this year is already known; it is revealed once, at the start of "
                        "the year (W-SOLO-8). Use undo if the wrong card was entered.")
    if not isinstance(card, str) or card not in load_edition().mask_cards:
        raise UserError(f"{card!r} is not a mask card; tap one of the cards listed.")
    return session.correct([{"type": "ghost_card", "card": card}])


class NoGame:
    """The session the app serves before any game exists: an empty scoreboard; the wizard starts a game.
    ``problem``: the game log exists but cannot be opened (damaged, locked...): the scoreboard and the alert
    banner say so instead of "No game yet", and changes are refused with it (assistant.apps.serve.open_session)."""

    last_seq = 0

    def __init__(self, problem: str | None = None):
        import threading

        self._closed = threading.Event()
        self.problem = problem

    def snapshot(self) -> dict:
        snap = {"players": [], "phase": "no game", "alerts": [], "log": []}
        if self.problem:
            snap.update(log_problem=self.problem, log_status={"ok": False, "message": self.problem})
        return snap

    def events_since(self, seq: int, timeout: float | None = None) -> list:
        self._closed.wait(timeout if timeout is not None else 1.0)
        return []

    def _none(self, *args, **kwargs):
        from assistant.errors import UserError

        if self.problem:
            raise UserError(f"the game log cannot be opened: {self.problem}")
        raise UserError("there is no game yet; start one in Setup.")

    undo = correct = confirm = feed = _none
