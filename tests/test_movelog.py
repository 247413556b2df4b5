"""Move logs compared as a camera sees them (assistant/wendake/movelog.py): turns, observable moves, no-op moves."""

from __future__ import annotations

from assistant.wendake import moves as M
from assistant.wendake import rules
from assistant.wendake.generate import legal_moves
from assistant.wendake.movelog import move_log_equal, noop_moves, observable, split_turns, turns_equal
from assistant.wendake.setup import new_game


def _tan_turn():
    """A 2-player game whose first player activates a tile with a Tan action: (state, activate move)."""
    st = new_game(["Ann", "Bob"], seed=4)
    for m in legal_moves(st, samples=0):
        if isinstance(m, M.Activate):
            s = st.copy()
            rules.apply(s, m)
            if any(a.kind == "tan" for a in s.turn.pending):
                return st, m
    raise AssertionError("no tile with a Tan action in reach")


def test_a_tan_with_no_beaver_changes_nothing_and_matches_the_tan_skipped():
    st, act = _tan_turn()
    st.players[st.current].beavers = 0
    done = [act, M.TanPelts(), M.EndTurn()]
    skipped = [act, M.EndTurn()]
    s = st.copy()
    for m in done:  # both are legal
        rules.apply(s, m)
    assert noop_moves(st, done) == {1}
    assert noop_moves(st, skipped) == set()
    assert not move_log_equal(done, skipped)  # move by move they differ ...
    assert turns_equal(done, skipped, noop_moves(st, done), noop_moves(st, skipped)) == (1, 1)  # ... as a game they do not


def test_a_tan_with_beavers_is_a_move():
    st, act = _tan_turn()
    st.players[st.current].beavers = 2
    done = [act, M.TanPelts(), M.EndTurn()]
    assert noop_moves(st, done) == set()
    assert turns_equal(done, [act, M.EndTurn()], noop_moves(st, done), set()) == (0, 1)


def test_turns_and_hidden_parameters():
    a = [M.Activate((0, 0)), M.EndTurn(), M.Activate((1, 1)), M.EndTurn(), M.Activate((2, 2))]
    assert [len(t) for t in split_turns(a)] == [2, 2, 1]
    # the cards of a mask play and the draw's source do not show; the space does
    seen = M.MaskCeremony("deck", "M01", "S1", ("M01", "M02"))
    true = M.MaskCeremony("discard", None, "S1", ("M07", "M09"))
    assert observable(seen) == observable(true) == ("mask", "S1")
    assert observable(M.MaskCeremony("deck")) is None  # a draw alone shows nothing
    assert turns_equal([seen, M.EndTurn()], [true, M.EndTurn()]) == (1, 1)
    assert turns_equal([M.EndTurn()], [true, M.EndTurn()]) == (0, 1)


def test_moves_that_change_only_lists_and_counts_are_no_no_ops():
    """Resources paid, a tile bought, natives sent home: a move that changes the game only inside the players'
    lists and dicts is still a move. (``State.to_json`` shares those with the state: a picture taken before the
    move that is not a copy changes with it, and every such move looked like a no-op.)"""
    import copy

    from assistant.wendake.generate import play_random_game

    states, moves = [], []
    play_random_game(["Ann", "Bob"], seed=1001, on_move=lambda s, m: (states.append(s.copy()), moves.append(m)))
    changed = set()
    for i in range(len(moves)):
        before, after = copy.deepcopy(states[i].to_json()), copy.deepcopy((states[i + 1] if i + 1 < len(states) else states[i]).to_json())
        before.pop("turn"), after.pop("turn")
        if before != after:
            changed.add(i)
    noops = noop_moves(states[0], moves)
    assert not noops & changed
    assert any(isinstance(moves[i], M.Trade) and moves[i].purchases for i in changed)
