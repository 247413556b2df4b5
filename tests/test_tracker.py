"""The move tracker on perfect, noisy and doctored observations of seeded random games (assistant/table/tracker.py and
the Wendake explainer, assistant/wendake/explain*.py).

Observations are ``expected_readings`` of the true state, taken after each physical turn (EndTurn, Restore) and,
for some turns, in the middle. The tracker starts from the game's set-up with every hidden thing unknown
(``wendake.edits.conceal``: mask deck, discard pile, hands, turtle values), as at a real table. Figures are printed (run
with ``-s``); the slow test covers 20 full games (2, 3 and 4 players), perfect and noisy, and asserts the targets.

"Move log equals" (per game): the tracker followed the whole game, and for every physical turn (a) the table its
state implies is the true one (every expected reading and the exact score-track values) and (b) its moves for
that turn equal the true ones as far as a camera can tell (``assistant.wendake.movelog.turns_equal``: the multiset of
``observable`` moves; hidden parameters such as mask cards, turtle tiles, the draw source, the smallpox card,
which of two look-alike progress tiles was bought, and the exchanges/steps behind a net effect are left out, and
so are moves that change nothing in the game, such as a Tan with no beaver against the Tan skipped).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from game_looks import seeded_game

from assistant.table.events import IllegalMove, MoveRecognized, ScoreMismatch, TableOutOfSync
from assistant.table.evidence import Look, Node
from assistant.table.observation import COUNT_BOUND_CONFIDENCE, Observation, Reading
from assistant.table.tracker import Tracker
from assistant.wendake import moves as M
from assistant.wendake import rules
from assistant.wendake.edition import load_edition
from assistant.wendake.edits import apply_edit, conceal
from assistant.wendake.movelog import move_log_equal, noop_moves, turns_equal
from assistant.wendake.observer import PROGRESS_REGION, expected_readings, is_score_key, map_board, village_board
from assistant.wendake.setup import new_game
from assistant.wendake.state import PendingAction

NAMES = ["Ann", "Bob", "Cy", "Di"]
ALERTS = (IllegalMove, TableOutOfSync, ScoreMismatch)


def record(players: int, seed: int):
    return seeded_game(seed, NAMES[:players])


def observation(state, frame=0, drop=(), noise=None, rng=None):
    readings = {k: Reading(v, 0.95) for k, v in expected_readings(state).items()}
    for board in drop:
        for k in [k for k in readings if k.startswith(board + "/")]:
            del readings[k]
    if noise is not None:  # one low-confidence wrong reading, not of a tile: the progress set is tile reads too
        k = rng.choice(sorted(k for k in readings if "#tile" not in k and not k.endswith(f"/{PROGRESS_REGION}")))
        value = readings[k].value
        readings[k] = Reading(() if value else (("corn:none", 3),), noise)
    return Observation(frame, float(frame), readings, boards_unread={board: "hand" for board in drop})  # as the pipeline says


def visible(state):
    return expected_readings(state), [dict(p.tracks) for p in state.players]


def follow(players, seed, until_year=99, mid_turn=0.2, noise=0.0, drop=0.0, obs_seed=0, watch=None):
    """Feed a recorded game to a tracker; returns figures. Stops at the first divergence from the truth.

    After every fully read observation the table the tracker's state implies must be the one seen
    (``expected_readings``); a score value hidden under another disk may be wrong for a while, as at a real
    table, until a later observation shows it (the tracker then switches to an alternative line it kept,
    ``Correction("switch")``). At the end, the exact score values must be the true ones and the move log is
    compared turn by turn (``move_log_equal``). ``watch(tracker, events)`` is called after each look."""
    states, moves = record(players, seed)
    rng = random.Random(obs_seed)
    tracker = Tracker(conceal(new_game(NAMES[:players], seed=seed)))
    figures = {"observations": 0, "alerts": 0, "diverged": False, "turns": 0, "turns_exact": 0, "moves_true": 0,
               "finished": False, "switches": 0}
    last = len(moves) - 1
    for i, move in enumerate(moves):
        if states[i].year > until_year:
            last = i - 1
            break
        end_of_turn = isinstance(move, (M.EndTurn, M.Restore)) or i == len(moves) - 1
        if not end_of_turn and rng.random() >= mid_turn / 4:
            continue
        truth = states[i + 1]
        dropped = [village_board(rng.randrange(players))] if rng.random() < drop else []
        obs = observation(truth, i, dropped, noise if noise and rng.random() < 0.5 else None, rng)
        events = tracker.observe(obs)
        figures["observations"] += 1
        figures["alerts"] += sum(isinstance(e, ALERTS) for e in events)
        figures["switches"] += sum(getattr(e, "action", None) == "switch" for e in events)
        if watch is not None:
            watch(tracker, events)
        if dropped:
            continue  # an unread board may leave the turn unexplained until the next full look
        if expected_readings(tracker.state) != expected_readings(truth):
            figures["diverged"] = True
            break
    true_moves = moves[:last + 1]
    figures["turns_exact"], figures["turns"] = turns_equal(
        tracker.moves, true_moves, noop_moves(tracker.initial, tracker.moves, tracker.edits), noop_moves(states[0], true_moves))
    figures["moves_true"] = last + 1
    final = states[last + 1]
    figures["finished"] = not figures["diverged"] and visible(tracker.state) == visible(final)
    figures["median_ms"] = sorted(tracker.timings)[len(tracker.timings) // 2] if tracker.timings else 0.0
    figures["timings"] = list(tracker.timings)
    # whatever happened, the tracker's move log is legal from the start (edits name hidden things only)
    state = conceal(new_game(NAMES[:players], seed=seed))
    for k, m in enumerate(tracker.moves):
        for e in tracker.edits.get(k, ()):
            apply_edit(state, e)
        rules.apply(state, m)
    return figures


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3)])
def test_perfect_observations_first_year(players, seed):
    f = follow(players, seed, until_year=1)
    print(players, seed, f)
    assert not f["diverged"] and f["alerts"] == 0
    assert f["turns_exact"] >= 0.8 * f["turns"]


def test_kept_alternative_replaces_a_wrong_hidden_guess():
    """Game 119 (2 players, looks of seed 12): two lines look the same on the table but differ in hidden things
    (score values under another disk, hands, tiles); the tracker keeps the other alive and switches when a later
    turn shows it was right, without an alert."""
    f = follow(2, 119, until_year=2, obs_seed=12)
    print(f["switches"], {k: v for k, v in f.items() if k != "timings"})
    assert f["switches"] >= 1 and f["finished"] and f["alerts"] == 0
    assert f["turns_exact"] == f["turns"]


def test_noise_and_unread_boards_cause_no_alert():
    f = follow(3, 2, until_year=1, noise=0.3, drop=0.2, obs_seed=5)
    print(f)
    assert not f["diverged"] and f["alerts"] == 0


# ---- doctored observations --------------------------------------------------------------------------------------
def _turn_starts(states):
    return [s for s in states if s.phase == "actions" and s.turn and s.turn.placed is None]


def inject_line_rule(state):
    p = state.current
    pl = state.players[p]
    if not pl.markers:
        return None
    bad = [i for i in range(9) if i not in pl.markers and i != pl.fire and not rules.line_possible(pl.markers + [i], pl.fire)]
    if not bad or pl.sages < 1:
        return None
    fake = state.copy()
    fake.players[p].markers.append(bad[0])
    fake.players[p].sages -= 1
    return fake, "W-LINE-2"


def _distances(topo, start):
    dist, todo = {start: 0}, [start]
    while todo:
        x = todo.pop(0)
        for y in topo.neighbours[x]:
            if y not in dist:
                dist[y] = dist[x] + 1
                todo.append(y)
    return dist


def inject_river(state, ed):
    """A guard jumps to a territory no chain of legal steps reaches (across a river or lake)."""
    p = state.current
    topo = ed.map_for(state.n)
    steps = max(a.n for a in state.turn.pending if a.kind == "move")
    mine = [tid for tid, t in state.territories.items() if t.guards[p]]
    reach = {}
    for tid in mine:
        for x, d in _distances(topo, tid).items():
            reach[x] = min(reach.get(x, 99), d)
    for tid in mine:
        far = [x for x in state.territories if reach.get(x, 99) > steps and state.territories[x].home_of is None]
        if far:
            fake = state.copy()
            fake.territories[tid].guards[p] -= 1
            fake.territories[far[0]].guards[p] += 1
            return fake, "W-MOV-2"
    return None


def inject_past_guard(state, ed):
    p = state.current
    topo = ed.map_for(state.n)
    for tid, t in state.territories.items():
        if t.home_of is not None:
            continue
        for i, pa in enumerate(t.pas):
            if pa.count and pa.owner not in (None, p) and t.guards[pa.owner] > 0:
                src = [x for x in (tid, *topo.neighbours[tid]) if state.territories[x].guards[p] > 0]
                if src:
                    fake = state.copy()
                    fake.territories[src[0]].guards[p] -= 1
                    fake.players[pa.owner].long_house[pa.native] += 1
                    q = fake.territories[tid].pas[i]
                    q.owner, q.native, q.count = p, "warrior", 1
                    return fake, "W-FIGHT-4"
    return None


def inject_score_step(state):
    p = state.current
    fake = state.copy()
    track = "military" if fake.players[p].tracks["military"] < 25 else "economic"
    fake.players[p].tracks[track] = min(25, fake.players[p].tracks[track] + 1)
    if fake.players[p].tracks == state.players[p].tracks:
        return None
    return fake, "W-SCR-6"


def injected_cases(players, seed, per_kind=4):
    from assistant.wendake.edition import load_edition

    ed = load_edition()
    states, moves = record(players, seed)
    cases = []
    # states right after a Move tile was activated: the warrior injections
    after_move_tile = [states[i + 1] for i, m in enumerate(moves)
                       if isinstance(m, M.Activate) and states[i + 1].turn and any(a.kind == "move" for a in states[i + 1].turn.pending)]
    for kind, pool, fn in (("line", _turn_starts(states), inject_line_rule),
                           ("river", after_move_tile, lambda s: inject_river(s, ed)),
                           ("guard", after_move_tile, lambda s: inject_past_guard(s, ed)),
                           ("score", _turn_starts(states), inject_score_step)):
        found = 0
        for s in pool[::3]:
            case = fn(s)
            if case:
                cases.append((kind, s, *case))
                found += 1
                if found >= per_kind:
                    break
    return cases


def flagged(base, fake, rule):
    tracker = Tracker(base)
    events = tracker.observe(observation(fake))
    alerts = [e for e in events if isinstance(e, ALERTS)]
    accepted_illegal = any(isinstance(e, MoveRecognized) for e in events) and rule != "W-SCR-6"
    hit = any(getattr(e, "rule", None) == rule for e in alerts)
    return hit, bool(alerts), accepted_illegal, alerts


def test_injected_illegal_moves_are_flagged_with_rule_ids():
    total = hits = any_alert = accepted = 0
    misses = []
    for players, seed in ((2, 21), (3, 22), (4, 23)):
        for kind, base, fake, rule in injected_cases(players, seed):
            hit, alerted, acc, alerts = flagged(base, fake, rule)
            total += 1
            hits += hit
            any_alert += alerted
            accepted += acc
            if not hit:
                misses.append((kind, rule, [(a.kind, getattr(a, "rule", None)) for a in alerts]))
    print(f"injected {total}: right rule {hits}, flagged {any_alert}, illegal accepted {accepted}; misses {misses}")
    assert total >= 30
    assert accepted == 0
    assert any_alert == total
    assert hits >= 0.9 * total


def test_table_back_in_place_clears_the_alert():
    states, moves = record(2, 21)
    base = _turn_starts(states)[5]
    fake, rule = inject_score_step(base)
    tracker = Tracker(base)
    events = tracker.observe(observation(fake))
    assert any(isinstance(e, ScoreMismatch) and e.rule == "W-SCR-6" for e in events)
    events = tracker.observe(observation(base))
    assert [e.kind for e in events] == ["AlertCleared"] and not tracker.alerts


def test_a_ritual_with_its_disk_one_step_off_is_logged_and_the_disk_flagged():
    """The table shows a Ritual done (natives back Home from the Long House) with its ritual disk one space too far
    (an injected wrong score step, e2e game 2p s1001). Another choice of natives fits the disk, but not the Home
    the camera reads surely nor the Long House it reads weakly (confidences as the camera gave them there): the
    line the pieces accept is logged and the disk raises a ScoreMismatch (W-SCR-6). Before, the other line ranked
    first (its readings cost less than two disks) and, unacceptable, left the Ritual out of the log (3 of these 4
    cases). Not covered: when the Home does not tell the choices apart either (seed 2, move 40) the line fitting
    the disk is logged, and when only the weak Long House reading shows the Ritual at all (seed 3, move 40) nothing is."""
    for players, seed, i in ((2, 1, 49), (2, 3, 47), (2, 3, 98), (2, 1, 32)):
        states, moves = record(players, seed)
        m = moves[i]
        assert isinstance(m, M.Ritual)
        p = states[i].current
        fake = states[i + 1].copy()
        fake.players[p].tracks["ritual"] += 1
        readings = {k: Reading(v, 0.4 if k.endswith("/long_house") else 0.69) for k, v in expected_readings(fake).items()}
        events = Tracker(states[i]).observe(Observation(0, 0.0, readings))
        logged = [M.move_from_json(mv) for e in events if isinstance(e, MoveRecognized) for mv in e.moves]
        assert m in logged, (players, seed, i, m, [e.kind for e in events])
        assert any(isinstance(e, ScoreMismatch) and e.rule == "W-SCR-6" and e.track == "ritual" for e in events)


def test_a_trade_whose_disk_went_one_step_too_far_is_logged_and_the_disk_flagged_on_a_far_table():
    """e2e 4p s1003 (an injected wrong score step): a Trade's economic disk one space too far, on a 4-player table
    whose villages read at most 0.59 (the boards' image quality caps them) and the disk at 0.62. Spending one more
    resource for a point fits the disk, but leaves that pile read one more than it, at 0.58: as sure as a score
    disk that raises a ScoreMismatch (``SCORE_ALERT_CONFIDENCE``). The line the pieces accept is logged and the
    disk flagged (W-SCR-6); before, the extra point was logged and the wrong step went unflagged. A pile read at
    0.5 is weaker evidence than the disk: the extra point is logged."""
    ed = load_edition()
    for players, seed in ((2, 1), (3, 2), (4, 3)):
        states, moves = record(players, seed)
        i = next(i for i, m in enumerate(moves) if isinstance(m, M.Trade) and i > 20)
        st = states[i].copy()
        p = st.current
        st.players[p].resources.update(leather=2, fish=2, corn=0, beans=0, pumpkins=0)
        true, more = M.Trade(points=("leather",)), M.Trade(points=("leather", "fish"))
        assert not rules.check(st, true, ed) and not rules.check(st, more, ed)
        fake = st.copy()
        rules.apply(fake, true, ed)
        fake.players[p].tracks["economic"] += 1
        for conf, flagged in ((0.58, True), (0.5, False)):
            readings = {k: Reading(v, 0.62 if is_score_key(k) else conf) for k, v in expected_readings(fake).items()}
            events = Tracker(st.copy()).observe(Observation(0, 0.0, readings))
            logged = [M.move_from_json(mv) for e in events if isinstance(e, MoveRecognized) for mv in e.moves]
            assert logged[:1] == [true if flagged else more], (players, seed, conf, logged)
            assert any(isinstance(e, ScoreMismatch) and e.track == "economic" and e.player == p for e in events) == flagged


@pytest.mark.parametrize("players, seed", [(4, 3), (3, 2)])
def test_a_wrong_score_step_on_a_far_score_board_is_flagged(players, seed):
    """A score disk one space too far at a turn start, read where the score boards of a 4-player table are seen
    (about 0.9 px/mm: the board's image quality caps its readings at 0.58, ``SCORE_ALERT_CONFIDENCE``); every
    other reading sure. ScoreMismatch (W-SCR-6) for that track; the same disk read at 0.5 stays a weak reading."""
    states, _ = record(players, seed)
    base = _turn_starts(states)[3]
    fake, rule = inject_score_step(base)
    p = base.current
    track = next(t for t in fake.players[p].tracks if fake.players[p].tracks[t] != base.players[p].tracks[t])
    for conf, flagged in ((0.58, True), (0.5, False)):
        readings = {k: Reading(v, conf if is_score_key(k) else 0.95) for k, v in expected_readings(fake).items()}
        events = Tracker(base).observe(Observation(0, 0.0, readings))
        assert any(isinstance(e, ScoreMismatch) and e.rule == rule and e.track == track and e.player == p for e in events) == flagged


def test_undo_and_correct():
    states, moves = record(2, 1)
    tracker = Tracker(states[0])
    k = next(i for i, m in enumerate(moves) if isinstance(m, M.EndTurn))
    tracker.observe(observation(states[k + 1]))
    assert tracker.moves
    n = len(tracker.moves)
    tracker.undo()
    assert not tracker.moves and visible(tracker.state) == visible(states[0])
    tracker.correct([M.move_to_json(m) for m in moves[:k + 1]])
    assert len(tracker.moves) == k + 1 and visible(tracker.state) == visible(states[k + 1]) and n >= 1
    with pytest.raises(rules.IllegalMoveError):
        tracker.correct([M.move_to_json(M.EndTurn())] * 0 + [{"type": "harvest"}])


def full_games(noisy: bool, games: int = 20, first_seed: int = 100):
    """Figures over ``games`` full games (2, 3, 4 players in turn): perfect or noisy observations (a wrong
    low-confidence reading in half of them, a village board unread in 10%, some mid-turn looks)."""
    totals = {"games": 0, "followed": 0, "equal": 0, "alerts": 0, "false_alert_games": 0, "observations": 0,
              "turns": 0, "turns_exact": 0, "switches": 0}
    timings = []
    for g in range(games):
        players = 2 + g % 3
        seed = first_seed + g
        f = follow(players, seed, noise=0.3 if noisy else 0.0, drop=0.1 if noisy else 0.0, obs_seed=g)
        totals["games"] += 1
        totals["followed"] += f["finished"]
        totals["equal"] += f["finished"] and f["turns_exact"] == f["turns"]
        totals["false_alert_games"] += f["alerts"] > 0
        for k in ("alerts", "observations", "turns", "turns_exact", "switches"):
            totals[k] += f[k]
        timings += f.pop("timings")
        print(players, seed, f, flush=True)
    timings.sort()
    if timings:  # tracker time per observation (a figure, not asserted: timings depend on the machine)
        totals["median_ms"] = round(timings[len(timings) // 2], 1)
        totals["p95_ms"] = round(timings[int(0.95 * (len(timings) - 1))], 1)
    print("TOTAL", "noisy" if noisy else "perfect", totals, flush=True)
    return totals


@pytest.mark.slow
@pytest.mark.parametrize("noisy", [False, True])
def test_twenty_full_games(noisy):
    """Issue 5's figures on 20 legal games (targets: the move log equals the true one in >= 95% of games, 19/20,
    and at most 1 false alert in the 20 games; every alert on a legal game is false). Illegal-move acceptance is
    checked in ``follow`` (the tracker's log replays with validation)."""
    t = full_games(noisy)
    assert t["games"] == 20
    assert t["alerts"] <= 1, t  # target met: at most 1 false alert in 20 legal games
    # Not met yet (docs/tracker.md): equal >= 19. Until then this guards the figures measured (perfect: 20 followed
    # to the end, 16 equal; noisy: 19 and 14. Before the tracker read the progress tiles' sides: 20 and 13, 19 and
    # 12; before the comparison's no-op filter stopped leaving out moves that change only the players' lists and
    # counts: 14 and 13) against regressions.
    assert t["followed"] >= (19 if noisy else 20), t
    assert t["equal"] >= (14 if noisy else 16), t


def _bought(tracker, st, p: int, tile: str, pay: tuple):
    """Player p buys ``tile`` from its row (the tracker notes what the purchase looked like): the state after."""
    tracker.x.note_purchases(st, M.Trade(purchases=(M.Purchase(tile, pay),)))
    after = st.copy()
    after.progress_rows[load_edition().progress[tile].level].remove(tile)
    after.players[p].progress.append(tile)
    return after


def test_a_purchase_that_looked_like_another_tile_can_be_named_by_its_use():
    """W-PRG-2: buying a Lowest tile while Military is the lowest track shows on the table exactly as buying the
    Military tile of that level (one tile leaves the row, 1 Economic + 1 Military). The tracker remembers the
    look-alikes of each purchase, so a later use of the other one (a Step, W-PRG-L1-1) names it by a swap edit."""
    st = new_game(NAMES[:2], seed=1)
    st.progress_rows[1] = ["P1-08", "P1-01", "P1-03"]  # Extra exchange (Lowest), Step (Military), a Ritual tile
    st.players[0].tracks.update(economic=3, military=1, ritual=4, mask=2)  # Military is the lowest
    tr = Tracker(st)
    after = _bought(tr, st, 0, "P1-08", ("leather", "fish", "corn"))
    assert tr.x.lookalikes[(0, "P1-08")] == {"P1-01"}  # not P1-03: its point would have gone on Ritual
    named = dict(tr.x.tiles_for(after, 0, {"W-PRG-L1-1"}))
    assert named == {"P1-01": {"op": "swap_progress", "player": 0, "give": "P1-08", "take": "P1-01", "holder": "row"}}
    apply_edit(after, named["P1-01"])
    assert "P1-01" in after.players[0].progress and after.progress_rows[1] == ["P1-08", "P1-03"]
    # with Military not the lowest, the purchase looked like no other tile
    st.players[0].tracks.update(military=5)
    _bought(tr, st, 0, "P1-08", ("leather", "fish", "corn"))
    assert tr.x.lookalikes[(0, "P1-08")] == frozenset()


def test_a_use_of_a_tile_another_player_was_taken_to_hold_names_both_purchases_through_the_row():
    """e2e 4p s1003: George bought P2-03 and was taken to hold its twin P2-04 (both Ritual). Ringo then bought
    P2-04, which the tracker named P2-10 (Highest: its points went on Ritual, his highest track). Ringo's use of
    P2-04 (W-PRG-L2-4) named no tile he could hold, and the game went out of sync. George's purchase looked as
    P2-03, still in the row, would have; then P2-04 was in the row when Ringo bought, looking as P2-03 did."""
    st = new_game(NAMES[:2], seed=1)
    st.progress_rows[2] = ["P2-03", "P2-06"]  # George's purchase left P2-03 (Ritual) and a Mask tile
    st.players[1].progress.append("P2-04")  # George, as the tracker has it
    st.players[0].tracks.update(economic=3, military=1, ritual=6, mask=2)  # Ritual is Ringo's highest
    st.progress_rows[2].append("P2-10")
    tr = Tracker(st)
    pay = ("leather", "leather", "fish", "fish", "corn", "beans")
    after = _bought(tr, st, 0, "P2-10", pay)
    assert tr.x.lookalikes[(0, "P2-10")] == {"P2-03"}  # not P2-06: its points would have gone on Mask
    named = dict(tr.x.tiles_for(after, 0, {"W-PRG-L2-4"}))
    assert named == {"P2-04": {"op": "several", "edits": [
        {"op": "swap_progress", "player": 1, "give": "P2-04", "take": "P2-03", "holder": "row"},
        {"op": "swap_progress", "player": 0, "give": "P2-10", "take": "P2-04", "holder": "row"}]}}
    apply_edit(after, named["P2-04"])
    assert after.players[0].progress == ["P2-04"] and after.players[1].progress == ["P2-03"]
    assert sorted(after.progress_rows[2]) == ["P2-06", "P2-10"]
    # a used P2-04 is George's for good
    after = _bought(tr, st, 0, "P2-10", pay)
    after.players[1].progress_used.append("P2-04")
    assert dict(tr.x.tiles_for(after, 0, {"W-PRG-L2-4"})) == {}


def test_a_free_order_tile_seen_turned_down_is_named_before_an_animal_the_pile_read_loosely_hides():
    """e2e 4p s6: George bought Free order (P1-03, Ritual), named Animal (P1-09, Highest: its point went on Ritual,
    his highest track). Each year he turned it face down at the start of his turn (W-PRG-L1-3), and the tracker
    logged Animal taking a leather (W-PRG-L1-9), which a pile of 6 read at 0.2 could not deny: three turns wrong.
    Free order used unseen is a last resort; seen turned face down, it weighs as any other use (the rename is a
    step of its own)."""
    states, _ = record(2, 1)
    st = _turn_starts(states)[5].copy()
    p = st.current
    for tiles in [*st.progress_rows.values(), *st.progress_box.values(), *(pl.progress for pl in st.players)]:
        tiles[:] = [t for t in tiles if t not in ("P1-03", "P1-09")]
    st.progress_rows[1].append("P1-03")
    st.players[p].progress.append("P1-09")
    st.players[p].resources["leather"] = 6
    tracker = Tracker(st.copy())
    tracker.x.lookalikes[(p, "P1-09")] = frozenset({"P1-03"})
    truth = st.copy()
    apply_edit(truth, {"op": "swap_progress", "player": p, "give": "P1-09", "take": "P1-03", "holder": "row"})
    rules.apply(truth, M.UseProgress("P1-03"), load_edition())
    readings = {k: Reading(v, 0.95) for k, v in expected_readings(truth).items()}
    leather = f"{village_board(p)}/resource.leather"
    readings[leather] = Reading(readings[leather].value, 0.2)
    events = tracker.observe(Observation(0, 0.0, readings))
    logged = [mv for e in events if isinstance(e, MoveRecognized) for mv in e.moves]
    assert [(mv["type"], mv.get("tile")) for mv in logged] == [("use_progress", "P1-03")], logged
    assert not any(isinstance(e, ALERTS) for e in events)


def test_many_unsure_differences_ask_naming_the_board():
    """Only low-confidence readings disagree, too many to be noise: an alert says the players broke a rule, so it
    never comes from readings the tracker doubts (issue 34). It looks once more, then accepts the legal line and
    asks, naming the board it doubts (docs/tracker.md, Doubt; tests/test_doubt.py)."""
    st = conceal(new_game(NAMES[:2], seed=3))
    tr = Tracker(st)
    readings = {k: Reading(v, 0.95) for k, v in expected_readings(st).items()}
    places = sorted(k for k in readings if k.split("/")[1][0] in "LT" and "." not in k.split("/")[1])[:5]
    assert len(places) == 5
    for k in places:  # canoes of no one's on lakes and territories, each read unsurely
        readings[k] = Reading((("canoe:black", 2),), 0.3)
    assert tr.observe(Observation(1, 1.0, readings)) == []
    events = tr.observe(Observation(2, 2.0, readings))
    assert not [e for e in events if isinstance(e, (TableOutOfSync, IllegalMove))]
    asks = [e for e in events if e.kind == "NeedsConfirmation"]
    assert len(asks) == 1 and asks[0].candidates[0]["boards"] == [map_board(2)], asks
    assert map_board(2) in asks[0].message


def test_two_turns_seen_at_once_after_a_board_under_a_hand():
    """Game 109, noisy looks: a village board under a hand leaves a look with several candidates; the next full
    look shows two turns at once and is searched on from those candidates (it used to end in a false alert)."""
    f = follow(2, 109, until_year=3, noise=0.3, drop=0.1, obs_seed=9)
    print({k: v for k, v in f.items() if k != "timings"})
    assert f["finished"] and f["alerts"] == 0


def test_moves_go_on_past_a_place_the_camera_keeps_misreading():
    """One lake keeps reading a canoe that is not there (sure, 0.8): the turns that follow are still recognised;
    the lake stays one alert (not one per look) until it reads right again."""
    states, moves = record(2, 5)
    ends = [i for i, m in enumerate(moves) if isinstance(m, (M.EndTurn, M.Restore))][:3]
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=5)))
    lake = f"{map_board(2)}/L1"
    alerts, recognised = [], 0
    for n, i in enumerate(ends):
        obs = observation(states[i + 1], i)
        if n < 2:
            obs.readings[lake] = Reading((("canoe:black", 1),), 0.8)
        events = tracker.observe(obs)
        recognised += sum(isinstance(e, MoveRecognized) for e in events)
        alerts += [e for e in events if isinstance(e, (TableOutOfSync, IllegalMove))]
        if n < 2:
            assert expected_readings(tracker.state) == expected_readings(states[i + 1])  # the turn is in
    assert recognised >= 3
    assert len(alerts) == 1 and "L1" in alerts[0].message
    assert not tracker.alerts  # the lake reads right again: cleared


def test_a_lost_tracker_calls_out_each_place_once():
    """A lake reads a canoe surely (0.8) that no move explains, while a weak misread wanders over the table look after
    look: once the tracker has been unable to explain more looks in a row than its re-reads cover, the alert shown
    stands; a sure difference at a new place is a new alert, and the table put back clears it (issue 34: on tables
    the camera reads badly, 58-176 alerts a game, most of them the same places called out again)."""
    states, _ = record(2, 5)
    base = _turn_starts(states)[3]
    tracker = Tracker(base)
    rng = random.Random(4)

    def look(frame, **sure):
        obs = observation(base, frame, noise=0.3, rng=rng)
        for lake, colour in sure.items():
            obs.readings[f"{map_board(2)}/{lake}"] = Reading(((f"canoe:{colour}", 1),), 0.8)
        return [e for e in tracker.observe(obs) if isinstance(e, (TableOutOfSync, IllegalMove))]

    called = [look(f, L1="black") for f in range(8)]
    assert called[0] and all("L1" in e.message for e in called[0])
    assert not any(called[4:])  # lost: L1 stays the one alert shown, whatever else wavers
    new = look(8, L1="black", L2="black")
    assert len(new) == 1 and "L2" in new[0].message
    events = tracker.observe(observation(base, 9))
    assert "AlertCleared" in [e.kind for e in events] and not tracker.alerts


def turn_ends(states, moves, until_year: int):
    """(move index, the true state after it) at the end of each physical turn up to ``until_year``."""
    for i, m in enumerate(moves):
        if states[i + 1].year > until_year:
            return
        if isinstance(m, (M.EndTurn, M.Restore)):
            yield i, states[i + 1]


def _unsure_look(states, moves, i: int, slot_confidence: float):
    """The look after move ``i`` of game 2 (2 players) with the first turn's action marker read absent at
    ``slot_confidence`` and the turn-order track read unsurely."""
    p = states[0].current
    slot = f"{village_board(p)}/slot.{moves[0].slot[0] * 3 + moves[0].slot[1]}"
    obs = observation(states[i + 1], i)
    obs.readings[slot] = Reading((), slot_confidence)
    for k in [k for k in obs.readings if k.startswith("wendake-mask/turn_order.")]:  # read unsurely
        obs.readings[k] = Reading(obs.readings[k].value, 0.3)
    return obs


@pytest.mark.parametrize("slot_confidence", [0.55, 0.75])
def test_an_unexplained_look_rereads_the_turn_before(slot_confidence):
    """Game 2 (2 players), the first turn: the action marker on the village grid is not seen and the turn-order
    track reads unsurely, so a turn-order reservation explains the look best (W-ACT-2). The next look shows the
    tile's Move, which that line cannot explain: the tracker searches again from before the look it got wrong
    (W-ACT-8: the marker's tile gives the actions) and switches, without an alert. At 0.75 the camera surely misses
    the marker, look after look, while the Sages area surely shows it gone: the re-read takes it as placed and
    unseen, as a live look does (``Tracker._with_missed_marker``). Where it lies shows only in how surely each
    empty slot reads (0.95 elsewhere), and the true line gives up the tile's first action (0.15, ``PREF_COST``):
    read empty at 0.9, a tile with the Move alone would be the likelier place."""
    states, moves = record(2, 2)
    assert isinstance(moves[0], M.Activate)
    end = next(k for k, m in enumerate(moves) if isinstance(m, M.EndTurn))
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=2)))
    looks = [tracker.observe(_unsure_look(states, moves, i, slot_confidence)) for i in (0, end)]
    took = [m["type"] for e in looks[0] if isinstance(e, MoveRecognized) for m in e.moves]
    assert took == ["reserve_turn_order"]  # the wrong reading of the first look
    switch = [e for e in looks[1] if getattr(e, "action", None) == "switch"]
    assert switch and [m["type"] for m in switch[0].added][:2] == ["activate", "move"]
    assert not any(isinstance(e, ALERTS) for e in looks[1])
    assert expected_readings(tracker.state) == expected_readings(states[end + 1])
    assert tracker.moves == moves[:end]  # the EndTurn shows with the next turn


def test_a_misreading_the_table_keeps_showing_marks_its_look_for_a_deeper_reread():
    """The look above that took a reservation tolerated the turn-order track read unsurely (no disk where the line
    put one). While the table keeps showing it so, that look is the suspect an unexplained look re-reads from,
    however many looks ago it was (``Tracker.suspect_look``); once the track reads as the line says, none is."""
    states, moves = record(2, 2)
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=2)))
    tracker.observe(_unsure_look(states, moves, 0, 0.55))
    assert [m.__class__.__name__ for m in tracker.moves][:1] == ["ReserveTurnOrder"] and len(tracker.looks) == 1
    assert tracker.suspect_look() == 0
    agree = observation(tracker.state, 1)  # the track now shows the reservation the line made
    assert tracker.suspect_look({k: r.value for k, r in agree.readings.items()}) is None


def test_the_rereads_of_a_look_nothing_explains_stop_at_their_node_cap(monkeypatch):
    """An action marker put off the line (W-LINE-2) after ten turns read well: nothing explains the look, so the
    tracker tries its kept alternatives and re-reads the looks before (``_try_backtrack``) on the chance that one
    was explained wrongly. Each of those speculative searches stops at ``SPECULATIVE_NODES`` (e2e 4p s1003: such
    re-reads held an illegal move's alert back 7.3 s; the ones that found a line visited at most 210 nodes). With
    the cap at 5 the searches are cut, visit fewer nodes, and the look is called out with the same rule."""
    import assistant.table.alternatives as tracker_module

    states, moves = record(3, 22)
    ends = list(turn_ends(states, moves, 2))
    fake, rule = inject_line_rule(ends[10][1])
    results = []
    for cap in (tracker_module.SPECULATIVE_NODES, 5):
        monkeypatch.setattr(tracker_module, "SPECULATIVE_NODES", cap)
        tracker = Tracker(conceal(new_game(NAMES[:3], seed=22)))
        for i, st in ends[:11]:
            assert not any(isinstance(e, ALERTS) for e in tracker.observe(observation(st, i)))
        nodes, cut = tracker.stats["nodes"], tracker.stats["cut"]
        events = tracker.observe(observation(fake, 999))
        assert [(e.kind, e.rule) for e in events if isinstance(e, ALERTS)] == [("IllegalMove", rule)]
        results.append((tracker.stats["nodes"] - nodes, tracker.stats["cut"] - cut))
    (full, full_cut), (capped, capped_cut) = results
    assert full_cut == 0 and capped_cut >= 2 and capped < full / 2


@pytest.mark.parametrize("confidence, noise", [(0.55, 0.45), (0.9, None)])
def test_a_home_read_one_short_all_game_holds_nothing_back(confidence, noise):
    """A crowded Home reads one warrior short at every look while its guards come and go. Unsure (0.55), with
    another place read wrong (unsure, 0.45) now and then: together they cost more than the noise a look may carry,
    but the Home's error is known after the first look (``Tracker.misreadings``). Sure (0.9): a warrior hides
    behind the others in the Home's stack (W-SET-8; e2e 2p s1, red's Home read one short at 0.67 for 40 looks,
    taken for an illegal move H2 -> H1 three times), so a Home read with fewer warriors than a line leaves there,
    where the line moves none in or out, weighs as unsure (``HOME_STACK_CONFIDENCE``). Either way the turns of
    the first year are followed without an alert, the warriors that leave the Home found by where they went."""
    states, moves = record(2, 5)
    rng = random.Random(3)
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=5)))
    home = next(t for t, terr in states[0].territories.items() if terr.home_of == 0)
    key = f"{map_board(2)}/{home}"
    colour = states[0].players[0].colour
    looks = alerts = 0
    for i, truth in turn_ends(states, moves, 1):
        obs = observation(truth, i, noise=noise if looks % 2 else None, rng=rng)
        guards = dict(obs.readings[key].value)
        seen = guards.get(f"warrior_standing:{colour}", 0)
        if seen:  # one short
            guards[f"warrior_standing:{colour}"] = seen - 1
            obs.readings[key] = Reading(tuple(sorted((k, n) for k, n in guards.items() if n)), confidence)
        alerts += sum(isinstance(e, ALERTS) for e in tracker.observe(obs))
        looks += 1
        assert expected_readings(tracker.state) == expected_readings(truth), f"diverged at move {i}"
    assert looks >= 8 and alerts == 0
    assert key in tracker.misreadings


@pytest.mark.parametrize("players, seed, i", [(3, 2, 123), (3, 2, 259), (4, 8, 15), (2, 9, 146), (3, 11, 248)])
def test_a_guard_gone_home_into_a_stack_read_short_is_the_move(players, seed, i):
    """A guard steps from a territory back to its Home, and the Home's stack reads as before, one short (the
    warrior hides behind the others, W-SET-8; e2e 3p s2: T02 -> H2, H2 read 6 of 7 at 0.60). The red warrior is
    seen nowhere else, so by conservation (W-COMP-3) it is in the stack: the Move is logged, where before the
    line of a guard lying down as an outpost (read empty) tied with it and the table went out of sync. A warrior
    gone from its place and seen elsewhere is no such case: the injected attacks past a guard (test above) still
    raise W-FIGHT-4 and no line sends that warrior Home."""
    states, moves = record(players, seed)
    m = moves[i]
    assert isinstance(m, M.Move) and len(m.steps) == 1 and states[i].territories[m.steps[0].to].home_of is not None
    readings = {k: Reading(v, 0.602) for k, v in expected_readings(states[i + 1]).items()}
    home = f"{map_board(players)}/{m.steps[0].to}"
    readings[home] = Reading(expected_readings(states[i])[home], 0.602)
    events = Tracker(states[i]).observe(Observation(0, 0.0, readings))
    assert [e.kind for e in events] == ["MoveRecognized"] and events[0].moves == [M.move_to_json(m)]


@pytest.mark.parametrize("horizon", [120, 10])
def test_an_alternative_with_a_hidden_score_outlives_the_others(monkeypatch, horizon):
    """Two lines that leave the table the same but put a score disk on different spaces under other disks stay two
    hypotheses until the disk on top moves on, which may take many looks (e2e 3p s2: a skipped Military action
    showed 33 looks later). Game 113 (3 players): from look 60 on, such a score alternative is kept
    ``SCORE_ALT_HORIZON`` looks, while the newer alternatives of how far a turn has gone come and go (at most
    ``max_alts`` of those, each for ``alt_horizon`` looks) and do not crowd it out."""
    from assistant.table import alternatives

    monkeypatch.setattr(alternatives, "SCORE_ALT_HORIZON", horizon)
    kept = []  # per look: (the score alternative kept, how many others)
    figures = follow(3, 113, watch=lambda tracker, _events: kept.append(
        (next((a for a in tracker.alts if a.score), None), sum(not a.score for a in tracker.alts))))
    assert figures["finished"] and figures["alerts"] == 0
    first = next(i for i, (alt, _) in enumerate(kept) if alt is not None)
    lived = sum(alt is kept[first][0] for alt, _ in kept)
    tracker = Tracker(new_game(NAMES[:3], seed=113))
    assert all(others <= tracker.max_alts for _, others in kept)
    assert max(others for _, others in kept[first:first + lived]) == tracker.max_alts  # the others came too
    if horizon > len(kept) - first:
        assert lived == len(kept) - first > tracker.alt_horizon  # kept to the end, past the others' horizon
    else:
        assert lived == horizon + 1


def test_an_alternative_replays_the_looks_since_its_split_with_the_committed_moves():
    """A kept alternative differs from the committed line in hidden things only. When the committed line fails (a
    noisy look), each alternative is replayed over every look since it split: the moves the committed line took at
    each look are played from the alternative's position, and searched for only where they do not explain that look
    there (e2e 4p s3: a hundred looks replayed took 5.8 s, then 0.6). Game 106 (2 players), noisy looks: most looks
    replayed need no search (``Tracker.stats``: replayed, replay_searches), and the game is followed."""
    stats = {}
    figures = follow(2, 106, noise=0.45, drop=0.1, watch=lambda tracker, _events: stats.update(tracker.stats))
    assert figures["finished"] and figures["alerts"] == 0
    assert stats["replayed"] > 2 * stats["replay_searches"] > 0, stats


def test_an_unread_new_row_is_named_by_the_tiles_activated_there():
    """Game 6 (2 players), two years, tile faces never read (village boards too far from the camera for
    ``#tile`` readings): each Restore lays out its new row in a guessed order (W-RES-4). A later activation there
    whose actions belong to another tile of the row names it by a ``swap_tiles`` edit, without an alert."""
    states, moves = record(2, 6)
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=6)))
    alerts = swaps = 0
    for i, truth in turn_ends(states, moves, 2):
        obs = observation(truth, i)
        for k in [k for k in obs.readings if k.endswith("#tile")]:
            del obs.readings[k]
        events = tracker.observe(obs)
        alerts += sum(isinstance(e, ALERTS) for e in events)
        swaps += sum(e["edit"]["op"] == "swap_tiles" for ev in events if isinstance(ev, MoveRecognized) for e in ev.edits)
    seen = {k: v for k, v in expected_readings(tracker.state).items() if "#tile" not in k}
    assert seen == {k: v for k, v in expected_readings(truth).items() if "#tile" not in k}
    assert swaps >= 1 and alerts == 0


def test_a_tile_swap_edit_takes_only_unmarked_tiles_of_row_0():
    st = new_game(NAMES[:2], seed=6)
    before = [g.tile for g in st.players[0].grid]
    apply_edit(st, {"op": "swap_tiles", "player": 0, "a": 0, "b": 2})
    assert [g.tile for g in st.players[0].grid][:3] == [before[2], before[1], before[0]]
    for bad in ({"a": 0, "b": 3}, {"a": 1, "b": 1}):
        with pytest.raises(ValueError):
            apply_edit(st, {"op": "swap_tiles", "player": 0, **bad})
    st.players[0].markers.append(1)
    with pytest.raises(ValueError):
        apply_edit(st, {"op": "swap_tiles", "player": 0, "a": 1, "b": 2})


def test_a_place_the_moves_touch_read_one_piece_off_lets_the_moves_in_after_three_looks():
    """Game 5 (2 players): from the Tan Pelts on, the leather of village 2 reads one short at every look, surely
    (0.8; four pieces lying close read as three). The first two looks stay unexplained with one alert; at the
    third the same miscount is let in (``MISCOUNT_LOOKS``): the moves are in, the place stays an alert."""
    from assistant.table.tracker import MISCOUNT_LOOKS

    states, moves = record(2, 5)
    tan = next(i for i, m in enumerate(moves) if i > 10 and isinstance(m, M.TanPelts))
    key = "wendake-village-2/resource.leather"
    assert dict(expected_readings(states[tan + 1])[key]) != dict(expected_readings(states[tan])[key])
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=5)))
    events = {}
    for i in range(tan + MISCOUNT_LOOKS):
        obs = observation(states[i + 1], i)
        if i >= tan:
            (piece, n), = obs.readings[key].value
            obs.readings[key] = Reading(((piece, n - 1),), 0.8)
        events[i] = tracker.observe(obs)
    assert [type(e) for e in events[tan]] == [TableOutOfSync] and "leather" in events[tan][0].message
    assert not any(isinstance(e, MoveRecognized) for e in events[tan + 1])  # still waiting: not yet the same three times
    last = tan + MISCOUNT_LOOKS - 1
    assert any(isinstance(e, MoveRecognized) for e in events[last])
    assert tracker.moves[:tan + 1] == moves[:tan + 1]
    seen, true = expected_readings(tracker.state), expected_readings(states[last + 1])
    assert {k: v for k, v in seen.items() if k != key} == {k: v for k, v in true.items() if k != key}
    standing = list(tracker.alerts.values())
    assert [type(a) for a in standing] == [TableOutOfSync] and "leather" in standing[0].message


def test_a_new_row_partly_read_is_laid_out_as_read():
    """Game 1 (2 players), the first Restores (W-RES-4): one new row with its last tile not read at all; the other
    with its first tile read weakly and wrongly (0.03: an advanced tile whose number differs by a digit), the true
    one close behind and no basic tile among the runner-ups (``Reading.others``). The faces named fix the order,
    the weak read names the display tile taken; both Restores are the true ones."""
    states, moves = record(2, 1)
    first, second = [i for i, m in enumerate(moves) if isinstance(m, M.Restore)][:2]
    taken = moves[second].take
    assert taken is not None and moves[first].order != tuple(states[first].players[states[first].current].below)
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=1)))
    for i, truth in turn_ends(states, moves, 2):
        if i > second:
            break
        obs = observation(truth, i)
        if i in (first, second):
            vb = village_board(states[i].current)
            if i == first:
                del obs.readings[f"{vb}/slot.2#tile"]
            else:
                key = f"{vb}/slot.{moves[second].order.index(taken)}#tile"
                assert obs.readings[key].value == f"{taken}:action"
                obs.readings[key] = Reading("A2-17:action", 0.03, ((f"{taken}:action", 0.03), ("A1-12:action", 0.2)))
        assert not any(isinstance(e, ALERTS) for e in tracker.observe(obs))
    assert tracker.moves[first] == moves[first] and tracker.moves[second] == moves[second]


def test_a_new_row_read_only_weakly_is_laid_out_in_the_order_its_reads_favour():
    """Game 1 (2 players), the first Restore: all three new faces read, none surely (0.05 each). No face names its
    tile, but together the reads rank the six orders: the true one is taken, not the order the tiles lay in."""
    states, moves = record(2, 1)
    first = next(i for i, m in enumerate(moves) if isinstance(m, M.Restore))
    assert moves[first].order != tuple(states[first].players[states[first].current].below)
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=1)))
    for i, truth in turn_ends(states, moves, 2):
        if i > first:
            break
        obs = observation(truth, i)
        if i == first:
            vb = village_board(states[i].current)
            for k in range(3):
                key = f"{vb}/slot.{k}#tile"
                obs.readings[key] = Reading(obs.readings[key].value, 0.05, (("A1-12:action", 0.05),))
        assert not any(isinstance(e, ALERTS) for e in tracker.observe(obs))
    assert tracker.moves[first] == moves[first]


def test_an_action_that_shows_nothing_yet_waits_for_the_next_look():
    """Game 1 (2 players), move 82: a tile of Harvest then Mask Ceremony (W-ACT-8). A look after the Harvest sees
    nothing of the ceremony; the tracker does not commit a bare draw there (it shows nothing; the rank prefers lines
    that do every action), so the tablet never reads "draws from the deck" for a ceremony that then plays on S2,
    and the next look needs no switch of lines (in a noisy e2e game the kept line was gone and it was an alert)."""
    states, moves = record(2, 1)
    mask = 82
    assert isinstance(moves[mask], M.MaskCeremony) and moves[mask].space == "S2" and isinstance(moves[mask - 1], M.Harvest)
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=1)))
    looks = [i for i, _ in turn_ends(states, moves, 99) if i < mask - 1] + [mask - 1, mask]
    for i in looks:
        events = tracker.observe(observation(states[i + 1], i))
        assert not any(isinstance(e, ALERTS) or getattr(e, "action", None) == "switch" for e in events), f"move {i}: {events}"
        if i == mask - 1:
            assert isinstance(tracker.moves[-1], M.Harvest)  # the ceremony not yet
    assert [m.space for m in tracker.moves[-2:] if isinstance(m, M.MaskCeremony)] == ["S2"]
    true = moves[:mask + 1]
    exact, turns = turns_equal(tracker.moves, true, noop_moves(tracker.initial, tracker.moves, tracker.edits), noop_moves(states[0], true))
    assert exact == turns


@pytest.mark.parametrize("seed, act", [(18, 77), (13, 111)])
def test_a_look_after_the_activate_waits_for_the_hunt_rather_than_give_it_up(seed, act):
    """2-player games 18 and 13: a Hunt + Tan Pelts tile activated with no beaver. At the look right after the
    Activate neither action shows yet, and a Tan with no beaver shows nothing ever: giving the Hunt up to do it
    (one action given up) must not beat waiting with both still open (``SKIP_WEIGHT``), or the next look, which
    shows the Hunt's beaver, has to switch lines (e2e 4p s3 and s6, where the switch did not come and the Hunt
    was lost)."""
    states, moves = record(2, seed)
    assert isinstance(moves[act], M.Activate) and isinstance(moves[act + 1], M.Hunt) and isinstance(moves[act + 2], M.TanPelts)
    assert states[act].players[states[act].current].beavers == 0
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=seed)))
    for i in [i for i, _ in turn_ends(states, moves, 99) if i < act] + [act, act + 1, act + 2]:
        events = tracker.observe(observation(states[i + 1], i))
        assert not any(isinstance(e, ALERTS) or getattr(e, "action", None) == "switch" for e in events), f"move {i}: {events}"
        if i == act:
            assert isinstance(tracker.moves[-1], M.Activate)  # no Tan yet
    true = moves[:act + 3]
    exact, turns = turns_equal(tracker.moves, true, noop_moves(tracker.initial, tracker.moves, tracker.edits), noop_moves(states[0], true))
    assert exact == turns


def test_a_look_explained_wrongly_through_a_fish_read_short_is_reread():
    """Game 10 (2 players), the first turn: Activate a Trade tile, then Trade a leather and a fish for points
    (W-ACT-10). The look after the Activate reads the player's fish one short, surely (0.66): a Trade paying that
    fish for a point explains it best (the score disk disagreeing is a ScoreMismatch). The next look shows the true
    Trade done, which nothing explains from there. Searching again from before the first look finds the true line;
    it explains that look too, but for the one fish read short, which is within a look's noise. The tracker
    switches and the table is in sync again; before, the turn stayed TableOutOfSync (and in a whole e2e game,
    every turn after it)."""
    states, moves = record(2, 10)
    assert isinstance(moves[0], M.Activate) and isinstance(moves[1], M.Trade) and "fish" in moves[1].points
    end = next(k for k, m in enumerate(moves) if isinstance(m, (M.EndTurn, M.Restore)))
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=10)))
    first = observation(states[1], 0)
    key = f"{village_board(states[1].current)}/resource.fish"
    ((kind, n),) = first.readings[key].value
    first.readings[key] = Reading(((kind, n - 1),) if n > 1 else (), 0.66)
    took = [m["type"] for e in tracker.observe(first) if isinstance(e, MoveRecognized) for m in e.moves]
    assert took == ["activate", "trade"]  # the wrong reading of the first look
    second = tracker.observe(observation(states[end + 1], end))
    assert [e.action for e in second if e.kind == "Correction"] == ["switch"]
    assert not any(isinstance(e, ALERTS) for e in second)
    assert expected_readings(tracker.state) == expected_readings(states[end + 1])
    assert tracker.moves == moves[:end]


def test_an_action_marker_the_camera_misses_on_its_tile_is_taken_as_placed():
    """Game 5 (2 players): from the first Activate after move 10 on, the marker on its slot is never seen (the
    slot reads empty, surely: a red marker on a dark tile), while the Sages area shows it gone. The Activate is
    still found (``WendakeExplainer._marker_unseen``: every slot is tried when the marker left the Sages and shows nowhere)
    and let in at once (``_missed_marker``: the slot becomes a known misreading), and the year goes on without an
    alert. A marker seen on a slot where no line may put it is still flagged (the line-rule injections above)."""
    states, moves = record(2, 5)
    act = next(i for i, m in enumerate(moves) if i > 10 and isinstance(m, M.Activate))
    p = states[act].current
    slot = moves[act].slot[0] * 3 + moves[act].slot[1]
    key = f"{village_board(p)}/slot.{slot}"
    marker = f"action_marker:{states[act].players[p].colour}"
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=5)))
    looks = alerts = 0
    for i, truth in turn_ends(states, moves, 1):
        obs = observation(truth, i)
        value = dict(obs.readings[key].value)
        if i >= act and value.pop(marker, 0):
            obs.readings[key] = Reading(tuple(sorted(value.items())), 0.8)
        events = tracker.observe(obs)
        alerts += sum(isinstance(e, ALERTS) for e in events)
        looks += i >= act
        assert expected_readings(tracker.state) == expected_readings(truth), f"diverged at move {i}"
    assert looks >= 3 and alerts == 0
    assert tracker.moves[act] == moves[act]


def test_a_disk_hidden_in_the_restore_heap_is_no_difference():
    """Piles (``view.PILE_KEYS``): the lakes, where a canoe put down may hide another and no rule takes one out of
    play, and the mask board's restore area, which holds the disks of every player off the ceremony spaces, dropped on each
    other: the camera sees the top ones. A reading of some of them and nothing else agrees
    (``view.pile_reading_agrees``): game 5's first year, read with the heap one disk short (surely, 0.8) whenever it
    holds two or more, is followed without an alert; a disk there that no state puts there still differs."""
    from assistant.wendake.observer import MASK_BOARD, pile_reading_agrees

    key = f"{MASK_BOARD}/restore"
    assert pile_reading_agrees((("tribe_disk:red", 1),), (("tribe_disk:blue", 1), ("tribe_disk:red", 1)))
    assert not pile_reading_agrees((), (("tribe_disk:red", 1),))
    assert not pile_reading_agrees((("tribe_disk:green", 1),), (("tribe_disk:red", 1),))
    from assistant.wendake.observer import PILE_KEYS

    lake = f"{map_board(3)}/L3"  # e2e 3p s5: a green canoe put over the blue one there since the set-up
    assert lake in PILE_KEYS
    assert pile_reading_agrees((("canoe:green", 1), ("canoe:red", 1)), (("canoe:blue", 1), ("canoe:green", 1), ("canoe:red", 1)))
    assert not pile_reading_agrees((("canoe:green", 2),), (("canoe:green", 1), ("canoe:red", 1)))
    states, moves = record(2, 5)
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=5)))
    short = alerts = 0
    for i, truth in turn_ends(states, moves, 1):
        obs = observation(truth, i)
        heap = obs.readings[key].value
        if len(heap) >= 2:
            obs.readings[key] = Reading(heap[1:], 0.8)
            short += 1
        alerts += sum(isinstance(e, ALERTS) for e in tracker.observe(obs))
        assert expected_readings(tracker.state) == expected_readings(truth), f"diverged at move {i}"
    assert short >= 5 and alerts == 0


def test_when_no_line_fits_a_disk_the_nearest_goes_first():
    """A score disk one space too far (e2e 2p s1004: an economic disk on 5 after a Trade worth 4 points) fits
    neither the Trade's points (4) nor a progress-tile purchase paid with the same resources (3): both lines cost
    the same. The one whose value lies nearest to the disk seen goes first (``Node.score_off``)."""
    from assistant.wendake.observer import score_readings

    states, _ = record(2, 1)
    st = states[0].copy()
    track = st.pairs[1][1]  # the second track of pair 1 (the lower row of wendake-scores-b)
    seen = st.copy()
    seen.players[0].tracks[track] = 5
    look = Look((k, v, 0.9) for k, v in score_readings(seen).items())  # the disk read on 5
    tracker = Tracker(st.copy())
    nodes = []
    for value in (4, 3):
        st.players[0].tracks[track] = value
        nodes.append(tracker.node(st.copy(), (), look, 0))
    near, far = nodes
    assert (near.score_off, far.score_off) == (1, 2) and near.score_cost == far.score_cost > 0
    assert min([far, near], key=Node.key) is near


def test_a_canoe_hidden_on_its_lake_is_found_by_the_fish_it_catches():
    """Game 8 (2 players), move 81: a Canoe whose new canoe never shows (put down over another on the lake, e2e 3p
    s14), then a Fish. The lake reads as before; it is a pile, so that agrees with the canoe there or not. At the
    Canoe's look nothing changed; at the Fish's look the fish space shows one fish more than the canoes the
    tracker knew of: a Canoe on a lake where nothing new shows (tried one rank worse) explains it. Which lake does
    not show; no rule depends on it (W-ACT-2)."""
    states, moves = record(2, 8)
    i = 81
    assert isinstance(moves[i], M.Canoe) and isinstance(moves[i + 1], M.Fish)
    lake = f"{map_board(2)}/{moves[i].lake}"
    hidden = expected_readings(states[i])[lake]
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=8)))
    for k in range(i):
        tracker.observe(observation(states[k + 1], k))
    assert expected_readings(tracker.state) == expected_readings(states[i])
    events, n = [], len(tracker.moves)
    for k in (i, i + 1):  # a look after the Canoe, then after the Fish; the new canoe never shows
        obs = observation(states[k + 1], k)
        obs.readings[lake] = Reading(hidden, 0.9)
        events += tracker.observe(obs)
    assert not any(isinstance(e, ALERTS) for e in events)
    assert [type(m) for m in tracker.moves[n:]] == [M.Canoe, M.Fish]  # which lake does not show: a guess
    p = states[i].current
    assert tracker.state.canoes_in_play(p) == states[i + 2].canoes_in_play(p)


def test_a_disk_put_onto_another_raises_one_alert_not_two():
    """Paul's disk put one space too far, onto Ringo's (e2e 2p s1001): the space shows Paul's disk on top and
    Ringo's is not seen. Paul's disk is flagged; Ringo's may just lie under it, so it is not flagged too."""
    from assistant.wendake.observer import SCORE_BOARDS, score_readings

    states, _ = record(2, 1)
    st = states[0].copy()
    track = st.pairs[0][0]  # the upper row of scores-a
    st.players[0].tracks[track], st.players[1].tracks[track] = 5, 4
    tracker = Tracker(st)
    readings = {k: Reading(v, 0.9) for k, v in score_readings(st).items()}
    top = f"{SCORE_BOARDS[0]}/upper.5"
    readings.update({f"{SCORE_BOARDS[0]}/upper.4": Reading((), 0.9), top: Reading(((f"tribe_disk:{st.players[1].colour}", 1),), 0.9)})
    events = tracker.x.check_scores(Look((k, r.value, r.confidence) for k, r in readings.items()))
    assert [(e.player, e.track, e.seen) for e in events if isinstance(e, ScoreMismatch)] == [(1, track, 5)]


@pytest.mark.parametrize("seed", [5, 6])
def test_a_board_under_a_hand_and_one_unsure_miscount_bound_the_search(seed):
    """The current player's village under a hand, every reading unsure (a 4-player table's image quality) and a
    Home read one warrior short: no line explains the miscount, and the moves on the hidden board show nothing.
    The search stops ``SEARCH_PATIENCE`` depths after its last better line instead of trying every line of
    optional actions (W-ACT-1) and later turns to the full depth (about 3,000 lines and 3 s before the bound);
    the look changes nothing."""
    st = conceal(new_game(NAMES[:4], seed=seed))
    tracker = Tracker(st.copy())
    obs = observation(st, drop=[village_board(st.current)])
    home = f"{map_board(4)}/H1"
    (piece, n), = obs.readings[home].value
    obs.readings.update({k: Reading(r.value, 0.55) for k, r in obs.readings.items()})
    obs.readings[home] = Reading(((piece, n - 1),), 0.55)
    assert tracker.observe(obs) == []
    assert tracker.moves == []
    assert tracker.stats["nodes"] < 400


def test_a_marker_missed_on_its_tile_after_it_was_seen_raises_no_alert():
    """A player's first action marker of the year is seen when it is placed, then missed on its tile (read empty,
    surely) at every later look of the year, as on a dark tile (e2e 3p s17: 6 alerts). The player's other markers
    read where they are, so the four are counted (``WendakeExplainer._marker_kept``, W-COMP-3): no alert, and the turns go
    on. The same marker moved to another tile shows there, and is an alert."""
    states, moves = record(2, 5)
    first = next(i for i, m in enumerate(moves) if isinstance(m, M.Activate))
    p = states[first].current
    slot = f"{village_board(p)}/slot.{moves[first].slot[0] * 3 + moves[first].slot[1]}"
    marker = f"action_marker:{states[0].players[p].colour}"
    tracker = Tracker(conceal(new_game(NAMES[:2], seed=5)))
    looks = missed = alerts = 0
    for i, truth in turn_ends(states, moves, 1):
        obs = observation(truth, i)
        if i > first + 1 and marker in dict(obs.readings[slot].value):
            obs.readings[slot] = Reading((), 0.9)
            missed += 1
        alerts += sum(isinstance(e, ALERTS) for e in tracker.observe(obs))
        looks += 1
        assert expected_readings(tracker.state) == expected_readings(truth), f"diverged at move {i}"
    assert missed >= 3 and alerts == 0

    i, truth = next((i, t) for i, t in turn_ends(states, moves, 1) if i > first + 1 and marker in dict(expected_readings(t)[slot]))
    base = truth.copy()
    tracker = Tracker(base)
    obs = observation(truth)
    empty = next(k for k, v in expected_readings(truth).items() if k.startswith(f"{village_board(p)}/slot.") and "#" not in k and v == ())
    obs.readings[slot] = Reading((), 0.9)
    obs.readings[empty] = Reading(((marker, 1),), 0.9)
    assert any(isinstance(e, ALERTS) for e in tracker.observe(obs))


def _turn_start_with_outpost(players: int, seed: int):
    """A state at the start of a turn (nothing placed yet) whose player has an outpost on the map."""
    states, moves = record(players, seed)
    for st in states:
        t = st.turn
        if st.phase == "actions" and t is not None and t.placed is None and not t.done and any(
                pa.owner == st.current and pa.native == "warrior" for ter in st.territories.values() for pa in ter.pas):
            return st.copy()
    raise AssertionError("no outpost in the game")


@pytest.mark.parametrize("owned", [True, False])
def test_a_transfer_as_guard_is_recognised_with_the_tile_owned_or_its_look_alike(owned):
    """W-PRG-L2-2: an outpost stood up as a guard in its own territory. The legal moves the tracker asks for list
    no triggered abilities, so the Transfer as guard was never tried: with 'Two steps' (W-PRG-L2-1) bought, as far
    as the camera could tell, in place of 'Transfer as guard' (same level and category), the outpost was sent Home
    and a warrior stepped from the Home to the territory (e2e 4p s12, turns 70 and 110). Now the Transfer as guard
    is tried with the player's face-up tile, or with the look-alike named by a swap edit; the moves logged are the
    true ones."""
    st = _turn_start_with_outpost(2, 3)
    p = st.current
    for row in st.progress_rows.values():
        for t in ("P2-01", "P2-02"):
            if t in row:
                row.remove(t)
    st.progress_rows.setdefault(2, []).append("P2-01" if owned else "P2-02")
    st.players[p].progress.append("P2-02" if owned else "P2-01")
    tid, pa = next((tid, i) for tid, ter in st.territories.items() for i, a in enumerate(ter.pas)
                   if a.owner == p and a.native == "warrior")
    truth = st.copy()
    if not owned:
        apply_edit(truth, {"op": "swap_progress", "player": p, "give": "P2-01", "take": "P2-02", "holder": "row"})
    move = M.Transfer(tid, pa, replace=False, as_guard=True)
    rules.apply(truth, move)
    tracker = Tracker(st)
    events = tracker.observe(observation(truth))
    assert [type(e) for e in events] == [MoveRecognized]
    assert tracker.moves == [move]
    assert "P2-02" in tracker.state.players[p].progress_used


def test_a_ritual_bonus_without_its_step_is_the_point_alone():
    """W-PRG-L1-4: a Ritual with the Ritual bonus tile gives +1 Ritual point, then the player *may* move a warrior
    one step. The tracker tried the tile only with a step, so a bonus taken without one was explained as a Ritual
    without the tile (a score disk off by one) or as a step there and a Transfer back (e2e 4p s12, turn 124)."""
    states, moves = record(2, 1)
    k = next(i for i, m in enumerate(moves) if isinstance(m, M.Ritual) and m.natives)
    st = states[k].copy()
    p = st.current
    for row in st.progress_rows.values():
        if "P1-04" in row:
            row.remove("P1-04")
    st.players[p].progress.append("P1-04")
    truth = st.copy()
    move = M.Ritual(moves[k].natives, ("P1-04",), ())
    rules.apply(truth, move)
    tracker = Tracker(st)
    events = tracker.observe(observation(truth))
    assert [type(e) for e in events] == [MoveRecognized]
    assert tracker.moves == [move]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_pile_counted_short_that_reads_the_same_as_it_grows_hides_no_action(seed):
    """The resource counter undercounts big piles (a flat pile of 7-11 pieces: 0.12-0.52 accuracy). A pile read one
    short at low confidence is tolerated and remembered; when an action then adds to it and the counter reads the
    same count again, the disagreement is the same misreading, not evidence against the action: the action is
    logged, not given up (e2e 4p s12 and s15: beans 7 read 6, then 9 still read 6 at 0.12-0.16, the Harvest lost)."""
    states, moves = record(2, seed)
    act = key = None
    for k, m in enumerate(moves):
        if isinstance(m, (M.Harvest, M.Fish, M.Hunt)) and isinstance(moves[k - 1], M.Activate):
            before, after = expected_readings(states[k]), expected_readings(states[k + 1])
            changed = [x for x in after if after[x] != before[x]]
            if len(changed) == 1 and "/resource." in changed[0] and before[changed[0]] and before[changed[0]][0][1] >= 2:
                act, key = k, changed[0]
                break
    assert act is not None
    (piece, n), = expected_readings(states[act])[key]
    stuck = Reading(((piece, n - 1),), 0.15)
    tracker = Tracker(states[act - 1].copy())
    obs = observation(states[act - 1])  # nothing moved yet, the pile read one short
    obs.readings[key] = stuck
    assert tracker.observe(obs) == [] and key in tracker.misreadings
    obs = observation(states[act + 1], 1)  # the action done, the pile read the same
    obs.readings[key] = stuck
    assert not any(isinstance(e, ALERTS) for e in tracker.observe(obs))
    assert tracker.moves == moves[act - 1:act + 1]


@pytest.mark.parametrize("before, confidence, logged, least", [
    (0.95, 0.13, True, 1), (0.95, 0.3, False, 1), (0.6, 0.17, True, 1), (0.13, 0.13, False, 1), (0.13, 0.14, False, 1),
    (0.11, 0.14, True, 1), (0.13, 0.13, False, 2), (COUNT_BOUND_CONFIDENCE, COUNT_BOUND_CONFIDENCE, True, 2)])
def test_an_action_whose_pile_reads_as_before_is_done_or_given_up_as_the_read_says(before, confidence, logged, least):
    """Game 1 (2 players): a Harvest, Fish or Hunt adds to a resource pile, which the counter still reads as before
    (a big pile counted short). Every printed action is optional (W-ACT-8), but players nearly always do them: a
    line that gives one up weighs 0.15 beside the readings (``PREF_COST``). The pile is read at ``before`` at the
    Activate's look, then at ``confidence``.
    - Read as before at 0.13 after 0.95, where the counter is right about two times in three, the action is logged
      when the turn ends (e2e 4p s15: 7 pumpkins read 5 at 0.135, the Harvest lost); so at 0.17 after 0.6: a count
      read much less surely than before may hide a piece (``SHAKEN_COUNT_MARGIN``; e2e 4p s1009, 3 beavers read 2).
    - Read as before at 0.3, where it is right 19 times in 20, the pile is the better evidence: given up.
    - Read exactly as at the Activate's look, as surely within 0.02 (``STEADY_MARGIN``), the pile did not change,
      however loose the count: given up (e2e 2p s1004, 3p s8, 4p s3: a Fish, Hunt and Fish given up, their piles
      read as before at 0.12, 0.11, 0.008). A read 0.03 surer than before is no longer steady: logged at 0.14.
    - A count at the counter's ceiling is a lower bound (``COUNT_BOUND_CONFIDENCE``): reading it the same again says
      nothing, so the action is logged (e2e 3p s17: 9 then 10 beavers read 7).
    The first such action adds one piece (a loose count one piece off agrees: ``LOOSE_COUNT_CONFIDENCE``); with
    ``least`` 2, a Harvest of two corn."""
    states, moves = record(2, 1)
    k = key = None
    for i, m in enumerate(moves):
        if isinstance(m, (M.Harvest, M.Fish, M.Hunt)) and isinstance(moves[i - 1], M.Activate):
            b, after = expected_readings(states[i]), expected_readings(states[i + 1])
            changed = [x for x in after if after[x] != b[x]]
            if len(changed) == 1 and "/resource." in changed[0] \
                    and sum(n for _, n in after[changed[0]]) - sum(n for _, n in b[changed[0]]) >= least:
                k, key = i, changed[0]
                break
    assert k is not None
    end = next(j for j in range(k, len(moves)) if isinstance(moves[j], M.EndTurn))
    assert not isinstance(moves[end + 1], M.EndTurn)  # the next turn's first move shows on the table
    pile = expected_readings(states[k])[key]  # the pile as before the action
    tracker = Tracker(states[k - 1].copy())
    obs = observation(states[k], 0)  # the Activate
    obs.readings[key] = Reading(pile, before)
    tracker.observe(obs)
    assert tracker.moves[0] == moves[k - 1]
    for n, i in enumerate(range(k, end + 2)):
        obs = observation(states[i + 1], n + 1)
        if key in obs.readings:
            obs.readings[key] = Reading(pile, confidence)
        tracker.observe(obs)
    assert (moves[k] in tracker.moves) == logged, tracker.moves
    assert isinstance(tracker.moves[-1], type(moves[end + 1]))  # the turn after it is in either way


def test_a_smallpox_victim_taken_from_a_home_read_one_short_is_the_guard():
    """Game 1 (3 players), move 53: a Trade whose smallpox victim is a guard of the player's Home (W-ACT-10), which
    goes to the Long House. The Home was read one guard short before (a known misreading), so after the Trade it
    reads right, the same count: no new difference there, yet the guard is the victim the Long House shows (e2e
    4p s15: 7 guards read 6, then 6 read 6; the Trade was logged without its victim and the Long House's warrior
    left unexplained, and a Ritual of that warrior two turns later was logged without it)."""
    states, moves = record(3, 1)
    trade = moves[53]
    assert isinstance(trade, M.Trade) and trade.victim is not None and trade.victim.pa is None
    home = f"{map_board(3)}/{trade.victim.territory}"
    after = expected_readings(states[54])[home]
    assert after != expected_readings(states[53])[home]  # one guard fewer
    tracker = Tracker(states[53].copy())
    obs = observation(states[53], 0)
    obs.readings[home] = Reading(after, 0.5)  # one short
    assert tracker.observe(obs) == [] and home in tracker.misreadings
    obs = observation(states[54], 1)
    obs.readings[home] = Reading(after, 0.4)
    events = tracker.observe(obs)
    assert not any(isinstance(e, ALERTS) for e in events)
    assert tracker.moves == [trade], tracker.moves


def _turn_start_owning(tile: str):
    """``_turn_start_with_outpost(2, 3)`` with the current player owning the progress tile ``tile``, taken from its row."""
    st = _turn_start_with_outpost(2, 3)
    for row in st.progress_rows.values():
        if tile in row:
            row.remove(tile)
    st.players[st.current].progress.append(tile)
    return st


def test_a_count_read_loosely_one_piece_off_moves_nothing():
    """A resource space counted with a margin under 0.1 (``LOOSE_COUNT_CONFIDENCE``) is right less than half the
    time, and within one piece nearly always: one piece off, it agrees. It made a progress tile take a fish that
    never came (W-PRG-L1-9, e2e 2p s13: a pile of 9 read 10 at 0.06). Two pieces off it still differs: read at 0.09,
    more than the use's preference step weighs (``PREF_COST``), the tile gives the fish. (The tile turned face down
    would show it too: here the progress spaces are not read.)"""
    st = _turn_start_owning("P1-09")
    p = st.current
    key = f"{village_board(p)}/resource.fish"
    n = st.players[p].resources["fish"]
    for extra, moved in ((1, False), (2, True)):
        tracker = Tracker(st.copy())
        obs = observation(st)
        obs.readings[key] = Reading((("fish:none", n + extra),), 0.09)
        del obs.readings[f"{village_board(p)}/progress"]
        tracker.observe(obs)
        assert bool(tracker.moves) == moved, tracker.moves


def test_the_restore_heap_read_wrong_is_no_alert_by_itself():
    """The mask board's restore heap holds every mask disk that is not on a ceremony space, on top of each other;
    the ceremony spaces show the same thing. Read surely wrong (empty, or a blue disk under others as red: e2e 2p
    s4 and 3p s8, 4 false alerts) it weighs as unsure (``HEAP_CONFIDENCE``): no alert."""
    states, _ = record(3, 2)
    heap = "wendake-mask/restore"
    st = next(s for s in states[len(states) // 3:] if len(expected_readings(s)[heap]) >= 2 and s.phase == "actions")
    (a, _), (b, _) = expected_readings(st)[heap][:2]
    for wrong in ((), ((a, 2),)):
        tracker = Tracker(st.copy())
        obs = observation(st)
        obs.readings[heap] = Reading(wrong, 0.9)
        assert not any(isinstance(e, ALERTS) for e in tracker.observe(obs)), wrong


def test_a_look_with_only_tile_faces_read_weakly_wrong_is_looked_at_again_first():
    """Five tiles of one board read weakly as other tiles at once (a poor look: e2e 4p s6, 4p s3) explain nothing,
    yet nothing read surely says the table is wrong: the tracker waits for the next look, and asks then if the
    table still reads so (docs/tracker.md, Doubt), naming the board; never an alert."""
    st = conceal(new_game(NAMES[:2], seed=3))
    vb = village_board(0)
    faces = [f"{t}:action" for t in load_edition().advanced[2][:5]]  # level-2 tiles: in no grid at the start
    readings = {k: Reading(v, 0.95) for k, v in expected_readings(st).items()}
    for i, face in enumerate(faces):  # the true face not even among the runner-ups: 0.3 each (TILE_EVIDENCE_CAP)
        readings[f"{vb}/slot.{i}#tile"] = Reading(face, 0.05, ((faces[i - 1], 0.02),))
    tr = Tracker(st)
    assert tr.observe(Observation(1, 1.0, readings)) == []
    events = tr.observe(Observation(2, 2.0, readings))
    assert not any(isinstance(e, (TableOutOfSync, IllegalMove)) for e in events), events
    asks = [e for e in events if e.kind == "NeedsConfirmation"]
    assert len(asks) == 1 and asks[0].candidates[0]["boards"] == [vb], events


@pytest.mark.parametrize("value, alert", [(0, False), (5, True)])
def test_a_disk_still_on_its_start_space_and_seen_nowhere_is_no_alert(value, alert):
    """W-SCR-6: a score disk that reads on no space of its row raises a ScoreMismatch, unless it may lie under
    another disk, or it is still on the start space: it has not moved since the set-up, and a disk missed there
    is no evidence (e2e 3p s2: blue disks on space 0 of one score board missed look after look). A disk the engine
    has moved on, seen nowhere, is still called out."""
    from assistant.wendake.observer import occupied_score_colours
    st = conceal(new_game(NAMES[:3], seed=2))
    for q, v in ((0, value), (1, 7), (2, 9)):
        st.players[q].tracks.update(dict.fromkeys(st.players[q].tracks, v))
    readings = observation(st).readings
    mine = [k for k, cols in occupied_score_colours(st).items() if cols == {st.players[0].colour}]
    assert mine
    for k in mine:
        readings[k] = Reading((), 0.9)
    events = Tracker(st).observe(Observation(1, 1.0, readings))
    assert any(isinstance(e, ScoreMismatch) and e.player == 0 for e in events) == alert, events


def _trade_candidates(st, obs) -> list:
    """The Trades Wendake's explainer proposes from ``st`` for the look ``obs``, in the order the search tries them."""
    tracker = Tracker(st.copy())
    items = Look((key, r.value, r.confidence) for key, r in obs.readings.items())
    node = tracker.node(st, (), items, 0)
    return [m for m, _, _ in tracker.x.candidates(node, items) if isinstance(m, M.Trade)]


def test_a_trade_whose_points_the_disk_shows_is_tried_first():
    """A Trade's resources come from piles the counter reads loosely, so a Trade with fewer points can fit them
    better than the true one, whose points the economic disk shows (read surely). The Trades one piece off the
    resources read that put the disk where it is read are tried first (e2e 3p s17: 10 alerts -> 1)."""
    states, moves = record(3, 2)
    k = next(i for i, m in enumerate(moves) if isinstance(m, M.Trade) and len(m.points) >= 2 and not m.purchases
             and not m.exchanges)
    st, truth = states[k], states[k + 1]
    p = st.current
    spent = moves[k].points[0]
    obs = observation(truth)
    key = f"{village_board(p)}/resource.{spent}"
    obs.readings[key] = Reading((((f"{spent}:none", st.players[p].resources[spent]),)), 0.3)  # read as not spent
    trades = _trade_candidates(st, obs)
    assert trades and sorted(trades[0].points) == sorted(moves[k].points), trades[:3]


def _trades_with_a_pile_misread(off: int, conf: float):
    """(where, the state before, the Trade, the look after with a pile it got read ``off`` pieces over at
    ``conf``) for each Trade with an exchange and economic points in three recorded games."""
    for players, seed in ((2, 3), (3, 2), (4, 5)):
        states, moves = record(players, seed)
        for k, m in enumerate(moves):
            if not (isinstance(m, M.Trade) and m.exchanges and (m.purchases or m.points)):
                continue
            st, truth = states[k], states[k + 1]
            p = st.current
            if truth.players[p].tracks["economic"] == st.players[p].tracks["economic"]:
                continue
            r = m.exchanges[0][1]  # a resource the Trade got
            obs = observation(truth)
            key = f"{village_board(p)}/resource.{r}"
            obs.readings[key] = Reading(((f"{r}:none", truth.players[p].resources[r] + off),), conf)
            yield (players, seed, k), st, m, obs


def test_a_trade_is_found_under_a_pile_counted_loosely_two_pieces_off():
    """A pile the counter reads loosely (below ``LOOSE_COUNT_CONFIDENCE``) may be two pieces off: e2e 2p s13's
    Trade (an exchange, an L2 tile, 2 points: the economic disk read surely 4 spaces on) left 7 fish read 9 at 0.06,
    and no Trade tried fitted both the piles and the disk: one with 2 points fewer was taken, and a false
    ScoreMismatch raised. The Trades that fit the pile one or two pieces off with the points the disk shows are
    tried too (W-ACT-10)."""
    found = 0
    for where, st, m, obs in _trades_with_a_pile_misread(2, 0.05):
        def same(t, m=m):
            return (sorted(t.exchanges) == sorted(m.exchanges) and sorted(t.points) == sorted(m.points)
                    and [sorted(b.pay) for b in t.purchases] == [sorted(b.pay) for b in m.purchases])
        assert any(same(t) for t in _trade_candidates(st, obs)), (where, M.move_to_json(m))
        found += 1
    assert found >= 3


def test_a_trade_is_found_under_a_pile_whose_count_says_nothing():
    """A pile read below ``BLIND_COUNT_CONFIDENCE`` says next to nothing of its count: e2e 3p s5's fish pile of 17
    read 9 at 0.007 (4p s1006: 13 read 9 at 0.035), and the Trades tried fitted it at most two pieces off: the one
    taken put the economic disk 2 spaces from where it was read surely, a false ScoreMismatch. The Trades the disk
    hints at are tried with that pile changed by any amount a Trade can (W-ACT-10): the Trade logged shows as the
    true one, and no alert."""
    found = 0
    for where, st, m, obs in _trades_with_a_pile_misread(8, 0.035):
        events = Tracker(st.copy()).observe(obs)
        logged = [M.move_from_json(mv) for e in events if isinstance(e, MoveRecognized) for mv in e.moves]
        assert not any(isinstance(e, ALERTS) for e in events), (where, events)
        assert move_log_equal(logged, [m]), (where, logged, m)
        found += 1
    assert found >= 3


def test_a_taken_tile_read_as_its_level_twin_names_the_tile_it_can_be():
    """Village tiles whose ids differ by the level alone (``A1-11`` / ``A2-11``) differ on the table by one glyph;
    e2e 3p s20's Restore took A1-11 from the display, read A2-11 at 0.11 for one look: no Restore laid that out,
    and a TableOutOfSync was raised. A face named that no choice can lay out, whose one level twin a choice can,
    names the twin (W-RES-4)."""
    tiles = set(load_edition().tiles)
    checked = 0
    for players, seed in ((2, 3), (3, 2), (3, 20), (4, 5)):
        states, moves = record(players, seed)
        for k, m in enumerate(moves):
            if not (isinstance(m, M.Restore) and m.take and m.take.startswith("A")):
                continue
            st, truth = states[k], states[k + 1]
            lvl, num = m.take.split("-")
            twin = ("A2" if lvl == "A1" else "A1") + "-" + num
            pool = set(st.players[st.current].below) | {t for t in st.display if t} | set(st.players[st.current].set_aside)
            if twin in pool or twin not in tiles:
                continue
            obs = observation(truth)
            key = next(key for key, r in obs.readings.items() if key.endswith("#tile") and key.startswith(village_board(st.current) + "/slot.")
                       and isinstance(r.value, str) and r.value.startswith(m.take + ":"))
            obs.readings[key] = Reading(twin + ":" + obs.readings[key].value.split(":")[1], 0.11)
            events = Tracker(st.copy()).observe(obs)
            assert not any(isinstance(e, ALERTS) for e in events), (players, seed, k)
            got = [mv for e in events if isinstance(e, MoveRecognized) for mv in e.moves if mv["type"] == "restore"]
            assert got and got[0]["take"] == m.take and list(got[0]["order"]) == list(m.order), (got, M.move_to_json(m))
            checked += 1
    assert checked >= 2


def test_a_tile_face_misread_under_its_action_marker_is_no_alert_as_the_tile_did_not_change():
    """e2e 4p s3: the marker put on a Fishing tile hid part of its face, read Hunting at 0.87 look after look: a
    TableOutOfSync; with the fine-tuned detector, Tan Pelts at 0.96-0.99. A tile does not change under a marker:
    a face read under it weighs as unsure however sure the read. The same sure misread on a slot with no marker is
    still called out."""
    from assistant.wendake.evidence import MARKED_TILE_SURE

    states, moves = record(2, 3)
    k = next(i for i, m in enumerate(moves) if isinstance(m, M.Activate) and i > 10)
    st, truth = states[k], states[k + 1]
    row, col = moves[k].slot
    marked = f"{village_board(st.current)}/slot.{row * 3 + col}#tile"
    bare = next(f"{village_board(st.current)}/slot.{i}#tile" for i in range(9)
                if i not in truth.players[st.current].markers and truth.players[st.current].grid[i] is not None)
    sure = (1 + MARKED_TILE_SURE) / 2
    for key, conf, alert in ((marked, 0.87, False), (marked, sure, False), (marked, 1.0, False), (bare, sure, True)):
        obs = observation(truth)
        face, side = obs.readings[key].value.split(":")
        other = next(t for t in load_edition().tiles if t != face and t.startswith("B-"))
        obs.readings[key] = Reading(f"{other}:{side}", conf)
        tracker = Tracker(st.copy())
        events = tracker.observe(obs) + tracker.observe(obs)  # a look of weak tile reads alone is looked at twice
        assert any(isinstance(e, ALERTS) for e in events) == alert, (key, conf, events)
        if not alert:
            assert [e.moves[0]["type"] for e in events if isinstance(e, MoveRecognized)][:1] == ["activate"]


def test_restores_the_camera_cannot_see_are_chained_to_the_move_after_them():
    """A camera too far to read tile faces (no ``#tile`` readings) sees no Restore (W-RES) at all: e2e 4p s1006,
    re-rendered with its boards apart, showed its four Restores only with the Transfer after them, and the search
    gave up after three depths that explained nothing better (``SEARCH_PATIENCE``): out of sync for the rest of the
    game. A depth of unseen Restores is owed, not stale."""
    states, moves = record(4, 5)
    i = next(k for k, m in enumerate(moves) if isinstance(m, M.Restore))
    j = i
    while isinstance(moves[j], M.Restore):
        j += 1
    assert j - i == 4

    def seen(state):
        return {k: v for k, v in expected_readings(state).items() if "#tile" not in k}
    while seen(states[j + 1]) == seen(states[i]):  # the first move after them that the camera sees
        j += 1
    tracker = Tracker(states[i].copy())
    obs = observation(states[j + 1])
    for k in [k for k in obs.readings if k.endswith("#tile")]:
        del obs.readings[k]
    events = tracker.observe(obs) + tracker.observe(obs)  # the tiles unread may tell the lines apart: one look waits
    assert not any(isinstance(e, ALERTS) for e in events), events
    got = [mv["type"] for e in events if isinstance(e, MoveRecognized) for mv in e.moves]
    assert got.count("restore") == 4 and got[-1] == M.move_to_json(moves[j])["type"], got
    assert seen(tracker.state) == seen(states[j + 1])


def test_a_purchase_is_told_from_points_by_the_tile_on_the_village():
    """Paying for a progress tile and spending the same resources on points leave the same piles; where the score
    disks do not tell them apart either, only the bought tile does: it lies on the village's progress spaces
    (``view.progress_readings``; e2e 4p s9, a Trade's two points logged as buying P1-09). Each is logged as what
    the table shows."""
    checked = 0
    for players, seed in ((2, 3), (3, 2), (4, 5)):
        states, moves = record(players, seed)
        for k, m in enumerate(moves):
            if not (isinstance(m, M.Trade) and len(m.purchases) == 1 and not m.points and not m.purchases[0].discounts):
                continue
            st = states[k]
            alt = replace(m, purchases=(), points=m.purchases[0].pay)
            if rules.check(st, alt):
                continue
            for move in (m, alt):
                truth = st.copy()
                rules.apply(truth, move)
                obs = observation(truth, frame=1)
                for key in [key for key in obs.readings if is_score_key(key)]:
                    del obs.readings[key]  # the disks do not tell them apart
                tracker = Tracker(st.copy())
                tracker.observe(obs)
                tracker.observe(replace(obs, frame=2))  # a place not read where the lines differ: one look's wait
                trades = [x for x in tracker.moves if isinstance(x, M.Trade)]
                assert trades and bool(trades[0].purchases) == bool(move.purchases), (players, seed, k, move)
            checked += 1
            if checked >= 4:
                return
    assert checked >= 2


def test_free_order_used_with_nothing_to_reorder_shows_as_its_tile_turned_face_down():
    """Free order (W-PRG-L1-3) changes nothing on the table but its tile, turned face down when used (W-PRG-3). A
    player may use it at any time, even with no actions to reorder (e2e 2p s19: a TableOutOfSync when it was tried
    only with two or more actions pending): the tile read face down is explained by the use."""
    st = _turn_start_owning("P1-03")
    truth = st.copy()
    rules.apply(truth, M.UseProgress("P1-03"))
    tracker = Tracker(st.copy())
    events = tracker.observe(observation(truth, frame=1))
    assert not any(isinstance(e, ALERTS) for e in events), events
    assert tracker.moves == [M.UseProgress("P1-03")]


def _mask_ceremony_with(rule: str):
    """(state before, the true ceremony) for a Mask Ceremony of the current player using the tile of ``rule``:
    the turn's open action is the ceremony (W-ACT-9), every ceremony space is empty, and the hand and played cards
    are set for a play the tile makes possible."""
    ed = load_edition()
    tile = next(t.id for t in ed.progress.values() if t.rule == rule)
    st = _turn_start_owning(tile)
    p = st.current
    for pl in st.players:
        pl.mask_space = None
    bears = [c.id for c in ed.mask_cards.values() if c.mask == "bear"][:3]
    wolf = next(c.id for c in ed.mask_cards.values() if c.mask == "wolf")
    for c in bears + [wolf]:
        for pile in [st.mask_deck, st.mask_discard] + [pl.hand for pl in st.players] + [pl.played for pl in st.players]:
            if c in pile:
                pile.remove(c)
    player = st.players[p]
    player.hand, player.played = [], []
    if rule == "W-PRG-L1-5":  # two bears drawn, one card of the hand discarded: S1 (2 identical)
        player.hand = [wolf]
        st.mask_deck += [bears[1], bears[0]]
        move = M.MaskCeremony("deck", use=(tile,), source2="deck", discard=wolf, space="S1", cards=tuple(bears[:2]))
    elif rule == "W-PRG-L2-5":  # two bears played last year come back: S3 (3 identical) with a third one drawn
        player.played = bears[:2]
        st.mask_deck.append(bears[2])
        move = M.MaskCeremony("deck", use=(tile,), space="S3", cards=tuple(bears))
    elif rule == "W-PRG-L2-6":  # a wolf counted as a bear: S1
        player.hand = [bears[0]]
        st.mask_deck.append(wolf)
        move = M.MaskCeremony("deck", use=(tile,), space="S1", cards=(bears[0], wolf), wild=wolf, wild_as="bear")
    else:  # W-PRG-L3-6, an imagined bear: S3 with two bears
        player.hand = [bears[0]]
        st.mask_deck.append(bears[1])
        move = M.MaskCeremony("deck", use=(tile,), space="S3", cards=tuple(bears[:2]), phantom="bear")
    st.turn.placed = "tile"
    st.turn.pending = [PendingAction("mask", 0, "tile")]
    return st, move


@pytest.mark.parametrize("rule", ["W-PRG-L1-5", "W-PRG-L2-5", "W-PRG-L2-6", "W-PRG-L3-6"])
def test_a_mask_tile_that_changes_only_hidden_cards_shows_as_its_tile_turned_face_down(rule):
    """Draw two, Recall, Wild and Phantom card (W-PRG-L1-5, L2-5, L2-6, L3-6) change hands and piles, which the
    camera never reads; on the table their use shows only as the tile turned face down (W-PRG-3), beside the
    ceremony's space and points. The tracker had no candidate for them: a TableOutOfSync (slow
    ``test_twenty_full_games``: 6 of 20 games, e2e 2p s103 with Occupied space and a twin's tile as well). The
    ceremony is now found with the tile used, its cards named from the hidden ones."""
    st, move = _mask_ceremony_with(rule)
    truth = st.copy()
    rules.apply(truth, move)
    tracker = Tracker(conceal(st))
    events = tracker.observe(observation(truth, frame=1))
    assert not any(isinstance(e, ALERTS) for e in events), events
    found = tracker.moves[-1]
    assert isinstance(found, M.MaskCeremony) and found.use == move.use and found.space == move.space
    assert expected_readings(tracker.state) == expected_readings(truth)


def test_draw_two_and_an_occupied_space_with_a_look_alike_tile_are_one_ceremony():
    """Game 103 (2 players), move 145: Draw two (W-PRG-L1-5) and Occupied space (L1-6) in one ceremony, the
    Occupied-space tile bought as far as the camera could tell as its look-alike: two tiles turn face down, the
    twin is named by an edit and the play's hands by another (``apply_edit`` op ``several``)."""
    f = follow(2, 103, until_year=6)
    assert not f["diverged"] and f["alerts"] == 0 and f["finished"]


def test_extra_exchange_used_with_no_exchange_shows_as_its_tile_turned_face_down():
    """Extra exchange (W-PRG-L1-8) flipped in a Trade that exchanges nothing changes nothing but its tile (slow test
    games 4p s108 and 3p s110: a TableOutOfSync); the Trade using it is found from the tile read face down."""
    tile = next(t.id for t in load_edition().progress.values() if t.rule == "W-PRG-L1-8")
    st = _turn_start_owning(tile)
    st.turn.placed = "tile"
    st.turn.pending = [PendingAction("trade", 0, "tile")]
    truth = st.copy()
    rules.apply(truth, M.Trade(use=(tile,)))
    tracker = Tracker(conceal(st))
    events = tracker.observe(observation(truth, frame=1))
    assert not any(isinstance(e, ALERTS) for e in events), events
    assert tracker.moves == [M.Trade(use=(tile,))]
