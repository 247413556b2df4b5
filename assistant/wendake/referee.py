"""The solo Ghost at the table (W-SOLO): tell the player which Ghost piece goes where, and check it by camera.

Owns :class:`GhostReferee`, the go-between for a solo game. The tracker explains the player's own moves; the
Ghost's moves are forced (``ghost.forced_move``), so nothing needs explaining: the referee says what to do and
checks that the table shows it.

1. **What is due** (``due(state)`` -> :class:`GhostStep`): the Ghost move due now, or, once the player has placed
   a marker and may end their turn, the one due when they do (the step then carries that ``EndTurn`` as its
   ``prefix`` and lists the printed actions still open: "When your turn is over ..."). The step holds the instruction lines (``ghost.apply``), the rule (W-SOLO-8 card, W-SOLO-10 action,
   W-SOLO-11 restore) and the **changes**: every reading key (``view.expected_readings``) whose value differs
   between the state before and after the move, with both values. The Ghost's own village board is left out (the
   Ghost has none; its markers sit on its cards). A change is ``part: "ghost"`` (map and score boards, a Long House
   an attack fills) or ``"clean-up"`` (the year end the move triggers: mask disks, turn-order disks, markers and
   tiles of the restore).
2. **The check** (``check(state, observation)`` -> :class:`Verdict`): only the changed keys are judged. Absent
   keys are unknown, never wrong (a board under a hand or in motion: wait; out of view: ``unchecked``); a reading
   below ``min_confidence`` can confirm but never refute. Score keys use ``view.score_reading_agrees`` (only the
   top disk of a stack shows). A changed key that shows the new value is done, the old value or one on the way
   (each piece counted between before and after: a victim off, the Ghost's piece not on yet) is "not yet",
   anything else is wrong, except while the player's turn may go on and nothing of the Ghost's move shows (then
   it is the player's own doing, for the tracker). Outside the changed keys one more thing is wrong: a **Ghost
   piece where none belongs** on the map (away from the Ghost's Home, where the player's attacks send Ghost
   natives, W-SOLO-7) or on a score track: that is how a piece put on the wrong territory shows. Status: ``done`` (with ``moves`` to apply), ``not_yet`` (``remaining``
   lists what is still to do), ``wrong`` (``problems`` and a ``fix`` citing the W-SOLO rule), ``need_card``
   (the year's Ghost mask card is not known: reveal it and tap it on the tablet, W-SOLO-8) or ``none``.
   A move that shows nothing the camera reads (a progress climb or removal, the advanced-tile removal, a known
   mask card) is ``done`` with ``seen_by_camera=False``.
3. **The session glue** (``feed(tracker, observation)`` / ``announce(tracker)`` -> tracker events): emits a
   :class:`GhostInstruction` event once per step, applies a done step as ``MoveRecognized`` events (one per
   player, exactly as the tracker logs moves, so ``GameSession.resume`` replays them unchanged), raises a
   W-SOLO ``IllegalMove`` alert for a wrong step and clears it once the table is right or taken back, and hands
   every other observation to ``tracker.observe``. A step the camera cannot see is accepted at the first
   observation after its instruction was announced (the player has had the chance to do it), unless the player's
   turn may still go on: then the tracker infers the EndTurn and the Ghost's move from the player's next placement.

``new_solo_game`` builds the initial state for ``GameSession.create`` from its arguments (W-SOLO-1..6).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from assistant.errors import UserError
from assistant.table import events as _events
from assistant.table.observation import Observation, split_key, split_reading_key
from assistant.wendake import ghost, rules
from assistant.wendake import moves as M
from assistant.wendake.describe import describe
from assistant.wendake.edition import Edition, load_edition
from assistant.wendake.explain import player_runs
from assistant.wendake.generate import legal_moves
from assistant.wendake.observer import (
    MASK_BOARD,
    SCORE_BOARDS,
    expected_readings,
    is_score_key,
    map_board,
    score_colours,
    score_reading_agrees,
    village_board,
)
from assistant.wendake.state import Options, State
from assistant.wendake.words import piece_words

RULE_OF = {M.GhostCard: "W-SOLO-8", M.GhostAction: "W-SOLO-10", M.GhostRestore: "W-SOLO-11"}
LASTING = ("out of view",)  # boards_unread reasons that waiting will not clear: such keys stay unchecked
STATUSES = ("none", "need_card", "not_yet", "wrong", "done")


# ---- set-up ---------------------------------------------------------------------------------------------------
def new_solo_game(players, colours=None, seed: int | None = None, difficulty: str = "medium", tribes=None,
                  options: dict | Options | None = None, deal_tribe: bool = False, edition: Edition | None = None) -> State:
    """The solo set-up (``ghost.new_solo_game``, W-SOLO-1..6) from ``GameSession.create``'s arguments: one player
    name (a second name, if given, is the Ghost's and must be "Ghost"), optional colours (yours, then the
    Ghost's), a tribe for you (the Ghost never has one, W-SOLO-6)."""
    ed = edition or load_edition()
    names = [players] if isinstance(players, str) else list(players)
    if len(names) == 2 and names[1] == ghost.GHOST_NAME:
        names = names[:1]
    if len(names) != 1:
        raise UserError(f"a solo game has one player against the Ghost (W-SOLO); got {len(names)} names: give one.")
    if names[0] == ghost.GHOST_NAME:
        raise UserError(f"the name {ghost.GHOST_NAME!r} belongs to the solo opponent; choose another name.")
    tribe = None
    if tribes is not None:
        tribes = list(tribes)
        if len(tribes) not in (1, 2) or (len(tribes) == 2 and tribes[1] is not None):
            raise UserError("a solo game takes one tribe (yours, or null); the Ghost never has one (W-SOLO-6).")
        tribe = tribes[0]
        if tribe is not None and tribe not in ed.tribes:
            raise UserError(f"unknown tribe {tribe!r}; known: {', '.join(sorted(ed.tribes))}.")
    opts = options if isinstance(options, Options) or options is None else Options.from_json(options)
    state = ghost.new_solo_game(names[0], seed=seed, difficulty=difficulty, tribe=tribe, deal_tribe=deal_tribe,
                                options=opts, edition=ed)
    if colours:
        colours = list(colours)
        if len(colours) == 1:
            colours.append(None)
        if len(colours) != 2:
            raise UserError(f"a solo game takes at most 2 colours (yours, then the Ghost's); got {len(colours)}.")
        for p, c in enumerate(colours):
            if c is None:
                continue
            if c not in ed.colours:
                raise UserError(f"unknown colour {c!r}; choose one of {', '.join(ed.colours)}.")
            other = state.players[1 - p].colour
            if colours[1 - p] is None and other == c:  # the default colour of the other side clashes: swap
                state.players[1 - p].colour = state.players[p].colour
            state.players[p].colour = c
        if state.players[0].colour == state.players[1].colour:
            raise UserError("you and the Ghost need different colours.")
    return state


# ---- what is due ----------------------------------------------------------------------------------------------
@dataclass
class GhostStep:
    """One Ghost move the player carries out on the table (see the module doc)."""

    prefix: tuple  # the player's moves that end their turn first (EndTurn), applied with the Ghost move
    move: object  # GhostCard | GhostAction | GhostRestore
    rule: str
    lines: list[str]
    before: State  # after the prefix
    after: State | None  # None while the mask card is unknown
    changes: list[dict] = field(default_factory=list)  # {key, board, region, where, part, before, after, text}
    card_needed: bool = False
    open_actions: list[str] = field(default_factory=list)  # printed actions the player could still do first

    @property
    def moves(self) -> list:
        return list(self.prefix) + [self.move]

    @property
    def text(self) -> str:
        text = " ".join(self.lines)
        extra = _year_end_texts(self.after, self.changes) if self.after is not None else []
        if extra:
            text += " Then the year's clean-up (W-SOLO-11): " + "; ".join(extra) + "."
        return text

    @property
    def signature(self) -> tuple:
        b = self.before  # the Ghost's own progress tells its three actions of a year apart
        return json.dumps([b.year, b.phase, b.current, b.solo.to_json(), [_json(m) for m in self.moves], self.card_needed],
                          sort_keys=True)

    def to_json(self) -> dict:
        return {"rule": self.rule, "text": self.text, "lines": list(self.lines), "moves": [_json(m) for m in self.moves],
                "card_needed": self.card_needed, "open_actions": list(self.open_actions),
                "changes": [_public(c) for c in self.changes]}


@dataclass
class Verdict:
    """What the table shows of a step: ``status`` in STATUSES (see the module doc)."""

    status: str
    step: GhostStep | None = None
    rule: str | None = None
    message: str = ""
    fix: str | None = None
    problems: list[dict] = field(default_factory=list)  # wrong readings: {key, board, region, expected, seen, text}
    remaining: list[dict] = field(default_factory=list)  # changes not made yet (as GhostStep.changes)
    unchecked: list[str] = field(default_factory=list)  # changed keys the camera could not read for good
    seen_by_camera: bool = False  # at least one changed reading confirmed the step
    moves: list = field(default_factory=list)  # when done: the moves to apply (prefix, then the Ghost's)


class GhostInstruction(_events.Event):
    """Tracker-log event: what the player must do for the Ghost now (``GhostStep.to_json`` plus who and when)."""

    def __init__(self, player: int, year: int, rule: str, text: str, lines: list, moves: list, card_needed: bool,
                 changes: list):
        self.player, self.year, self.rule, self.text, self.lines = player, year, rule, text, list(lines)
        self.moves, self.card_needed, self.changes = list(moves), bool(card_needed), list(changes)

    def to_json(self) -> dict:
        return {"kind": self.kind, "player": self.player, "year": self.year, "rule": self.rule, "text": self.text,
                "lines": self.lines, "moves": self.moves, "card_needed": self.card_needed, "changes": self.changes}

    def __eq__(self, other) -> bool:
        return isinstance(other, GhostInstruction) and self.to_json() == other.to_json()


# the tracker reads its log back by kind name (events.event_from_json); a resumed session meets this kind too
_events.EVENT_TYPES.setdefault("GhostInstruction", GhostInstruction)


class GhostReferee:
    """Tells the solo player what to do for the Ghost and checks it from observations (see the module doc)."""

    def __init__(self, edition: Edition | None = None, min_confidence: float = 0.6):
        self.ed = edition or load_edition()
        self.min_confidence = min_confidence
        self._announced: set = set()  # signatures of the steps announced (instruction event emitted)

    # ---- pure API ---------------------------------------------------------------------------------------------
    def due(self, state: State) -> GhostStep | None:
        """The Ghost step due now or at the end of the player's finished turn; None when the player decides."""
        if state.solo is None or state.phase == "over":
            return None
        prefix: tuple = ()
        base = state
        move = ghost.forced_move(state, self.ed)
        open_actions: list[str] = []
        if move is None and _may_end_turn(state):
            open_actions = _open_actions(state, self.ed)
            base = state.copy()
            try:
                rules.apply(base, M.EndTurn(), self.ed)
            except rules.IllegalMoveError:
                return None
            prefix = (M.EndTurn(),)
            move = ghost.forced_move(base, self.ed)
        if move is None:
            return None
        rule = RULE_OF[type(move)]
        if isinstance(move, M.GhostCard) and _card_unknown(base):
            solo = base.solo
            slot = next((i for i, u in enumerate(solo.under) if not u), 0)
            line = (f"Year {base.year}: reveal the top mask card of the deck for the Ghost and put it under Ghost card "
                    f"{slot + 1} ({solo.cards[slot]}); tap it on the tablet so Tablewatch knows its oval and line.")
            return GhostStep(prefix, M.GhostCard(None), rule, [line], base, None, [], card_needed=True)
        lines = ghost.apply(base.copy(), move, self.ed)  # the words; the state comes from the checked door below
        after = base.copy()
        rules.apply(after, move, self.ed)
        if open_actions:
            lines = [f"When your turn is over (you may still do: {', '.join(open_actions)}):"] + lines
        return GhostStep(prefix, move, rule, lines, base, after, _changes(base, after), open_actions=open_actions)

    def check(self, state: State, obs: Observation) -> Verdict:
        """Judge an observation against the step due (see the module doc)."""
        step = self.due(state)
        if step is None:
            return Verdict("none")
        if step.card_needed:
            return Verdict("need_card", step, step.rule, step.lines[0])
        items = {k: r for k, r in obs.readings.items()}
        done, remaining, unchecked, problems = [], [], [], []
        ca = score_colours(step.after)
        cb = score_colours(step.before)
        for c in step.changes:
            if c["part"] != "ghost":
                continue  # the player's own clean-up: said, and checked by the tracker once the step is applied
            k = c["key"]
            r = items.get(k)
            if r is None:
                reason = obs.boards_unread.get(c["board"])
                if reason is not None and reason not in LASTING:
                    remaining.append(c)  # a hand over the board, motion: look again
                else:
                    unchecked.append(k)  # out of view, or a region this camera does not read: nothing to wait for
                continue
            if is_score_key(k):
                now = score_reading_agrees(r.value, ca.get(k, set()))
                was = score_reading_agrees(r.value, cb.get(k, set()))
            else:  # half way (a victim taken off, the Ghost's piece not yet on) counts as not yet
                now, was = r.value == c["_after"], _between(r.value, c["_before"], c["_after"])
            if now:
                if not (is_score_key(k) and was):  # a score space that looks the same either way proves nothing
                    done.append(c)
            elif was or r.confidence < self.min_confidence:
                remaining.append(c)
            else:
                problems.append(_problem(k, c["where"], c["_after"], r.value, step.after, is_score_key(k)))
        if problems and step.prefix and not done:
            # the player's turn is not over in the engine and nothing of the Ghost's move shows: a changed key that
            # differs is the player's own doing (an attack on the Ghost's pieces, W-SOLO-7), the tracker's job.
            # A Ghost piece that appears away from its Home (a stray, below) is the Ghost's move put wrong.
            remaining += [c for c in step.changes if c["part"] == "ghost" and c["key"] in {p["key"] for p in problems}]
            problems = []
        problems += self._strays(step, items)
        if problems:
            targets = [c["text"] for c in step.changes if c["part"] == "ghost" and c not in done]
            fix = "; ".join(p["text"] for p in problems)
            if targets:
                fix += ". It goes: " + "; ".join(targets)
            return Verdict("wrong", step, step.rule,
                           f"The table does not show the Ghost's move as its card gives it ({step.rule}): "
                           + "; ".join(p["text"] for p in problems[:4]) + ".",
                           fix + f" ({step.rule}).", problems, remaining, unchecked, bool(done))
        if remaining:
            return Verdict("not_yet", step, step.rule, "Still to do for the Ghost: "
                           + "; ".join(c["text"] for c in remaining) + ".", None, [], remaining, unchecked, bool(done))
        return Verdict("done", step, step.rule, step.text, None, [], [], unchecked, bool(done), step.moves)

    def _strays(self, step: GhostStep, items) -> list[dict]:
        """Ghost pieces read where the state after the step has none of them (outside the changed keys)."""
        g = step.after.solo.ghost
        colour = step.after.players[g].colour
        changed = {c["key"] for c in step.changes}
        changed.add(f"{map_board(step.after.n)}/{step.after.players[g].home}")  # the player's attacks send Ghost
        skip = village_board(g) + "/"  # natives home (W-SOLO-7): a Ghost piece too many there is not a stray
        exp = expected_readings(step.after)
        colours = score_colours(step.after)
        mp = map_board(step.after.n) + "/"
        out = []
        for k, r in items.items():
            if k in changed or k.startswith(skip) or k not in exp or r.confidence < self.min_confidence:
                continue
            if not isinstance(r.value, tuple) or not (k.startswith(mp) or is_score_key(k)):
                continue  # the mask board's Ghost disks also move at a year end the player's own restore makes
            if is_score_key(k):
                if any(split_key(p)[1] == colour for p, _ in r.value) and colour not in colours.get(k, set()):
                    out.append(_problem(k, _where(step.after, k), exp[k], r.value, step.after, True, stray=colour))
                continue
            want = dict(exp[k])
            extra = {p: n - want.get(p, 0) for p, n in r.value if split_key(p)[1] == colour and n > want.get(p, 0)}
            if extra:
                out.append(_problem(k, _where(step.after, k), exp[k], r.value, step.after, False, stray=colour, extra=extra))
        return out

    # ---- the session glue -------------------------------------------------------------------------------------
    def forget(self) -> None:
        """Forget which steps were announced (after an undo: the step due is told again)."""
        self._announced.clear()

    def announce(self, tracker) -> list:
        """A GhostInstruction event for the step due now, once per step (nothing when none is due)."""
        step = self.due(tracker.state)
        if step is None or step.signature in self._announced:
            return []
        self._announced.add(step.signature)
        return [GhostInstruction(step.before.solo.ghost, step.before.year, step.rule, step.text, step.lines,
                                 [_json(m) for m in step.moves], step.card_needed, [_public(c) for c in step.changes])]

    def feed(self, tracker, obs: Observation) -> list:
        """One observation of a solo game: Ghost steps checked and applied, the rest to ``tracker.observe``."""
        if tracker.state.solo is None:
            return tracker.observe(obs)
        events: list = []
        for _ in range(6):  # a few Ghost steps can follow each other (restore removal -> year end -> next card)
            v = self.check(tracker.state, obs)
            if v.status == "none":
                break
            if v.status == "need_card":
                return events + self._clear(tracker, keep_card=True) + self._card_alert(tracker, obs) \
                    + self.announce(tracker)
            if v.status == "wrong":
                return events + self._alert(tracker, v)
            events += self._clear(tracker)
            if v.status == "not_yet":
                if v.seen_by_camera:
                    return events  # half done (an attack's two pieces): wait for the rest
                break  # nothing of it yet: the player may still be busy with their own turn
            if not v.seen_by_camera and (v.step.signature not in self._announced or v.step.prefix):
                # unseen step: accepted only once the player was told (the next observation), and never while
                # their turn may go on (their next placement shows it is over: the tracker explains it then)
                break
            events += self._apply(tracker, v)
        events += tracker.observe(obs)
        return events + self.announce(tracker)

    def _apply(self, tracker, v: Verdict) -> list:
        st = tracker.state
        events = []
        states = [st.copy()]
        for m in v.moves:
            nxt = states[-1].copy()
            rules.apply(nxt, m, self.ed)
            states.append(nxt)
        for p, i, j, change in player_runs(states, v.moves):
            run = v.moves[i:j]
            ghostly = p is not None and states[i].is_ghost(p)
            texts = list(v.step.lines) if ghostly else [describe(states[k], v.moves[k], states[k + 1]) for k in range(i, j)]
            events.append(_events.MoveRecognized(p, None if p is None else states[i].players[p].name,
                                                  [_json(m) for m in run], texts, change, states[i].year))
            tracker.apply_moves(list(run))
        forget = getattr(tracker, "_forget", None)
        if forget is not None:  # kept alternative lines predate these moves
            forget()
        return events

    def _alert(self, tracker, v: Verdict) -> list:
        sig = frozenset((p["key"], str(p["seen"])) for p in v.problems)
        for ev in tracker.alerts.values():
            if getattr(ev, "_ghost_sig", None) == sig:
                return []  # already shown
        events = self._clear(tracker)
        ev = _events.IllegalMove(0, v.rule, v.message, v.fix, v.step.before.solo.ghost, _json(v.step.move), v.problems)
        ev = tracker.alert(ev)
        ev._ghost_sig = sig
        return events + [ev]

    def _card_alert(self, tracker, obs: Observation) -> list:
        """The player plays on before the Ghost's card is known: say so once (W-SOLO-8)."""
        st = tracker.state
        exp = expected_readings(st)
        skip = village_board(st.solo.ghost) + "/"
        moved = sorted(k for k, r in obs.readings.items() if k in exp and not k.startswith(skip) and not is_score_key(k)
                       and r.confidence >= self.min_confidence and r.value != exp[k])
        if not moved:
            return []
        sig = ("card", st.year)
        for ev in tracker.alerts.values():
            if getattr(ev, "_ghost_sig", None) == sig:
                return []
        ev = _events.IllegalMove(0, "W-SOLO-8", f"Year {st.year} starts with the Ghost's mask card, and Tablewatch does "
                                  "not know it yet: the Ghost's moves this year depend on its oval and line.",
                                  "Reveal the top mask card for the Ghost and tap it on the tablet; then play on.",
                                  st.solo.ghost, None, [])
        ev = tracker.alert(ev)
        ev._ghost_sig = sig
        return [ev]

    @staticmethod
    def _clear(tracker, keep_card: bool = False) -> list:
        """Clear the referee's alerts (W-SOLO IllegalMove alerts about the Ghost's player index); with
        ``keep_card`` the W-SOLO-8 one (card not known yet) stays."""
        out = []
        for aid, ev in list(tracker.alerts.items()):
            rule = getattr(ev, "rule", None) or ""
            if ev.kind != "IllegalMove" or not rule.startswith("W-SOLO-") or not tracker.state.is_ghost(ev.player):
                continue
            if keep_card and rule == "W-SOLO-8":
                continue
            del tracker.alerts[aid]
            out.append(_events.AlertCleared(aid, ev.kind, "the Ghost's pieces match its instruction again"))
        return out


# ---- helpers ------------------------------------------------------------------------------------------------------
def _json(move) -> dict:
    return M.move_to_json(move)


def _may_end_turn(state: State) -> bool:
    """The player has placed a marker this turn and may end it now (W-TURN)."""
    t = state.turn
    if state.phase != "actions" or t is None or state.is_ghost(state.current) or t.placed is None:
        return False
    return not rules.check(state, M.EndTurn())


def _open_actions(state: State, ed: Edition) -> list[str]:
    """The printed actions of the player's tile that they can still do (legal now), in order, without repeats."""
    kinds = []
    for m in legal_moves(state, samples=0, edition=ed):
        kind = M.KIND_OF_MOVE.get(type(m))
        if kind is not None and kind not in kinds:
            kinds.append(kind)
    return kinds


def _card_unknown(state: State) -> bool:
    return not state.mask_deck or state.mask_deck[-1] is None


def _changes(before: State, after: State) -> list[dict]:
    """The reading keys a step changes (see the module doc): ``part`` "ghost" for the map and score boards, a Long
    House and any key showing a Ghost piece before or after; "clean-up" for the rest (the player's restore on
    their village board, their mask disk), which is said but left to the tracker to check."""
    g = before.solo.ghost
    colour = before.players[g].colour
    skip = village_board(g) + "/"
    eb, ea = expected_readings(before), expected_readings(after)
    cb, ca = score_colours(before), score_colours(after)
    out = []
    for k in sorted(set(eb) | set(ea)):
        if k.startswith(skip):
            continue
        if is_score_key(k):
            if cb.get(k, set()) == ca.get(k, set()):
                continue
        elif eb.get(k) == ea.get(k):
            continue
        board, region, _ = split_reading_key(k)
        where = _where(after, k)
        shows_ghost = any(isinstance(v, tuple) and any(split_key(p)[1] == colour for p, _ in v) for v in (eb.get(k), ea.get(k)))
        ghost_part = board in SCORE_BOARDS or board == map_board(after.n) or region == "long_house" or shows_ghost
        if is_score_key(k):
            now = ca.get(k, set())
            text = f"{where}: " + (f"the {' or '.join(sorted(now))} disk on top" if now else "no disk left there")
        else:
            text = f"{where}: {_say(eb.get(k))} -> {_say(ea.get(k))}"
        out.append({"key": k, "board": board, "region": region, "where": where,
                    "part": "ghost" if ghost_part else "clean-up", "_before": eb.get(k), "_after": ea.get(k), "text": text})
    return out


def _between(seen, before, after) -> bool:
    """Each piece of ``seen`` is counted between its count before and after: the table is on its way."""
    if seen == before:
        return True
    if not all(isinstance(v, tuple) for v in (seen, before, after)):
        return False
    b, a, s = dict(before), dict(after), dict(seen)
    for p in set(b) | set(a) | set(s):
        lo, hi = sorted((b.get(p, 0), a.get(p, 0)))
        if not lo <= s.get(p, 0) <= hi:
            return False
    return True


def _year_end_texts(after: State, changes: list[dict]) -> list[str]:
    """What a step's year end asks on the mask board and the villages (the Ghost's lines say the rest)."""
    out, villages = [], {}
    for c in changes:
        if c["board"] == MASK_BOARD:
            out.append(c["text"])
        elif c["board"].startswith("wendake-village-") and c["region"] != "long_house":
            villages.setdefault(c["board"], []).append(c["key"])
    for board, keys in villages.items():  # the player's own restore: one sentence per village board
        p = int(board.rsplit("-", 1)[1]) - 1
        tiles = any(k.endswith("#tile") for k in keys)
        out.append(f"{_poss(after.players[p].name)} village: action markers back to the Sages area"
                   + (", the tiles that held them flipped and the rows slid down (W-RES-2, W-RES-3)" if tiles else " (W-RES-2)"))
    return out


def _public(c: dict) -> dict:
    """A change as JSON: the values as {piece key: count} (the Observation's JSON form)."""
    out = {k: v for k, v in c.items() if not k.startswith("_")}
    out["before"], out["after"] = _value_json(c["_before"]), _value_json(c["_after"])
    return out


def _value_json(v):
    return {k: n for k, n in v} if isinstance(v, tuple) else v


def _problem(key: str, where: str, expected, seen, state: State, score: bool, stray: str | None = None,
             extra: dict | None = None) -> dict:
    board, region, tile = split_reading_key(key)
    if stray is not None and score:
        text = f"take the Ghost's {stray} disk off {where}"
    elif stray is not None:
        what = ", ".join(piece_words(p, n) for p, n in sorted(extra.items()))
        text = f"take the Ghost's {what} off {where}: no Ghost piece goes there now"
    elif score:
        text = f"{where} shows {_say(seen)}, not what the Ghost's score step leaves there"
    else:
        text = f"{where} should hold {_say(expected)}, holds {_say(seen)}"
    return {"key": key, "board": board, "region": region + ("#tile" if tile else ""), "expected": _value_json(expected),
            "seen": _value_json(seen), "text": text}


def _where(state: State, key: str) -> str:
    """A reading key in the player's words: 'productive area 1 of T07', "Ann's Long House", 'mask space S3'."""
    board, region, tile = split_reading_key(key)
    if board == map_board(state.n):
        if ".pa" in region:
            tid, pa = region.split(".pa")
            return f"productive area {pa} of {tid}"
        if region.startswith("L"):
            return f"lake {region}"
        homes = {pl.home: pl.name for pl in state.players}
        return f"{_poss(homes[region])} Home {region}" if region in homes else f"territory {region}"
    if board.startswith("wendake-village-"):
        p = int(board.rsplit("-", 1)[1]) - 1
        name = state.players[p].name if p < state.n else board
        label = {"long_house": "Long House"}.get(region, region.replace("_", " "))
        return f"{_poss(name)} {label}" + (" tile" if tile else "")
    if board in SCORE_BOARDS:
        row, _, v = region.partition(".")
        pair = state.pairs[SCORE_BOARDS.index(board)]
        return f"{pair[0 if row == 'upper' else 1]} track space {v}"
    if board == MASK_BOARD:
        kind, _, i = region.partition(".")
        if kind == "turn_order":
            return f"turn-order space {i}"
        if kind == "ceremony":
            return f"mask space S{int(i) + 1}"
        return "the Restore Area"
    return key


def _poss(name: str) -> str:
    return "your" if name == "You" else f"{name}'s"


def _say(v) -> str:
    if v is None:
        return "no tile"
    if isinstance(v, str):
        return f"tile {v}"
    if not v:
        return "nothing"
    return ", ".join(piece_words(p, n) for p, n in v)
