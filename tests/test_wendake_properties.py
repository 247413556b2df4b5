"""Property tests: random legal games keep every invariant; random illegal moves are rejected with a rule ID."""

import random
import re
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wendake_helpers import open_action

from assistant.wendake import ghost, rules
from assistant.wendake import moves as M
from assistant.wendake.edition import load_edition
from assistant.wendake.generate import legal_moves, random_mask_ceremony, random_move
from assistant.wendake.scoring import solo_score
from assistant.wendake.setup import new_game
from assistant.wendake.state import NATIVES, RESOURCES, TRACKS, Options

ED = load_edition()
RULE_ID = re.compile(r"^W-[A-Z]+-[0-9A-Za-z.]+$")
NAMES = ["Ringo", "Paul", "John", "George"]
ALL_LINES = [{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}]
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def position(seed: int, n: int, depth: int, phase: str = "over"):
    """A seeded random game played for ``depth`` moves, stopping early once the game reaches ``phase``."""
    rng = random.Random(seed)
    s = new_game(NAMES[:n], seed=seed, deal_tribes=seed % 3 != 0)
    for _ in range(depth):
        if s.phase in (phase, "over"):
            break
        rules.apply(s, random_move(s, rng))
    return s, rng


def assert_invariants(s):
    for p, pl in enumerate(s.players):
        on_map = s.natives_on_map(p)
        for kind in NATIVES:
            owned = 7 + (kind == "warrior" and pl.mohawk is not None)  # W-TRB-3: the black Mohawk warrior
            assert on_map[kind] + pl.long_house[kind] == owned, f"{pl.name}: {kind}s not {owned}"
        if pl.mohawk is not None:  # the black warrior is where the state says
            m = pl.mohawk
            if m["at"] == "guard":
                assert s.territories[m["territory"]].guards[p] >= 1
            elif m["at"] == "outpost":
                pa = s.territories[m["territory"]].pas[m["pa"]]
                assert (pa.owner, pa.native) == (p, "warrior")
            else:
                assert pl.long_house["warrior"] >= 1
        assert len(pl.progress_used) <= len(pl.progress) and all(pl.progress_used.count(t) <= pl.progress.count(t) for t in pl.progress_used)
        if s.is_ghost(p):
            assert sum(pl.long_house.values()) == 0  # W-SOLO-7: the Ghost's injured natives go Home
            continue
        assert s.canoes_in_play(p) + pl.canoe_reserve == 5
        assert all(0 <= pl.tracks[t] <= 25 for t in TRACKS)
        assert all(pl.resources[r] >= 0 for r in RESOURCES) and pl.beavers >= 0
        # this year's markers lie in one line that avoids the Fire-marked tile (W-LINE-2, W-ACT-11)
        assert any(set(pl.markers) <= line and pl.fire not in line for line in ALL_LINES)
        assert len(pl.markers) <= 3 and pl.sages == 4 - len(pl.markers) - pl.reserved
        assert len({t["type"] for t in pl.turtles}) == len(pl.turtles)
    for t in s.territories.values():
        for pa in t.pas:
            assert pa.count >= 0 and (t.home_of is not None or pa.count <= 1)
    cards = [c for c in s.mask_deck + s.mask_discard if c] + [c for pl in s.players for c in pl.hand + pl.played if c]
    if s.solo is not None:  # the mask cards lying under the Ghost cards (W-SOLO-8)
        cards += [c for u in s.solo.under for c in u]
    assert len(cards) == len(set(cards))
    unknown = sum(c is None for c in s.mask_deck + s.mask_discard) + sum(c is None for pl in s.players for c in pl.hand + pl.played)
    assert len(cards) + unknown == len(ED.mask_cards)


@SETTINGS
@given(seed=st.integers(0, 10**9), n=st.integers(2, 4))
def test_random_legal_games_keep_invariants(seed, n):
    """W-COMP-3 (7 of each native, 5 canoes), W-SCR-5 (0..25), W-LINE-2 (markers in a line), over 7 years."""
    rng = random.Random(seed)
    s = new_game(NAMES[:n], seed=seed, deal_tribes=True)
    for pl in s.players:  # rich players buy progress tiles (and so use their abilities) often
        pl.resources = {r: 4 for r in RESOURCES}
    years_ended = 0
    while s.phase != "over":
        move = random_move(s, rng)
        assert rules.check(s, move) == [], move
        before_year = s.year
        placed = [(set(p.markers), p.fire, p.reserved) for p in s.players] if isinstance(move, M.EndTurn) else None
        rules.apply(s, move)
        years_ended += s.year != before_year
        if placed and s.phase != "actions":  # the year's placements just ended: 3 markers in a line + 1 reserved
            for markers, fire, reserved in placed:
                assert markers in ALL_LINES and fire not in markers and reserved
        assert_invariants(s)
    assert s.year == 7 and years_ended == 6


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9))
def test_random_solo_games_keep_invariants(seed):
    """W-SOLO: whole solo games (random player against the Ghost) are legal move by move and keep every invariant."""
    rng = random.Random(seed)
    s = ghost.new_solo_game(seed=seed, deal_tribe=seed % 2 == 0)
    while s.phase != "over":
        move = random_move(s, rng)
        assert rules.check(s, move) == [], move
        rules.apply(s, move)
        assert_invariants(s)
        assert s.players[0].sages + len(s.players[0].markers) == 3  # W-SOLO-7: 3 markers, no reservation
    res = solo_score(s)
    assert res["final"] and len(res["objectives"]) == 3


@SETTINGS
@given(seed=st.integers(0, 10**9), n=st.integers(2, 4), depth=st.integers(0, 300))
def test_generated_legal_moves_are_legal(seed, n, depth):
    """legal_moves lists only moves that check() accepts, and there is always at least one."""
    s, rng = position(seed, n, depth)
    options = legal_moves(s, rng)
    assert options or s.phase == "over"
    for move in options:
        assert rules.check(s, move) == [], move


def _fuzz_move(rng: random.Random, s):
    """A random move of any type with random, often nonsensical, parameters."""
    terr = list(s.territories) + ["NOWHERE"]
    slot = lambda: (rng.randint(-1, 3), rng.randint(0, 2))  # noqa: E731
    res = list(RESOURCES) + ["beaver"]
    kind = rng.randrange(14)
    if kind == 0:
        return M.Activate(slot())
    if kind == 1:
        return M.ReserveTurnOrder()
    if kind == 2:
        return M.EndTurn()
    if kind == 3:
        return M.Canoe(rng.choice(list(s.lakes) + ["L9"]))
    if kind == 4:
        steps = tuple(M.Step(rng.choice(terr), rng.choice(terr), rng.choice(["guard", "outpost", "attack_guard", "attack_pa", "fly"]),
                             pa=rng.randint(-1, 3), target=rng.randint(-1, 4)) for _ in range(rng.randint(1, 4)))
        return M.Move(steps)
    if kind == 5:
        return rng.choice([M.Harvest(), M.Hunt(), M.TanPelts(), M.Fish()])
    if kind == 6:
        return M.Military(tuple(rng.sample(list(ED.turtle_types) + ["women-9"], rng.randint(0, 3))))
    if kind == 7:
        hand = s.players[s.current].hand if s.current is not None else []
        cards = tuple(rng.sample(list(ED.mask_cards), 2) + hand[:1])
        return M.MaskCeremony(rng.choice(["deck", "discard", "sky"]), rng.choice([None, *list(ED.mask_cards)[:3]]),
                              rng.choice([None, *ED.mask_spaces, "S99"]), cards[: rng.randint(0, 3)])
    if kind == 8:
        rows = [t for row in s.progress_rows.values() for t in row] + ["P9-99"]
        return M.Trade(tuple((rng.choice(res), rng.choice(res)) for _ in range(rng.randint(0, 4))),
                       rng.choice([None, *list(ED.mask_cards)[:2]]), rng.choice([None, M.Victim(rng.choice(terr), rng.choice([None, 0, 1]))]),
                       tuple(M.Purchase(rng.choice(rows), tuple(rng.choice(res) for _ in range(rng.randint(0, 9))), rng.choice([None, *TRACKS]))
                             for _ in range(rng.randint(0, 2))),
                       tuple(rng.sample(res, rng.randint(0, 4))))
    if kind == 9:
        return M.SacredFire(slot())
    if kind == 10:
        return M.Ritual(tuple(rng.choice(NATIVES + ("chief",)) for _ in range(rng.randint(0, 3))))
    if kind == 11:
        return M.Transfer(rng.choice(terr), rng.randint(-1, 3), rng.random() < 0.5)
    if kind == 12:
        return M.Swap(slot(), slot())
    tiles = list(ED.tiles)
    return M.Restore(rng.choice([None, *tiles[:12]]), rng.choice([None, *tiles[-20:]]), tuple(rng.sample(tiles, rng.randint(0, 3))))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), n=st.integers(2, 4), depth=st.integers(0, 200))
def test_random_moves_are_rejected_with_a_rule_id_or_keep_invariants(seed, n, depth):
    """Any move is either refused by its schema (a negative index: InvalidMoveError naming the field), or
    rejected with every violation naming its rule ID and explaining itself, or it is legal and applying it keeps
    every invariant."""
    s, rng = position(seed, n, depth)
    for _ in range(20):
        move = _fuzz_move(rng, s)
        here = s
        kind = M.KIND_OF_MOVE.get(type(move))
        if kind and s.phase == "actions" and rng.random() < 0.7:
            here = s.copy()  # let the deeper checks of this action run: open it as if its tile were activated
            open_action(here, here.current, kind, n=rng.randint(1, 3))
        try:
            violations = rules.check(here, move)
        except M.InvalidMoveError as exc:
            assert "holds -1; it must be an integer 0 or more" in str(exc), exc
            continue
        if violations:
            for v in violations:
                assert RULE_ID.match(v.rule), v
                assert len(v.message) > 10
        else:
            trial = here.copy()
            rules.apply(trial, move)
            assert_invariants(trial)


def _line_oracle(markers, fire, slot):
    """W-LINE-2 straight from its definition: all marked tiles plus the new one inside a line without the Fire tile."""
    return any(set(markers) | {slot} <= line and fire not in line for line in ALL_LINES) and slot not in markers and slot != fire


@SETTINGS
@given(seed=st.integers(0, 10**9), depth=st.integers(0, 200))
def test_activation_matches_the_line_oracle(seed, depth):
    """W-LINE-2, W-ACT-11: check() accepts exactly the activations the definition allows."""
    s, _ = position(seed, 3, depth)
    if s.phase != "actions" or s.turn.placed is not None:
        return
    pl = s.players[s.current]
    for i in range(9):
        legal = not rules.check(s, M.Activate(divmod(i, 3)))
        expected = _line_oracle(pl.markers, pl.fire, i) and len(pl.markers) < 3
        assert legal == expected, (pl.markers, pl.fire, i)


@SETTINGS
@given(seed=st.integers(0, 10**9), depth=st.integers(0, 200), extra=st.integers(1, 3))
def test_exchanges_beyond_canoes_always_rejected(seed, depth, extra):
    """W-ACT-10a: one exchange per canoe in play, never more."""
    s, _ = position(seed, 2, depth, phase="restore")
    if s.phase != "actions":
        return
    p = s.current
    open_action(s, p, "trade")
    s.players[p].resources = dict.fromkeys(RESOURCES, 10)
    k = s.canoes_in_play(p) + extra
    assert "W-ACT-10a" in [v.rule for v in rules.check(s, M.Trade((("leather", "fish"),) * k))]


def test_random_player_uses_every_triggered_ability_and_stays_legal():
    """W-PRG-L1-4 (Ritual-bonus step), L1-5 (Draw two), L1-6 (Occupied space), L2-2 (Transfer as guard), L2-5
    (Recall), L2-6 (Wild), L3-6 (Phantom), W-TRB-4 (Ojibwa): the random player and legal_moves produce them,
    and every one is legal. (Recall of one card under option W-PRG-L2-5 needs cards played earlier in the
    year, which is rare: see the next test.)"""
    used = Counter()
    for seed in range(60):
        rng = random.Random(seed)
        options = Options(recall_one_card=seed % 2 == 1)
        s = new_game(NAMES[:3], seed=seed, deal_tribes=True, options=options)
        for pl in s.players:
            pl.resources = {r: 4 for r in RESOURCES}
        if seed % 3 == 0:  # deal the triggered-ability tiles round the table (else they come only by purchase)
            for i, rule in enumerate(("W-PRG-L1-4", "W-PRG-L1-5", "W-PRG-L1-6", "W-PRG-L2-2", "W-PRG-L2-5", "W-PRG-L2-6", "W-PRG-L3-6")):
                tile = next(t.id for t in ED.progress.values() if t.rule == rule)
                for row in s.progress_rows.values():
                    if tile in row:
                        row.remove(tile)
                s.players[i % s.n].progress.append(tile)
        k = 0
        while s.phase != "over":
            move = random_move(s, rng)
            assert rules.check(s, move) == [], move
            if isinstance(move, M.MaskCeremony):
                used.update(ED.progress[t].rule for t in move.use)
                used.update(f for f in ("recall", "wild", "phantom", "source2") if getattr(move, f))
            used["ritual_steps"] += isinstance(move, M.Ritual) and bool(move.steps)
            used["as_guard"] += isinstance(move, M.Transfer) and move.as_guard
            used["ojibwa"] += isinstance(move, M.EndTurn) and move.again
            if k % 40 == 0:
                for option in legal_moves(s, rng, samples=3):
                    assert rules.check(s, option) == [], option
                    used["listed_" + type(option).__name__] += bool(getattr(option, "use", ()) or getattr(option, "as_guard", False))
            rules.apply(s, move)
            k += 1
    for what in ("W-PRG-L1-5", "W-PRG-L1-6", "W-PRG-L2-5", "W-PRG-L2-6", "W-PRG-L3-6", "wild", "phantom",
                 "source2", "ritual_steps", "as_guard", "ojibwa", "listed_MaskCeremony", "listed_Ritual", "listed_Transfer"):
        assert used[what] > 0, (what, used)


def test_legal_moves_for_the_tracker_leave_the_triggered_variants_out():
    """samples=0 (the tracker's call) lists no progress-tile variants; triggered=True adds them."""
    s = new_game(NAMES[:2], seed=1)
    open_action(s, 0, "ritual")
    tile = next(t.id for t in ED.progress.values() if t.rule == "W-PRG-L3-3")
    s.players[0].progress.append(tile)
    assert not any(m.use for m in legal_moves(s, samples=0) if isinstance(m, M.Ritual))
    assert any(m.use == (tile,) for m in legal_moves(s, samples=0, triggered=True) if isinstance(m, M.Ritual))


def test_random_mask_ceremony_recalls_one_card_and_plays_on_an_occupied_space():
    """W-PRG-L2-5 (002 option: one played card back), W-PRG-L1-6 (occupied space), with every mask tile flipped."""
    hits = Counter()
    for seed in range(40):
        s = new_game(NAMES[:2], seed=seed, options=Options(recall_one_card=True))
        open_action(s, 0, "mask")
        me = s.players[0]
        for rule in ("W-PRG-L2-5", "W-PRG-L1-6", "W-PRG-L1-5"):
            me.progress.append(next(t.id for t in ED.progress.values() if t.rule == rule))
        me.played, me.hand = me.hand[:2], me.hand[2:]
        me.mask_space = list(ED.mask_spaces)[1]  # the two cheapest spaces are taken (by me and by the other player)
        s.players[1].mask_space = list(ED.mask_spaces)[0]
        move = random_mask_ceremony(s, 0, random.Random(seed), ED, use_prob=1.0)
        assert rules.check(s, move) == [], move
        hits["recall"] += move.recall in me.played
        hits["occupied"] += move.space is not None and s.mask_space_holder(move.space) is not None
        rules.apply(s, move)
    assert hits["recall"] > 0 and hits["occupied"] > 0, hits
