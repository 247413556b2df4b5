"""The one place the web app touches the game session (``assistant.session.GameSession``) and its data shapes.

The app calls only these functions, so a change in the session's API or snapshot JSON is absorbed here:
``snapshot`` returns the session's snapshot normalised to the view model the templates use, ``events_since``
returns ``[(seq, event JSON text)]``, and the actions (``undo``, ``correct``, ``confirm``) pass through.

View model (``snapshot``)::

    {"game", "year", "phase", "finished", "leader", "current", "turn_order": [names], "pairs": [[a, b], ...],
     "players": [{"name", "colour", "tracks": {track: n}, "pairs": [{"tracks", "values", "lower", "counted"}],
                  "projected", "turtles", "swap_tokens", "is_current", "is_leader", "turn_position"}],
     "alerts": [{"rule", "message", "fix", "kind", "candidates": [{"index", "text"}]}],
     "log": [{"index", "text", "player", "year", "changes": {track: +n}, "kind"}],
     "results": None | {"players": [...per-player score_player breakdown + name], "winner", "tie_break", "ranking"},
     "score_by_year": {name: [score after year 1, 2, ...]}, "raw": <the session's own snapshot>,
     "options": [{"option", "rule", "value", "default", "changed", "when_true"}],   # state.options_in_force
     "options_changed": n,
     "ghost": None | {"text", "awaiting_card", "card_unread", "difficulty", "cards", "year_card", "score_tracks",
                      "total", "placeholder", "next_slot", "choices": [{"id", "label"}]}}   # solo games only

``options`` and ``ghost`` come from the engine State the session holds (``engine_state``: the session's
``state`` property, else ``session.tracker.state``); a session without one (the NoGame page, test doubles)
shows neither. ``ghost_card(session, card)`` enters the Ghost's revealed mask card as a correction move.
"""

from __future__ import annotations

import json

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
        alerts.append({
            "rule": a.get("rule") or "",
            "message": a.get("message") or a.get("text") or "",
            "fix": a.get("fix") or "",
            "kind": a.get("kind") or "IllegalMove",
            "candidates": [_candidate(c, i) for i, c in enumerate(cands)],
        })
    conf = _first(raw, "confirmation")
    if isinstance(conf, dict) and conf.get("candidates"):
        shared, cands = _shared_start(conf["candidates"])
        texts = [_candidate(c, i) for i, c in enumerate(cands)]
        target = next((a for a in alerts if a["kind"] == "NeedsConfirmation"), None)
        if target is None:
            target = {"rule": "", "message": "The camera saw a change that fits more than one move.", "fix": "",
                      "kind": "NeedsConfirmation", "candidates": []}
            alerts.append(target)
        target["candidates"] = texts
        if shared:
            target["message"] = f"{target['message']} After \u201c{'; '.join(shared)}\u201d, which was it?"
    status = _first(raw, "log_status")
    if isinstance(status, dict) and status.get("ok") is False:
        alerts.append({"rule": "", "kind": "LogProblem", "candidates": [],
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
    from assistant.wendake.edition import load_edition
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
    from assistant.errors import UserError
    from assistant.wendake.edition import load_edition

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
    """The session the app serves before any game exists: an empty scoreboard; the wizard starts a game."""

    last_seq = 0

    def __init__(self):
        import threading

        self._closed = threading.Event()

    def snapshot(self) -> dict:
        return {"players": [], "phase": "no game", "alerts": [], "log": []}

    def events_since(self, seq: int, timeout: float | None = None) -> list:
        self._closed.wait(timeout if timeout is not None else 1.0)
        return []

    def _none(self, *args, **kwargs):
        from assistant.errors import UserError

        raise UserError("there is no game yet; start one in Setup.")

    undo = correct = confirm = feed = _none
