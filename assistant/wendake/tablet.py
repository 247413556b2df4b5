"""Wendake's part of the tablet: its part of the session's snapshot, its alerts in the players' words, its taps.

The table core's session (``assistant.table.session``) builds the game-neutral snapshot (moves, alerts,
confirmation, seq) and asks the game for the rest through ``GAME.snapshot`` (:func:`snapshot`),
``GAME.alert_words`` (:func:`alert_words`) and ``GAME.tablet_moves`` (:func:`tablet_moves`). The keys
:func:`snapshot` gives are documented in ``assistant/table/session.py``'s snapshot JSON (``tablewatch.snapshot/1``):
year, years, phase, pairs, turn order, players with their tracks and pairs, leader, results, score by year, one
entry per move (text and score change), the game options in force (spec section 20) and, in a solo game, the
Ghost's next instruction.

An alert speaks the players' language (:func:`alert_words`): ``fix_lines`` holds one short line per thing to move
("Put back: 1 yellow warrior from Lake Huron to North-West Home"), made from the tracker's put-back list
(``IllegalMove.put_back`` / ``TableOutOfSync.differences``) with place names from the built-in layouts and the
players' names, never region ids; ``fix`` is then only the rule's own advice. ``boards`` are the boards those
places are on, as schematic pictures with the places to fix marked: ``{"board", "title", "width", "height",
"regions": [{"points", "marked"}]}`` in the layout's millimetres (``web/templates/parts/alerts.html`` draws them).
``rules`` is every rule the alert refers to: its own, then those its texts cite (the badge shows all, so that
it matches the text: W-MOV-2 with "(W-TERM-2)"), and map ids in the texts (``T07``) read as names.
"""

from __future__ import annotations

import functools
import re

from assistant.errors import UserError
from assistant.table.observation import split_key
from assistant.wendake import ghost, rules
from assistant.wendake import moves as M
from assistant.wendake.board import unaccounted_cards
from assistant.wendake.describe import describe
from assistant.wendake.edition import load_edition
from assistant.wendake.edits import apply_edit
from assistant.wendake.scoring import results, score_player
from assistant.wendake.state import TRACKS, State, options_in_force
from assistant.wendake.words import piece_words
from calibration import builtin as layouts


# ---- the snapshot -------------------------------------------------------------------------------------------------
def snapshot(initial: State, moves: list, edits: dict, state: State) -> dict:
    """Wendake's part of the tablet's snapshot for the line ``moves`` (with ``edits``: move index -> hidden-
    information edits made before it) played from ``initial``, now at ``state`` (module docstring)."""
    ed = load_edition()
    entries, by_year = _move_log(initial, moves, edits)
    st = state
    proj = results(st, include_turtles=False)
    positions = {p: i for i, p in enumerate(st.turn_order)}
    players = []
    for i, pl in enumerate(st.players):
        pairs = []
        for a, b in st.pairs:
            va, vb = min(25, pl.tracks[a]), min(25, pl.tracks[b])
            pairs.append({"tracks": [a, b], "values": [va, vb], "lower": a if va <= vb else b, "counted": min(va, vb)})
        players.append({"index": i, "name": pl.name, "colour": pl.colour, "tracks": dict(pl.tracks), "pairs": pairs,
                        "projected_total": proj["players"][i]["total"], "turtles": len(pl.turtles),
                        "swap_tokens": pl.swap_tokens, "turn_position": positions.get(i, i) + 1,
                        "is_current": st.current == i, "resources": dict(pl.resources), "beavers": pl.beavers,
                        "long_house": dict(pl.long_house), "sages": pl.sages})
    any_points = any(p["projected_total"] for p in players)
    final = None
    if st.phase == "over":
        r = results(st)
        final = {"ranking": r["ranking"], "winner": r["winner"], "tie_break": r["tie_break"], "players": r["players"]}
    years = sorted(by_year)
    return {
        "year": st.year, "years": ed.years, "phase": st.phase, "pairs": [list(p) for p in st.pairs],
        "turn_order": list(st.turn_order), "current": st.current,
        "current_name": None if st.current is None else st.players[st.current].name,
        "players": players, "leader": proj["winner"] if any_points else None,
        "moves": entries, "results": final,
        "score_by_year": {"years": years, "players": [{"name": pl.name, "colour": pl.colour,
                                                       "totals": [by_year[y][i] for y in years]}
                                                      for i, pl in enumerate(st.players)]},
        **extras(st),
    }


def _move_log(initial: State, moves: list, edits: dict) -> tuple[list[dict], dict]:
    """(one entry per move: year, player, text, move JSON and score change per track; totals by year)."""
    ed = load_edition()
    state = initial.copy()
    entries, by_year = [], {}
    for i, m in enumerate(moves):
        for e in edits.get(i, ()):
            apply_edit(state, e, ed)
        before = state.copy()
        rules.apply(state, m, ed, validate=False)
        p = before.current
        change = {} if p is None else {t: state.players[p].tracks[t] - before.players[p].tracks[t]
                                       for t in TRACKS if state.players[p].tracks[t] != before.players[p].tracks[t]}
        entries.append({"index": i, "seq": None, "year": before.year,
                        "player": p, "name": None if p is None else before.players[p].name,
                        "text": describe(before, m, state), "move": M.move_to_json(m), "scores": change})
        if state.year != before.year or state.phase == "over":
            by_year[before.year] = _totals(state)
    by_year[state.year] = _totals(state)
    return entries, by_year


def _totals(state: State) -> list[int]:
    return [score_player(p.tracks, [], state.pairs, p.swap_tokens)["total"] for p in state.players]


def extras(st: State) -> dict:
    """The snapshot's ``options`` (every game option in force, spec section 20) and ``ghost`` (solo only)."""
    options = options_in_force(st.options)
    return {"options": options, "options_changed": sum(o["changed"] for o in options),
            "ghost": ghost_view(st) if st.solo is not None else None}


def ghost_view(st: State) -> dict:
    """What the tablet shows in a solo game: the Ghost's next instruction (``ghost.instruction``, W-SOLO-8..11)
    and, while the year's Ghost mask card is awaited, the cards it can be (for the tap form)."""
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


# ---- taps on the tablet -----------------------------------------------------------------------------------------
def tablet_moves(state: State | None, action: str, payload: dict) -> list[dict]:
    """The moves (JSON) a tap on the tablet enters: ``"ghost_card"`` with ``{"card"}``, the Ghost's revealed mask
    card (W-SOLO-8). ``UserError`` when the tap does not fit the game."""
    if action != "ghost_card":
        raise UserError(f"Wendake has no tablet action {action!r}.")
    card = payload.get("card")
    if state is None or state.solo is None:
        raise UserError("this is not a solo game: only the solo Ghost has a mask card to enter (W-SOLO-8).")
    if not (state.phase == "actions" and state.solo.awaiting_card):
        raise UserError("the Ghost's mask card for this year is already known; it is revealed once, at the start of "
                        "the year (W-SOLO-8). Use undo if the wrong card was entered.")
    if not isinstance(card, str) or card not in load_edition().mask_cards:
        raise UserError(f"{card!r} is not a mask card; tap one of the cards listed.")
    return [{"type": "ghost_card", "card": card}]


# ---- alerts in the players' words ---------------------------------------------------------------------------------
RULE_ID = re.compile(r"\bW(?:-[A-Za-z0-9]+)+\b")
CITED = re.compile(r"\s*\((W(?:-[A-Za-z0-9]+)+)\)")  # "... lakes or rivers (W-TERM-2)."
MAP_ID = re.compile(r"\b([HT]\d{1,2}|L\d)\b")
MAX_FIX_LINES = 6


def alert_words(state: State | None, alert: dict) -> dict:
    """One alert in the players' words (module docstring): ``alert`` holds its ``kind``, ``rule``, ``message``,
    ``fix`` (the rule's own advice) and ``put_back`` (the tracker's list, may be empty); gives ``rules``,
    ``message``, ``fix``, ``fix_lines`` and ``boards``."""
    names = [p.name for p in state.players] if state is not None else []
    pairs = [list(p) for p in state.pairs] if state is not None else []
    put_back = list(alert.get("put_back") or [])
    message = str(alert.get("message") or "")
    fix = str(alert.get("fix") or "")
    lines = fix_lines(put_back, names, pairs) if put_back else []
    if put_back and alert.get("kind") == "TableOutOfSync":
        message = "The table does not match any legal move. Put the pieces back as shown, or enter what happened."
    rule = str(alert.get("rule") or "")
    cited = [rule] if rule else []
    for text in (message, fix):
        cited += [r for r in RULE_ID.findall(text) if r not in cited]
    message, fix = CITED.sub("", message), CITED.sub("", fix)
    return {"rules": cited, "message": _map_names(state, message), "fix": _map_names(state, fix),
            "fix_lines": lines, "boards": board_marks(put_back, names)}


@functools.lru_cache(maxsize=32)
def _regions(board: str) -> dict:
    """{region id: region} of a built-in layout; {} for a board without one."""
    try:
        return {r["id"]: r for r in layouts.read(board).get("regions", [])}
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
            lines.append(f"Turn over: {piece_words(key, 1)[:-len(f' ({side} side)')]} on {place} to its {side} side")
    # a piece where it should not be, missing where it should: move it back
    moved: dict[tuple, int] = {}
    for key, place in list(extra):
        dest = next(((k, p) for k, p in short if k == key), None)
        if dest is not None:
            short.remove(dest)
            extra.remove((key, place))
            moved[(key, place, dest[1])] = moved.get((key, place, dest[1]), 0) + 1
    lines += [f"Put back: {piece_words(k, n)} from {a} to {b}" for (k, a, b), n in moved.items()]
    for what, items, word in (("Take away", extra, "from"), ("Put back", short, "on")):
        counted: dict[tuple, int] = {}
        for k, p in items:
            counted[(k, p)] = counted.get((k, p), 0) + 1
        lines += [f"{what}: {piece_words(k, n)} {word} {p}" for (k, p), n in counted.items()]
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
            w, h = layouts.read(board)["size_mm"]
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


def _map_names(state: State | None, text: str) -> str:
    """Map ids in a rule text (``T07``, ``H2``, ``L1``) as their printed names, when the game's map knows them."""
    if state is None or not text:
        return text
    try:
        m = load_edition().raw["map"]["maps"].get(str(state.n), {})
    except UserError:
        return text
    known = {**{k: v["name"] for k, v in m.get("territories", {}).items()}, **{k: v["name"] for k, v in m.get("lakes", {}).items()}}
    return MAP_ID.sub(lambda mt: known.get(mt.group(1), mt.group(1)), text)
