"""GameSession: the one service object the pipeline and the web app use for a game in progress.

Owns a game's life: creating or resuming it from the event log, feeding observations to the tracker, corrections
(undo, "this is what happened", confirm a candidate), the tablet's JSON snapshot, and waiting for new events
(Server-Sent Events). Every public method is thread-safe (one lock; ``events_since`` waits on a condition).

It knows its game only through the table core's ``Game`` interface (``assistant.table.game``): the game named at
``create`` (``game="wendake"``), found in the registry and kept in the log's game column, which ``resume`` reads.
The game builds the state from the options it is given (``Game.new_state``), may bring a referee for the moves it
makes itself (``Game.referee``: Wendake's solo Ghost), and gives its part of the snapshot (``Game.snapshot``,
``Game.alert_words``).

    s = GameSession.create("games.sqlite", players=["Ann", "Bob"], seed=7)   # game="wendake"; the game's options
                                                                             # (Wendake: tribes=[...], solo=True...)
    events = s.feed(observation)          # -> [tracker.Event, ...], also stored in the log
    s.snapshot()                          # -> dict, below
    s.undo(); s.correct([move_json, ...]); s.confirm(1)
    s.events_since(seq, timeout=15.0)     # -> [event dict, ...] with seq > given seq (blocks until some or timeout)
    s = GameSession.resume("games.sqlite")  # latest game, exactly the state it had
    s.check_setup = True                  # a camera feeds it: the game's first look gives a SetupCheck
                                          # (assistant.table.setup_check; s.setup_check keeps it)

Snapshot JSON (``format: "tablewatch.snapshot/1"``; stable, the web page codes against it). The session gives
``format``, ``game_id``, ``seq``, ``game``, ``alerts``, ``confirmation``, the moves' ``seq``, ``finished`` and
``log_status``; the rest is the game's part (``Game.snapshot``; Wendake's below, ``assistant/wendake/tablet.py``)::

    {
      "format": "tablewatch.snapshot/1",
      "game_id": "g-20250101-120000-ab12",
      "seq": 42,                      # last event seq; events_since(seq) continues from here
      "game": "wendake",              # the game's registry name
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
         "player": 0, "seq": 40,
         "tablet": {"rules": ["W-LINE-2"], "message", "fix", "fix_lines": ["Put back: ..."], "boards": [...]}}
      ],                              # "tablet": the alert in the players' words (Game.alert_words)
      "confirmation": null | {"seq": 41, "candidates": [{"index": 0, "moves": ["Ann: activates ..."], "cost": 0.0, "boards": ["wendake-map-4p"]}, ...]},
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
      "log_status": {"ok": true, "message": null},  # false + message when the disk is full / DB read-only
      "options": [{"option", "rule", "value", "default", "changed", "when_true"}], "options_changed": 1,
      "ghost": null | {"text", "awaiting_card", "card_unread", "difficulty", "cards", "year_card", "score_tracks",
                       "total", "placeholder", "next_slot", "choices": [{"id", "label"}]}   # solo games only
    }

Event dicts (``events_since``) are ``{"seq", "kind", "t", "payload"}`` where payload is the event's ``to_json()``.
"""

from __future__ import annotations

import copy
import secrets
import threading
import time
from typing import Any

from assistant.errors import UserError
from assistant.table import game as games
from assistant.table.eventlog import EventLog, as_stored
from assistant.table.events import (
    EVENT_TYPES,
    AlertCleared,
    Correction,
    Event,
    IllegalMove,
    MoveRecognized,
    NeedsConfirmation,
    ScoreMismatch,
    SetupCheck,
    TableOutOfSync,
    event_from_json,
)
from assistant.table.observation import Observation
from assistant.table.setup_check import TRUSTED_AGAIN_LOOKS, check_setup, doubt, kinds_read_well, values_read_right
from assistant.table.tracker import Tracker

FORMAT = "tablewatch.snapshot/1"
ALERT_KINDS = ("IllegalMove", "TableOutOfSync", "ScoreMismatch", "NeedsConfirmation")
NOTE_KINDS = ("SetupCheck",)  # information for the players: no move, no alert; a resumed game passes over them


def _new_game_id() -> str:
    return time.strftime("g-%Y%m%d-%H%M%S-") + secrets.token_hex(2)


class GameSession:
    """A game in progress, backed by an event log. Use ``create`` or ``resume``."""

    def __init__(self, log: EventLog, game_id: str, game: games.Game, initial, store_observations: bool = True,
                 **tracker_options):
        self.log = log
        self.game_id = game_id
        self.game = game
        self.tracker = Tracker(initial, game=game, **tracker_options)
        self.store_observations = store_observations
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._move_seq: list[int] = []  # seq of the event that added each accepted move
        self._cache = None
        # the moves the game makes itself (Wendake's solo Ghost) are told and checked by its referee; the rest go
        # to the tracker
        self.referee = game.referee(initial)
        # the set-up check (``assistant.table.setup_check``), once per game on its first settled look before any
        # move: on for a session a camera feeds (the programs turn it on); the last one given, or None
        self.check_setup = False
        self.setup_check: SetupCheck | None = None
        self._setup_gone = False  # play began before a look of the start position: no check this game
        # the region kinds doubted now (the set-up check's, less those read well since: ``_trusting``), and how
        # many explained looks in a row have read each well
        self._doubted: list[str] = []
        self._read_well: dict[str, int] = {}
        # the values of each kind the set-up check doubted that explained looks read right: a kind believed again
        # is believed for those values only (``setup_check.doubt``)
        self._read_right: dict[str, set] = {}

    # ---- creation ----------------------------------------------------------------------------------------------
    @classmethod
    def create(cls, db_path, players, game: str = "wendake", seed: int | None = None, initial=None,
               known_piles: bool = False, game_id: str | None = None, title: str | None = None,
               tracker_options: dict | None = None, **options) -> "GameSession":
        """A new game of ``game`` (a registry name) for ``players``; ``options`` are the game's own, passed to
        ``Game.new_state`` (Wendake: ``colours``, ``tribes``, ``pairs``, ``turn_order``, ``options``, ``solo``,
        ``difficulty``). ``initial``: start from this state (a recorded game) instead of a new set-up. Unless
        ``known_piles``, the tracker starts with every hidden thing unknown, as at a real table (``Game.conceal``);
        the set-up's random draws (``seed``) then only fix what is laid out face up. ``tracker_options`` tune the
        tracker (``Tracker``'s keyword arguments)."""
        g = games.get(game)
        state = g.copy(initial) if initial is not None else g.new_state(players, seed=seed, **options)
        if not known_piles:
            state = g.conceal(state)
        log = db_path if isinstance(db_path, EventLog) else EventLog(db_path)
        if log.read_only:  # a new game there would live in memory only, and be lost at the next start
            raise UserError(f"cannot start a new game: {log.problem or f'{log.path} is read-only'}")
        gid = game_id or _new_game_id()
        # the game starts from the set-up as the log keeps it (JSON, keys sorted), as a resumed game does: the
        # order of a state's dicts orders the tracker's candidates, and a resumed game runs it again (``_rerun``)
        setup = as_stored({"format": "tablewatch.game-setup/1", **g.setup_record(state), "seed": seed,
                           "known_piles": known_piles, "initial": g.state_to_json(state)})
        log.create_game(gid, g.name, setup, title or " vs ".join(setup["players"]))
        session = cls(log, gid, g, g.state_from_json(setup["initial"]), **(tracker_options or {}))
        if session.referee is not None:
            with session._cond:  # the referee may have something to tell at once (Wendake: the Ghost's mask card)
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
        game = games.get(log.game_of(gid))
        events = log.events(gid)
        session = cls(log, gid, game, game.state_from_json(setup["initial"]), **tracker_options)
        try:
            rerun = rerun and session._rerun(events)
        except Exception:  # noqa: BLE001 - a fault the run meets again must not keep the game from resuming
            rerun = False
        if not rerun:
            session = cls(log, gid, game, game.state_from_json(setup["initial"]), **tracker_options)
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
        for i, e in enumerate(events):
            kind, payload = e["kind"], e["payload"]
            given = [ev for ev in given if ev.kind not in NOTE_KINDS or kind == ev.kind]  # a note the log lacks
            if kind in NOTE_KINDS:  # a note the log keeps: taken as logged, whatever this run says
                given = [ev for ev in given if ev.kind != kind]
                self._follow(event_from_json(payload), e["seq"], replay=False)
                continue
            if kind == "Observation":
                if given:
                    return False
                obs = Observation.from_json(payload)
                if i + 1 < len(events) and events[i + 1]["kind"] == "SetupCheck":  # a check that misread this look
                    check = event_from_json(events[i + 1]["payload"])
                    self._follow(check, events[i + 1]["seq"], replay=False)
                    if check.regions:
                        self.tracker.misread_at_setup(self._doubting(obs))
                given = self._look(obs)
                continue
            if not given:  # a correction made on the tablet: made again
                given = self._redo(event_from_json(payload))
                if not given:
                    return False
            ev = given.pop(0)
            if as_stored(ev.to_json()) != payload:
                return False
            self._follow(ev, e["seq"], replay=False)
        return not [ev for ev in given if ev.kind not in NOTE_KINDS]

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
        except (ValueError, TypeError, KeyError, IndexError):  # a game's move errors are ValueErrors
            return []
        return []

    def _replay(self, events: list[dict]) -> None:
        """Rebuild the tracker from stored events: moves, corrections and the alerts still active. A kind of
        event this version does not know (a note another version wrote) changes no move and is passed over."""
        tr = self.tracker
        for e in events:
            kind, payload = e["kind"], e["payload"]
            if kind not in EVENT_TYPES:
                continue
            ev = event_from_json(payload)
            self._follow(ev, e["seq"], replay=True)
        tr._rebuild()

    def _follow(self, ev: Event, seq: int, replay: bool) -> None:
        """Keep the session's bookkeeping (and, when replaying, the tracker) in step with one event."""
        tr = self.tracker
        if isinstance(ev, MoveRecognized):
            if replay:
                moves = [self.game.move_from_json(m) for m in ev.moves]
                for e in ev.edits:
                    tr.edits.setdefault(len(tr.moves) + int(e["at"]), []).append(e["edit"])
                tr.moves += moves
                tr.groups.append(len(moves))
            self._move_seq += [seq] * len(ev.moves)
        elif isinstance(ev, Correction):
            if replay:  # undo, correct, confirm, switch: the same log rewrite as live (Tracker._relog)
                tr._relog(len(ev.removed), [self.game.move_from_json(m) for m in ev.added], ev.edits if ev.added else [])
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
        elif isinstance(ev, SetupCheck):
            self.setup_check = ev
            self._doubted, self._read_well, self._read_right = list(ev.doubted), {}, {}

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
        """The events one look gives. The tracker weighs it with the kinds the set-up check found reading badly
        doubted (``setup_check.doubt``); the log keeps it as read. The game's first settled look is also checked
        against the start position (``_checked_setup``)."""
        if self.check_setup and self.setup_check is None and not self._setup_gone and observation.readings:
            return self._checked_setup(observation)
        events = self._tracked(self._doubting(observation))
        if self._doubted or self._read_right:
            self._trusting(observation, events)
        return events

    def _tracked(self, observation: Observation) -> list[Event]:
        """The tracker's events for one look, through the Ghost's referee in a solo game."""
        if self.referee is not None:
            return self.referee.feed(self.tracker, observation)
        return self.tracker.observe(observation)

    def _doubting(self, observation: Observation) -> Observation:
        """The look with the readings of the doubted kinds capped, and those of the kinds believed again whose value
        no explained look has read right yet (``setup_check.doubt``)."""
        if not (self._doubted or self._read_right):
            return observation
        believed = {k: v for k, v in self._read_right.items() if k not in self._doubted}
        return doubt(observation, self._doubted, self.game.region_kind, believed)

    def _trusting(self, observation: Observation, events: list[Event]) -> None:
        """Count the doubted kinds this look read well, when the tracker explained it with no alert open, asked
        nothing new and had no choice between lines that would look different (``Tracker.had_choice``, asked
        about or not; a question still open is no alert: the kind read against the line it accepted); a kind read
        well ``TRUSTED_AGAIN_LOOKS`` looks in a row is believed again. Any other look starts the count over.
        It depends on the looks and the tracker alone, so a resumed game (``_rerun``) comes to the same."""
        tr = self.tracker
        open_alerts = [a for a in tr.alerts.values() if not isinstance(a, NeedsConfirmation)]
        explained = not open_alerts and not tr.had_choice and not any(e.kind in ALERT_KINDS for e in events)
        well = set()
        if explained:
            readings = {k: r.value for k, r in observation.readings.items()}
            expected = self.game.expected_readings(tr.state)
            kinds = set(self._doubted) | set(self._read_right)
            well = kinds_read_well(expected, readings, self._doubted, self.game.region_kind)
            for kind, values in values_read_right(expected, readings, kinds, self.game.region_kind).items():
                self._read_right.setdefault(kind, set()).update(values)
        self._read_well = {k: self._read_well.get(k, 0) + 1 for k in self._doubted if k in well}
        self._doubted = [k for k in self._doubted if self._read_well.get(k, 0) < TRUSTED_AGAIN_LOOKS]

    def _checked_setup(self, observation: Observation) -> list[Event]:
        """The events of the game's first settled look, with its set-up check when the tracker took it for the
        start position (no move accepted). It checks the boards that look read and names the others (``unread``):
        the observer sends a look only when what it reads changes, so a still table gives no second look to wait
        for, and a board it takes for one under a hand may stay so. An alert does not hold it back either: a table
        read so badly that the tracker calls it out is what the check is for. Play that began before a look of the
        start position gives no check, and never again this game.

        When the check finds regions misread, the tracker reads the look again from where it stood, with those
        readings known as misreadings (``Tracker.misread_at_setup``) and the doubted kinds doubted, and the check
        goes first in the log: a resumed game (``_rerun``) meets it before the look it misread."""
        before = copy.deepcopy((self.tracker, self.referee))
        events = self._tracked(observation)
        self._setup_gone = True
        if self.tracker.moves:
            return events
        expected = self.game.expected_readings(self.tracker.initial)
        readings = {k: r.value for k, r in observation.readings.items() if k in expected}
        check = check_setup(expected, readings, self.game.region_kind, self._words, observation.boards_unread)
        if not check.regions:
            return events + [check]
        self.tracker, self.referee = before
        look = doubt(observation, check.doubted, self.game.region_kind)
        self.tracker.misread_at_setup(look)
        return [check] + self._tracked(look)

    def _words(self, key: str, expected, read) -> str | None:
        """The game's words for one difference (its alerts' "put back" line), or None."""
        try:
            return self.tracker.x.put_back(key, expected, read).get("text")
        except Exception:  # noqa: BLE001 - words are a nicety: the check goes on without them
            return None

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
        events += self.tracker.clear_alerts(None, "undo")
        if self.referee is not None:  # the Ghost step due now is told again
            self.referee.forget()
            events += self.referee.announce(self.tracker)
        return events

    def correct(self, moves_json) -> list[Event]:
        """"This is what happened": the moves, as JSON, played from the current state. Bad moves -> UserError."""
        with self._cond:
            try:
                events = self._corrected(moves_json)
            except (ValueError, TypeError, KeyError) as exc:
                # a game's IllegalMoveError (a move the rules forbid) carries the broken rules as ``violations``
                if getattr(exc, "violations", None) is not None:
                    raise UserError(f"those moves are not legal here: {exc}") from None
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
    def state(self) -> Any:
        """The game's state now (the game's own object)."""
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

    def _snapshot(self) -> dict:
        tr = self.tracker
        st = tr.state
        part = self.game.snapshot(tr.initial, tr.moves, tr.edits, st)
        entries = part.pop("moves")
        for entry in entries:
            i = entry["index"]
            entry["seq"] = self._move_seq[i] if i < len(self._move_seq) else None
        alerts = []
        confirmation = None
        for aid, ev in sorted(tr.alerts.items()):
            a = {"id": aid, "kind": ev.kind, "rule": getattr(ev, "rule", None), "message": getattr(ev, "message", ""),
                 "fix": getattr(ev, "fix", None), "player": getattr(ev, "player", None), "seq": None}
            if isinstance(ev, TableOutOfSync):
                a["fix"] = "; ".join(d["text"] for d in ev.differences[:6]) or None
            if isinstance(ev, IllegalMove) and ev.put_back:
                a["fix"] = ((ev.fix + " ") if ev.fix else "") + "; ".join(d["text"] for d in ev.put_back[:6])
            put_back = list(getattr(ev, "put_back", None) or getattr(ev, "differences", None) or [])
            own_fix = getattr(ev, "fix", None) if put_back and isinstance(ev, (IllegalMove, TableOutOfSync)) else a["fix"]
            a["tablet"] = self.game.alert_words(st, {"kind": ev.kind, "rule": a["rule"], "message": a["message"],
                                                      "fix": own_fix, "put_back": put_back,
                                                      "candidates": list(getattr(ev, "candidates", None) or [])})
            alerts.append(a)
            if isinstance(ev, NeedsConfirmation):
                confirmation = {"seq": None, "candidates": [{"index": c["index"], "moves": c["texts"], "cost": c["cost"],
                                                             "boards": c.get("boards", [])}
                                                            for c in ev.candidates]}
        return {
            "format": FORMAT, "game_id": self.game_id, "seq": self.last_seq, "game": self.game.name, **part,
            "alerts": alerts, "confirmation": confirmation, "moves": entries, "finished": self.game.is_over(st),
            "log_status": {"ok": self.log.status["ok"], "message": self.log.status["message"]},
        }

    def close(self) -> None:
        self.log.close()

