"""GameSession: the one service object the pipeline and the web app use for a game in progress.

Owns a game's life: creating or resuming it from the event log, feeding observations to the tracker, corrections
(undo, "this is what happened", confirm a candidate), the tablet's JSON snapshot, and waiting for new events
(Server-Sent Events). Every public method is thread-safe (one lock; ``events_since`` waits on a condition).

    s = GameSession.create("games.sqlite", players=["Ann", "Bob"], seed=7)   # tribes=[...], initial=State optional
    events = s.feed(observation)          # -> [tracker.Event, ...], also stored in the log
    s.snapshot()                          # -> dict, below
    s.undo(); s.correct([move_json, ...]); s.confirm(1)
    s.events_since(seq, timeout=15.0)     # -> [event dict, ...] with seq > given seq (blocks until some or timeout)
    s = GameSession.resume("games.sqlite")  # latest game, exactly the state it had

Snapshot JSON (``format: "tablewatch.snapshot/1"``; stable, the web page codes against it)::

    {
      "format": "tablewatch.snapshot/1",
      "game_id": "g-20250101-120000-ab12",
      "seq": 42,                      # last event seq; events_since(seq) continues from here
      "game": "wendake",
      "year": 3, "years": 7,
      "phase": "actions",             # "actions" | "restore" | "over"
      "pairs": [["economic", "military"], ["ritual", "mask"]],   # the two track pairs (W-SCR-2)
      "turn_order": [2, 0, 1],        # player indices, first to last
      "current": 0,                   # player index whose decision it is (null when over)
      "current_name": "Ann",
      "players": [
        {"index": 0, "name": "Ann", "colour": "red",
         "tracks": {"economic": 3, "military": 5, "ritual": 1, "mask": 0},
         "pairs": [{"tracks": ["economic", "military"], "values": [3, 5], "lower": "economic", "counted": 3},
                   {"tracks": ["ritual", "mask"], "values": [1, 0], "lower": "mask", "counted": 0}],
         "projected_total": 4,        # if the game ended now, turtles left out (their values are secret, W-TUR-6)
         "turtles": 1,                # turtle tiles owned (values hidden)
         "swap_tokens": 1,            # left (each +1 at the end, W-SWAP-2)
         "turn_position": 2,          # 1-based place in turn order
         "is_current": true,
         "resources": {"leather": 1, "fish": 0, "corn": 2, "beans": 0, "pumpkins": 0}, "beavers": 0,
         "long_house": {"warrior": 0, "woman": 1, "hunter": 0},
         "sages": 3}                  # action markers not yet placed this year
      ],
      "leader": "Ann",                # best projected total (tie-break W-SCR-4); null before any point
      "alerts": [                     # active alerts, oldest first; empty when the table agrees with the engine
        {"id": 17, "kind": "IllegalMove",   # IllegalMove | TableOutOfSync | ScoreMismatch | NeedsConfirmation
         "rule": "W-LINE-2", "message": "...", "fix": "Put the red action marker on [0, 1] back on the Sages area.",
         "player": 0, "seq": 40}
      ],
      "confirmation": null | {"seq": 41, "candidates": [{"index": 0, "moves": ["Ann: activates ..."], "cost": 0.0}, ...]},
      "moves": [                      # the accepted move log, oldest first
        {"index": 0, "seq": 5, "year": 1, "player": 0, "name": "Ann", "text": "Ann: harvests",
         "move": {"type": "harvest"}, "scores": {"economic": 1}}   # score change per track (only non-zero)
      ],
      "finished": false,
      "results": null,                # when finished: {"ranking": [names], "winner": name, "tie_break": str|null,
                                      #   "players": [{"name", "total", "tracks": {t: {"before_turtles", "turtles",
                                      #   "final"}}, "pairs": [{"tracks", "values", "counted"}], "swap_tokens",
                                      #   "turtle_choices", "unknown_turtles"}]}   (scoring.results, W-SCR)
      "score_by_year": {"years": [1, 2, 3],     # projected total (turtles left out) at the end of each year,
                        "players": [{"name": "Ann", "colour": "red", "totals": [2, 4, 4]}]}   # the last = now
      "log_status": {"ok": true, "message": null}   # false + message when the disk is full / DB read-only
    }

Event dicts (``events_since``) are ``{"seq", "kind", "t", "payload"}`` where payload is the event's ``to_json()``.
"""

from __future__ import annotations

import secrets
import threading
import time

from assistant.errors import UserError
from assistant.table.eventlog import EventLog, as_stored
from assistant.table.observation import Observation
from assistant.wendake.referee import GhostReferee, new_solo_game
from assistant.table.events import (
    AlertCleared, Correction, Event, IllegalMove, MoveRecognized, NeedsConfirmation, ScoreMismatch, TableOutOfSync,
    event_from_json,
)
from assistant.table.tracker import Tracker
from assistant.wendake import moves as M
from assistant.wendake import rules
from assistant.wendake.describe import describe
from assistant.wendake.edits import apply_edit, conceal
from assistant.wendake.scoring import results, score_player
from assistant.wendake.state import TRACKS, Options, State

FORMAT = "tablewatch.snapshot/1"
ALERT_KINDS = ("IllegalMove", "TableOutOfSync", "ScoreMismatch", "NeedsConfirmation")


def _new_game_id() -> str:
    return time.strftime("g-%Y%m%d-%H%M%S-") + secrets.token_hex(2)


class GameSession:
    """A game in progress, backed by an event log. Use ``create`` or ``resume``."""

    def __init__(self, log: EventLog, game_id: str, initial: State, store_observations: bool = True, **tracker_options):
        self.log = log
        self.game_id = game_id
        self.tracker = Tracker(initial, **tracker_options)
        self.store_observations = store_observations
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._move_seq: list[int] = []  # seq of the event that added each accepted move
        self._cache = None
        # solo (W-SOLO): the Ghost's moves are told and checked by the referee; the player's go to the tracker
        self.referee = GhostReferee(self.tracker.ed) if initial.solo is not None else None

    # ---- creation ----------------------------------------------------------------------------------------------
    @classmethod
    def create(cls, db_path, players, colours=None, seed: int | None = None, pairs=None, turn_order=None,
               options: dict | None = None, game_id: str | None = None, title: str | None = None, tribes=None,
               initial: State | None = None, known_piles: bool = False, solo: bool = False,
               difficulty: str = "medium", **tracker_options) -> "GameSession":
        """A new game. ``tribes``: a tribe id (or None) per player (W-TRB). ``initial``: start from this state
        (a recorded game) instead of a new set-up. Unless ``known_piles``, the tracker starts with every hidden
        thing unknown, as at a real table (``wendake.edits.conceal``: mask deck, discard pile, hands, turtle values);
        the set-up's random draws (``seed``) then only fix what is laid out face up."""
        from assistant.wendake.setup import PlayerSetup, new_game

        if initial is not None:
            state = initial.copy()
            names = [p.name for p in state.players]
        elif solo:  # one player against the Ghost (W-SOLO-1..6); ``difficulty``: easy, medium or hard
            state = new_solo_game(players, colours=colours, seed=seed, difficulty=difficulty, tribes=tribes, options=options)
            names = [p.name for p in state.players]
        else:
            names = list(players)
            colours = list(colours) if colours else [None] * len(names)
            if len(colours) != len(names):
                raise UserError(f"{len(names)} players but {len(colours)} colours; give one colour per player.")
            if tribes is not None and len(tribes) != len(names):
                raise UserError(f"{len(names)} players but {len(tribes)} tribes; give one tribe (or null) per player.")
            opts = Options.from_json(options) if options else Options()
            try:
                state = new_game([PlayerSetup(n, c) for n, c in zip(names, colours)], seed=seed, pairs=pairs,
                                 turn_order=turn_order, options=opts, tribes=list(tribes) if tribes is not None else None)
            except (ValueError, KeyError) as exc:
                raise UserError(f"cannot set up this game: {exc}") from None
        if not known_piles:
            state = conceal(state)
        log = db_path if isinstance(db_path, EventLog) else EventLog(db_path)
        if log.read_only:  # a new game there would live in memory only, and be lost at the next start
            raise UserError(f"cannot start a new game: {log.problem or f'{log.path} is read-only'}")
        gid = game_id or _new_game_id()
        # the game starts from the set-up as the log keeps it (JSON, keys sorted), as a resumed game does: the
        # order of a state's dicts orders the tracker's candidates, and a resumed game runs it again (``_rerun``)
        setup = as_stored({
            "format": "tablewatch.game-setup/1", "players": names, "colours": [p.colour for p in state.players],
            "seed": seed, "tribes": [p.tribe for p in state.players], "known_piles": known_piles,
            "solo": state.solo.difficulty if state.solo else None, "initial": state.to_json()})
        log.create_game(gid, "wendake", setup, title or " vs ".join(names))
        session = cls(log, gid, State.from_json(setup["initial"]), **tracker_options)
        if session.referee is not None:
            with session._cond:  # year 1 starts with the Ghost's mask card (W-SOLO-8)
                session._record(session.referee.announce(session.tracker))
        return session

    @classmethod
    def resume(cls, db_path, game_id: str | None = None, rerun: bool = True, **tracker_options) -> "GameSession":
        """Reopen a game (the latest when no id is given) with exactly the state its log describes. ``rerun``: run
        the tracker again over the stored looks (``_rerun``), which a game that goes on needs; False rebuilds the
        moves alone, enough to read the game (an export), in a fraction of the time."""
        log = db_path if isinstance(db_path, EventLog) else EventLog(db_path, create=False)
        gid = game_id or log.latest_game()
        if gid is None:
            raise UserError(f"{log.path} holds no game yet. Start one first.")
        setup = log.setup(gid)
        events = log.events(gid)
        session = cls(log, gid, State.from_json(setup["initial"]), **tracker_options)
        try:
            rerun = rerun and session._rerun(events)
        except Exception:  # noqa: BLE001 - a fault the run meets again must not keep the game from resuming
            rerun = False
        if not rerun:
            session = cls(log, gid, State.from_json(setup["initial"]), **tracker_options)
            session._replay(events)
        return session

    def _rerun(self, events: list[dict]) -> bool:
        """Rebuild the tracker by running it again on the stored observations and the tablet's corrections, in the
        log's order. The tracker is deterministic and was fed exactly what the log stores (``feed``), so it comes
        back with what it had learned as well as the moves: the places the camera keeps misreading, the lines it
        kept alive, the looks it may read again. With the moves alone, a game resumed mid-way read a Home it knew
        to be misread as a warrior across a river, and every look after was an alert (e2e 4p s15: 109). A look and
        its events are written in one transaction (``_record``). True when each event the run gives is the one
        stored; False when one differs or is missing (a log written by another version, or by a session that did
        not store its looks), and the caller rebuilds from the moves alone (``_replay``)."""
        # what the set-up, the last look or the last correction gave, not yet met in the log
        given: list[Event] = self.referee.announce(self.tracker) if self.referee is not None else []
        for e in events:
            kind, payload = e["kind"], e["payload"]
            if kind == "Observation":
                if given:
                    return False
                given = self._look(Observation.from_json(payload))
                continue
            if not given:  # a correction made on the tablet: made again
                given = self._redo(event_from_json(payload))
                if not given:
                    return False
            ev = given.pop(0)
            if as_stored(ev.to_json()) != payload:
                return False
            self._follow(ev, e["seq"], replay=False)
        return not given

    def _redo(self, ev: Event) -> list[Event]:
        """A correction from the tablet (undo, "this is what happened", confirm), made again as ``undo``,
        ``correct`` and ``confirm`` made it; [] for any other event (the run did not give it)."""
        if not isinstance(ev, Correction):
            return []
        try:
            if ev.action == "undo":
                return self._undone()
            if ev.action == "correct":
                return self._corrected(ev.added)
            if ev.action == "confirm":
                asks = [a for a in self.tracker.alerts.values() if isinstance(a, NeedsConfirmation)]
                cands = asks[-1].candidates if asks else []
                index = next((i for i, c in enumerate(cands) if ev.added and c["moves"] == ev.added), 0)
                return self.tracker.confirm(index)
        except (rules.IllegalMoveError, ValueError, TypeError, KeyError, IndexError):
            return []
        return []

    def _replay(self, events: list[dict]) -> None:
        """Rebuild the tracker from stored events: moves, corrections and the alerts still active."""
        tr = self.tracker
        for e in events:
            kind, payload = e["kind"], e["payload"]
            if kind == "Observation":
                continue
            ev = event_from_json(payload)
            self._follow(ev, e["seq"], replay=True)
        tr._rebuild()

    def _follow(self, ev: Event, seq: int, replay: bool) -> None:
        """Keep the session's bookkeeping (and, when replaying, the tracker) in step with one event."""
        tr = self.tracker
        if isinstance(ev, MoveRecognized):
            if replay:
                moves = [M.move_from_json(m) for m in ev.moves]
                for e in ev.edits:
                    tr.edits.setdefault(len(tr.moves) + int(e["at"]), []).append(e["edit"])
                tr.moves += moves
                tr.groups.append(len(moves))
            self._move_seq += [seq] * len(ev.moves)
        elif isinstance(ev, Correction):
            if replay:  # undo, correct, confirm, switch: the same log rewrite as live (Tracker._relog)
                tr._relog(len(ev.removed), [M.move_from_json(m) for m in ev.added], ev.edits if ev.added else [])
            if ev.removed:
                self._move_seq = self._move_seq[:len(self._move_seq) - len(ev.removed)]
            self._move_seq += [seq] * len(ev.added)
        elif isinstance(ev, (IllegalMove, TableOutOfSync, ScoreMismatch, NeedsConfirmation)):
            if replay:
                tr.alerts[ev.alert_id] = ev
                tr.next_alert = max(tr.next_alert, ev.alert_id + 1)
        elif isinstance(ev, AlertCleared):
            if replay:
                tr.alerts.pop(ev.alert_id, None)

    # ---- feeding -----------------------------------------------------------------------------------------------
    def feed(self, observation: Observation) -> list[Event]:
        """Read one look of the table. While the disk is full (``EventLog.accepting_looks``) the look is not read,
        so the tracker never runs ahead of its log: a look is the whole table, so the next one gives what it missed."""
        with self._cond:
            if not self.log.accepting_looks:
                return []
            stored = None
            if self.store_observations:
                # the tracker reads the look as the log keeps it (confidences to 4 places): a resumed game runs
                # it again on the same input (``_rerun``)
                stored = as_stored(observation.to_json())
                observation = Observation.from_json(stored)
            events = self._look(observation)
            self._record(events, stored)
            return events

    def _look(self, observation: Observation) -> list[Event]:
        """The events one look gives: the tracker's, through the Ghost's referee in a solo game."""
        if self.referee is not None:
            return self.referee.feed(self.tracker, observation)
        return self.tracker.observe(observation)

    def _record(self, events: list[Event], observation: dict | None = None) -> None:
        """Write ``events`` (after the look they came from, when given) in one transaction of the log."""
        rows = [("Observation", observation)] if observation is not None else []
        seqs = self.log.append_many(self.game_id, rows + [(ev.kind, ev.to_json()) for ev in events])
        for ev, seq in zip(events, seqs[len(rows):]):
            self._follow(ev, seq, replay=False)
        self._cache = None
        self._cond.notify_all()

    def undo(self) -> list[Event]:
        with self._cond:
            events = self._undone()
            self._record(events)
            return events

    def _undone(self) -> list[Event]:
        events: list[Event] = [self.tracker.undo()]
        events += self.tracker._clear_alerts(None, "undo")
        if self.referee is not None:  # the Ghost step due now is told again
            self.referee.forget()
            events += self.referee.announce(self.tracker)
        return events

    def correct(self, moves_json) -> list[Event]:
        """"This is what happened": the moves, as JSON, played from the current state. Bad moves -> UserError."""
        with self._cond:
            try:
                events = self._corrected(moves_json)
            except rules.IllegalMoveError as exc:
                raise UserError(f"those moves are not legal here: {exc}") from None
            except (ValueError, TypeError, KeyError) as exc:
                raise UserError(f"bad move JSON: {exc}") from None
            self._record(events)
            return events

    def _corrected(self, moves_json) -> list[Event]:
        events = self.tracker.correct(moves_json)
        if self.referee is not None:  # e.g. the Ghost's mask card tapped on the tablet: what the Ghost does next
            events += self.referee.announce(self.tracker)
        return events

    def confirm(self, candidate_index: int) -> list[Event]:
        with self._cond:
            try:
                events = self.tracker.confirm(int(candidate_index))
            except IndexError as exc:
                raise UserError(str(exc)) from None
            self._record(events)
            return events

    # ---- reading -----------------------------------------------------------------------------------------------
    @property
    def last_seq(self) -> int:
        with self._lock:
            return self.log._next_seq - 1

    @property
    def state(self) -> State:
        return self.tracker.state

    def events_since(self, seq: int, timeout: float | None = None) -> list[dict]:
        """Events with seq > ``seq`` (observations left out); waits up to ``timeout`` seconds for one."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                out = [e for e in self.log.events(self.game_id, since=seq) if e["kind"] != "Observation"]
                if out or timeout is None:
                    return out
                left = deadline - time.monotonic()
                if left <= 0:
                    return []
                self._cond.wait(left)

    def snapshot(self) -> dict:
        with self._lock:
            key = (self.last_seq, self.log.status["message"])  # a log problem that clears makes no event
            if self._cache is not None and self._cache[0] == key:
                return self._cache[1]
            snap = self._snapshot()
            self._cache = (key, snap)
            return snap

    def _move_log(self):
        tr = self.tracker
        state = tr.initial.copy()
        entries, by_year = [], {}
        for i, m in enumerate(tr.moves):
            for e in tr.edits.get(i, ()):
                apply_edit(state, e, tr.ed)
            before = state.copy()
            rules.apply(state, m, tr.ed, validate=False)
            p = before.current
            change = {} if p is None else {t: state.players[p].tracks[t] - before.players[p].tracks[t]
                                           for t in TRACKS if state.players[p].tracks[t] != before.players[p].tracks[t]}
            entries.append({"index": i, "seq": self._move_seq[i] if i < len(self._move_seq) else None, "year": before.year,
                            "player": p, "name": None if p is None else before.players[p].name,
                            "text": describe(before, m, state), "move": M.move_to_json(m), "scores": change})
            if state.year != before.year or state.phase == "over":
                by_year[before.year] = _totals(state)
        by_year[state.year] = _totals(state)
        return entries, by_year

    def _snapshot(self) -> dict:
        tr = self.tracker
        st = tr.state
        entries, by_year = self._move_log()
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
        alerts = []
        confirmation = None
        for aid, ev in sorted(tr.alerts.items()):
            a = {"id": aid, "kind": ev.kind, "rule": getattr(ev, "rule", None), "message": getattr(ev, "message", ""),
                 "fix": getattr(ev, "fix", None), "player": getattr(ev, "player", None), "seq": None}
            if isinstance(ev, TableOutOfSync):
                a["fix"] = "; ".join(d["text"] for d in ev.differences[:6]) or None
            if isinstance(ev, IllegalMove) and ev.put_back:
                a["fix"] = ((ev.fix + " ") if ev.fix else "") + "; ".join(d["text"] for d in ev.put_back[:6])
            alerts.append(a)
            if isinstance(ev, NeedsConfirmation):
                confirmation = {"seq": None, "candidates": [{"index": c["index"], "moves": c["texts"], "cost": c["cost"]}
                                                            for c in ev.candidates]}
        finished = st.phase == "over"
        final = None
        if finished:
            r = results(st)
            final = {"ranking": r["ranking"], "winner": r["winner"], "tie_break": r["tie_break"], "players": r["players"]}
        years = sorted(by_year)
        return {
            "format": FORMAT, "game_id": self.game_id, "seq": self.last_seq, "game": "wendake",
            "year": st.year, "years": tr.ed.years, "phase": st.phase, "pairs": [list(p) for p in st.pairs],
            "turn_order": list(st.turn_order), "current": st.current,
            "current_name": None if st.current is None else st.players[st.current].name,
            "players": players, "leader": proj["winner"] if any_points else None,
            "alerts": alerts, "confirmation": confirmation, "moves": entries, "finished": finished, "results": final,
            "score_by_year": {"years": years, "players": [{"name": pl.name, "colour": pl.colour,
                                                           "totals": [by_year[y][i] for y in years]}
                                                          for i, pl in enumerate(st.players)]},
            "log_status": {"ok": self.log.status["ok"], "message": self.log.status["message"]},
        }

    def close(self) -> None:
        self.log.close()


def _totals(state: State) -> list[int]:
    return [score_player(p.tracks, [], state.pairs, p.swap_tokens)["total"] for p in state.players]
