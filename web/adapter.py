"""The one place the web app touches the game session (``assistant.table.session.GameSession``) and its data shapes.

The app calls only these functions, so a change in the session's API or snapshot JSON is absorbed here:
``snapshot`` returns the session's snapshot normalised to the page's snapshot the templates use (``v`` in them),
``events_since`` returns ``[(seq, event JSON text)]``, ``setup_check`` the set-up check's JSON, and the actions (``undo``, ``correct``, ``confirm``,
``tablet_action``) pass through. The web app reaches a game only through the table core: the session's
``game``, else the registry (``assistant.table.game``) by the snapshot's game name.

The page's snapshot (``snapshot``)::

    {"game", "game_id", "year", "phase", "finished", "leader", "current", "turn_order": [names],
     "pairs": [[a, b], ...], "players": [{the game's player fields, "name", "colour", "tribe", "projected",
                  "is_current", "is_leader", "turn_position"}],
     "alerts": [{"rule", "rules", "message", "fix", "fix_lines", "boards", "kind", "candidates": [{"index", "text"}],
                 "pictures": [{"board", "regions"}]}],
     "log": [{"index", "text", "player", "year", "label", "changes": {track: +n}, "kind"}],
     "results": None | {...the game's results}, "score_by_year": {name: [score after year 1, 2, ...]},
     "raw": <the session's own snapshot>, "options": [...], "options_changed": n, "ghost": None | {...}}

The game's parts (Wendake: the players' tracks, pairs, turtles and swap tokens, the results, the game options in
force, the solo Ghost; ``assistant/wendake/tablet.py``) come as the session's snapshot gives them. An alert's
words for the players (``rules``, ``message``, ``fix``, ``fix_lines``, ``boards``: ``Game.alert_words``) come as
the snapshot's alert ``tablet`` entry; an alert without one (a session double) is shown as it is. A
NeedsConfirmation's ``pictures`` are the boards it involves, for their camera pictures: board names (and regions)
found in the alert's ``boards`` (names), its candidates' ``boards``, or the confirmation's (web.learning.pictures).
"""

from __future__ import annotations

import json
import threading

from assistant.errors import UserError
from assistant.table import game as games
from web.learning import pictures


def game_of(session):
    """The game the session plays (a registered ``Game``), or None (no game yet)."""
    game = getattr(session, "game", None)
    if isinstance(game, games.Game):
        return game
    name = (session.snapshot() or {}).get("game") if hasattr(session, "snapshot") else None
    return games.get(name) if isinstance(name, str) and name in games.names() else None


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


def setup_check(session) -> dict | None:
    """The JSON of the session's set-up check (its ``SetupCheck`` event: ``GameSession.setup_check``), or None."""
    ev = getattr(session, "setup_check", None)
    try:
        return event_json(ev) if ev is not None else None
    except TypeError:
        return None


def board_titles(session, pics: list[dict]) -> dict[str, str]:
    """{board: what the players call it ("The map", "Ann's village")} for the boards of ``pics`` ([{"board",
    "regions"}]) that have regions marked: the titles of the game's own pictures of those places
    (``Game.alert_words``); {} when the game gives none."""
    game = game_of(session)
    put_back = [{"board": p["board"], "region": r, "expected": {}, "seen": {}} for p in pics for r in p.get("regions") or []]
    if game is None or not put_back:
        return {}
    try:
        words = game.alert_words(getattr(session, "state", None), {"kind": "Picture", "rule": "", "message": "",
                                                                  "fix": None, "put_back": put_back})
    except Exception:  # noqa: BLE001 - a title is a nicety: the board's name stays
        return {}
    boards = words.get("boards") if isinstance(words, dict) else None
    return {b["board"]: str(b["title"]) for b in boards or [] if isinstance(b, dict) and "board" in b and b.get("title")}


# ---- actions ---------------------------------------------------------------------------------------------
def undo(session):
    return session.undo()


def correct(session, moves: list):
    return session.correct(moves)


def confirm(session, index: int):
    return session.confirm(index)


def feed(session, observation):
    return session.feed(observation)


def tablet_action(session, action: str, payload: dict):
    """A tap on the tablet that enters moves (Wendake's ``"ghost_card"``, W-SOLO-8): the game turns it into moves
    (``Game.tablet_moves``, ``UserError`` when it does not fit), entered as a correction."""
    if isinstance(session, NoGame):
        session.refuse()
    game = game_of(session)
    if game is None:
        raise UserError("there is no game yet; start one in Setup.")
    return session.correct(game.tablet_moves(getattr(session, "state", None), action, payload))


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


def _round_label(entry: dict) -> str | None:
    """A log entry's short tag for its year: the game's own (``round_label``, Iwari's "R3"), else "Y3"; None
    without a year."""
    label = _first(entry, "round_label")
    if label is not None:
        return str(label)
    year = _first(entry, "year")
    return f"Y{year}" if year else None


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
    """The session's snapshot normalised to the page's snapshot (see the module docstring)."""
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
        proj = _first(p, "projected_total", "projected", "total", "score", default=0)
        if isinstance(proj, dict):
            proj = _first(proj, "total", default=0)
        players.append({
            **p,  # the game's own fields (Wendake: tracks, pairs, turtles, swap tokens...), as its snapshot gives them
            "name": names[i],
            "colour": str(_first(p, "colour", "color", default="grey")),
            "tribe": _first(p, "tribe"),
            "projected": int(proj),
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
        kind = a.get("kind") or "IllegalMove"
        alerts.append(_alert_words(a) | {
            "kind": kind,
            "candidates": [_candidate(c, i) for i, c in enumerate(cands)],
            "pictures": pictures(_names(a.get("boards")), _dicts(cands)) if kind == "NeedsConfirmation" else [],
        })
    conf = _first(raw, "confirmation")
    if isinstance(conf, dict) and conf.get("candidates"):
        shared, cands = _shared_start(conf["candidates"])
        texts = [_candidate(c, i) for i, c in enumerate(cands)]
        target = next((a for a in alerts if a["kind"] == "NeedsConfirmation"), None)
        if target is None:
            target = {"rule": "", "rules": [], "message": "The camera saw a change that fits more than one move.", "fix": "",
                      "fix_lines": [], "boards": [], "kind": "NeedsConfirmation", "candidates": [], "pictures": []}
            alerts.append(target)
        target["candidates"] = texts
        seen = {p["board"] for p in target["pictures"]}
        target["pictures"] += [p for p in pictures(_names(conf.get("boards")), _dicts(conf["candidates"])) if p["board"] not in seen]
        if shared:
            target["message"] = f"{target['message']} After \u201c{'; '.join(shared)}\u201d, which was it?"
    status = _first(raw, "log_status")
    if isinstance(status, dict) and status.get("ok") is False:
        alerts.append({"rule": "", "rules": [], "fix_lines": [], "boards": [], "kind": "LogProblem", "candidates": [], "pictures": [],
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
            "label": _round_label(e),
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
        "game": str(_first(raw, "game", default="")),
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
        "options": list(_first(raw, "options", default=[])),
        "options_changed": int(_first(raw, "options_changed", default=0)),
        "ghost": _first(raw, "ghost"),
    }


def _names(value) -> list:
    """Board names given as a list of names (an alert's own ``boards``; the game's schematics are dicts)."""
    return [b for b in value if isinstance(b, str)] if isinstance(value, list) else []


def _dicts(value) -> list:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _alert_words(a: dict) -> dict:
    """rule(s), message, fix, fix_lines and boards of one alert of the session's snapshot: its ``tablet`` entry,
    the players' words the game gave (``Game.alert_words``), else the alert as it is."""
    rule = str(a.get("rule") or "")
    words = a.get("tablet")
    if isinstance(words, dict):
        return {"rule": rule, "rules": list(words.get("rules") or ([rule] if rule else [])),
                "message": str(words.get("message") or ""), "fix": str(words.get("fix") or ""),
                "fix_lines": list(words.get("fix_lines") or []), "boards": list(words.get("boards") or [])}
    return {"rule": rule, "rules": [rule] if rule else [], "message": str(a.get("message") or a.get("text") or ""),
            "fix": str(a.get("fix") or ""), "fix_lines": [], "boards": []}


class NoGame:
    """The session the app serves before any game exists: an empty scoreboard; the wizard starts a game.
    ``problem``: the game log exists but cannot be opened (damaged, locked...): the scoreboard and the alert
    banner say so instead of "No game yet", and changes are refused with it (the programs that open a log give it)."""

    last_seq = 0
    game = None

    def __init__(self, problem: str | None = None):
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

    def refuse(self, *args, **kwargs):
        """Raise the UserError that says why nothing can change: no game yet, or the log cannot be opened."""
        if self.problem:
            raise UserError(f"the game log cannot be opened: {self.problem}")
        raise UserError("there is no game yet; start one in Setup.")

    undo = correct = confirm = feed = refuse
