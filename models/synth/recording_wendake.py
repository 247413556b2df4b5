"""The Wendake part of a recorded game (``models.synth.recording``): the seeded game, its table, its signature,
its injected illegal changes and its session.json.

Injected kinds (``INJECT_KINDS``): ``line`` (an action marker outside any legal line, W-LINE-2), ``river`` (a guard
moved to a territory it cannot reach in one step: across a river or lake, W-TERM-2 / W-MOV), ``guard`` (a PA
occupant attacked while its owner has guards there, W-FIGHT-3/4), ``score`` (a score disk one step off after a
scoring move: ScoreMismatch; shown after the move, ``AFTER_KINDS``). Each but ``score`` is checked with the rules
engine: it is injected only when ``rules.check`` rejects it, and the rules it breaks are recorded.
"""

from __future__ import annotations

import numpy as np

from assistant.errors import UserError
from assistant.wendake import moves as M
from assistant.wendake import rules
from assistant.wendake.generate import play_random_game
from assistant.wendake.moves import move_to_json
from assistant.wendake.setup import new_game
from models.synth import wendake as WK
from models.synth.placing import table_signature

INJECT_KINDS = ("line", "river", "guard", "score")
AFTER_KINDS = ("score",)  # shown after the move (the move made, one disk off), not instead of it
NAMES = ["Ringo", "Paul", "John", "George"]
PLAYERS = (2, 3, 4)


def play_game(players: int, seed: int):
    """(initial state, moves) of a seeded random game (``assistant.wendake.generate``)."""
    names = NAMES[:players]
    _, moves = play_random_game(names, seed=seed)
    return new_game(names, seed=seed), moves


def _violations(state, move) -> list:
    try:
        return list(rules.check(state, move))
    except Exception:
        return []


def _applied(state, move):
    s = state.copy()
    try:
        rules.apply(s, move, validate=False)
    except Exception:
        return None
    return s


def illegal_variant(kind: str, before, move, after, rng, progress_tiles: bool = False):
    """(illegal table state, record) for an injected change of ``kind`` at this move, or None when it does not fit."""
    p = before.turn.player if getattr(before, "turn", None) is not None and hasattr(before.turn, "player") else None
    if kind == "score":
        changed = [
            (i, t) for i, (a, b) in enumerate(zip(before.players, after.players)) for t in a.tracks if a.tracks[t] != b.tracks[t]
        ]
        if not changed:
            return None
        i, t = changed[int(rng.integers(0, len(changed)))]
        bad = after.copy()
        v = bad.players[i].tracks[t]
        bad.players[i].tracks[t] = v + 1 if v < 25 else v - 1
        return bad, {"kind": "score", "rules": ["W-SCR"], "player": i, "track": t, "shown": bad.players[i].tracks[t], "true": v}
    if kind == "line" and isinstance(move, M.Activate):
        slots = [(r, c) for r in range(3) for c in range(3) if (r, c) != tuple(move.slot)]
        rng.shuffle(slots)
        for s in slots:
            cand = M.Activate(tuple(s))
            vs = _violations(before, cand)
            if any(v.rule.startswith("W-LINE") for v in vs):
                bad = _applied(before, cand)
                if bad is not None:
                    return bad, {"kind": "line", "rules": sorted({v.rule for v in vs}), "move": _mj(cand)}
        return None
    if kind in ("river", "guard") and isinstance(move, M.Move) and move.steps:
        st = move.steps[0]
        terr = list(before.territories)
        rng.shuffle(terr)
        for to in terr:
            if kind == "river":
                cand_steps = [M.Step(st.frm, to, "guard")]
            else:
                t = before.territories[to]
                cand_steps = [
                    M.Step(st.frm, to, "attack_pa", pa=i, target=pa.owner)
                    for i, pa in enumerate(t.pas)
                    if pa.owner is not None and pa.count > 0 and pa.owner != p and t.guards[pa.owner] > 0
                ]
            for s in cand_steps:
                cand = M.Move((s,))
                vs = _violations(before, cand)
                want = ("W-MOV", "W-TERM") if kind == "river" else ("W-FIGHT",)
                if vs and all(not v.rule.startswith("W-TURN") for v in vs) and any(v.rule.startswith(want) for v in vs):
                    bad = _applied(before, cand)
                    if bad is not None and table_signature_state(bad, progress_tiles) != table_signature_state(
                        before, progress_tiles
                    ):
                        return bad, {"kind": kind, "rules": sorted({v.rule for v in vs}), "move": _mj(cand)}
        return None
    return None


def _mj(move) -> dict:
    return move_to_json(move)


def table_signature_state(state, progress_tiles: bool = False) -> tuple:
    """``placing.table_signature`` of a Wendake state's table."""
    _, boards = WK.table_for(state, np.random.default_rng(0), extras=False, progress_tiles=progress_tiles)
    return table_signature(boards)


class WendakePart:
    """Wendake behind ``models.synth.recording``'s per-game part (see ``recording.GamePart``)."""

    name = "wendake"
    players = PLAYERS
    inject_kinds = INJECT_KINDS
    after_kinds = AFTER_KINDS

    def check_options(self, opts) -> None:
        """Wendake takes no map: ``UserError`` when one is given."""
        if opts.map is not None:
            raise UserError("a Wendake game has no map option; leave map out (it is for Iwari).")

    def names(self, players: int) -> list[str]:
        return NAMES[:players]

    def play(self, opts):
        return play_game(opts.players, opts.seed)

    def apply(self, state, move) -> None:
        rules.apply(state, move)

    def table_for(self, state, rng, opts, setup: bool = False):
        if setup:
            return WK.table_for(state, rng, extras=False)
        return WK.table_for(state, rng, extras=False, progress_tiles=opts.progress_tiles)

    def settle(self, boards) -> None:
        """Nothing to settle after the ``Placer``: every Wendake piece lies on the board or on its own stack."""

    def extra_colours(self) -> dict:
        return {}

    def signature(self, state, opts) -> tuple:
        return table_signature_state(state, opts.progress_tiles)

    def illegal(self, kind: str, before, move, after, rng, opts):
        return illegal_variant(kind, before, move, after, rng, opts.progress_tiles)

    def move_to_json(self, move) -> dict:
        return move_to_json(move)

    def folder(self, opts) -> str:
        return f"game_{opts.players}p_s{opts.seed}"

    def session(self, initial, opts) -> dict:
        return {
            "format": "tablewatch.replay-session/1",
            "game": "wendake",
            "players": NAMES[: opts.players],
            "seed": opts.seed,
            "initial": initial.to_json(),
            "layouts": sorted(WK.layouts(opts.players)),
            "camera": "camera.json",
        }


PART = WendakePart()
