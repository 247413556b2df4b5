"""The regular move's pieces (``Place``, I-TURN-1..6, the third tribe's I-2P-2) and what a piece may earn at once:
feats (I-FEAT-1..5, placed with ``PlaceFeat``) and expeditions (I-EXP). Each check appends the rules a move breaks
to ``v``; each apply assumes the move was checked.
"""

from __future__ import annotations

from assistant.iwari import journey
from assistant.iwari import moves as M
from assistant.iwari.board import (
    MAX_CARDS,
    MAX_PIECES,
    Violation,
    cards_text,
    hand_problem,
    settlement_of,
    take_cards,
    totem_cap,
)
from assistant.iwari.scoring import totem_holders
from assistant.iwari.state import State

STAGE_WORDS = {
    "swap": "you swapped a card this turn (I-TURN-8: the swap is instead of a regular move)",
    "done": "you swapped a card this turn (I-TURN-8: the swap is instead of a regular move)",
    "refill": "you started drawing cards: the refill ends the turn's placements (I-TURN-7)",
}


def check_place(state: State, move: M.Place, v: list[Violation]) -> None:
    t = state.turn
    p = state.current
    if move.third:
        tribe = state.third
        if tribe is None:
            v.append(Violation("I-2P-1", "only a 2-player game has a third tribe.", "Place the piece for your own tribe."))
            return
        if t.stage == "start":
            v.append(
                Violation(
                    "I-2P-2",
                    "the third tribe moves after your own regular move, with the cards you have left.",
                    "Make your own regular move first.",
                )
            )
            return
        if t.stage not in ("place", "third"):
            v.append(Violation("I-2P-2", f"the third tribe moves before the refill; {STAGE_WORDS[t.stage]}.", None))
            return
        if t.cards >= MAX_CARDS:
            v.append(
                Violation("I-2P-3", "you played all 3 cards: the third tribe does not move this turn.", "Take the piece back.")
            )
            return
        territory, pieces, cards, opened = t.third_territory, t.third_pieces, t.third_cards, t.third_opened
    else:
        tribe = p
        if t.stage == "third":
            v.append(
                Violation(
                    "I-2P-2",
                    "the third tribe has moved: your own pieces came before it.",
                    "Take the piece back, or place it for the third tribe.",
                )
            )
            return
        if t.stage not in ("start", "place"):
            v.append(Violation("I-TURN-1", f"no more pieces this turn: {STAGE_WORDS[t.stage]}.", "Take the piece back."))
            return
        territory, pieces, cards, opened = t.territory, t.pieces, t.cards, t.opened
    m = state.map
    colour = m.territories.get(move.territory)
    if colour is None:
        v.append(
            Violation(
                "I-COMP-4", f"there is no territory {move.territory!r} on this map.", f"Choose one of {', '.join(m.territories)}."
            )
        )
        return
    name = state.tribes[tribe]
    if territory is not None and move.territory != territory:
        v.append(
            Violation(
                "I-TURN-1",
                f"all the pieces of a turn go into one territory: this turn's {name} pieces are in "
                f"{territory}, not {move.territory}.",
                f"Place the piece in {territory}, or take it back.",
            )
        )
    if pieces >= MAX_PIECES:
        v.append(Violation("I-TURN-3", f"at most 2 pieces a turn: {name} placed {pieces} already.", "Take the third piece back."))
    elif opened and pieces >= 1:
        v.append(
            Violation(
                "I-TURN-2", f"{territory} was unexplored: only one tent goes there this turn.", "Take the second piece back."
            )
        )
    explored = state.explored(move.territory)
    if move.piece == "tent":
        if move.space is None:
            v.append(Violation("I-TURN-4", "a tent goes on an empty tent space: name the space.", None))
        elif m.tent_spaces.get(move.space) != move.territory:
            v.append(
                Violation(
                    "I-TURN-4",
                    f"{move.space} is not a tent space of {move.territory}.",
                    f"Use an empty tent space of {move.territory}: {', '.join(_empty(state, move.territory)) or 'none is left'}.",
                )
            )
        elif move.space in state.tents:
            v.append(
                Violation(
                    "I-TURN-4",
                    f"tent space {move.space} already holds a {state.tribes[state.tents[move.space]]} tent: "
                    "a tent goes on an empty tent space.",
                    f"Use an empty tent space of {move.territory}: {', '.join(_empty(state, move.territory)) or 'none is left'}.",
                )
            )
        if state.tents_left[tribe] <= 0:
            v.append(
                Violation(
                    "I-COMP-3",
                    f"the {name} tribe has no tent left: all {state.supply[tribe][0]} are on the map (I-NIT-2).",
                    "Take the tent back.",
                )
            )
    else:
        if move.space is not None:
            v.append(Violation("I-TURN-5", "a totem goes on the territory's totem circle, not on a tent space.", None))
        if not explored:
            v.append(
                Violation(
                    "I-TURN-2",
                    f"{move.territory} is unexplored: its first piece is one tent, and no totem goes there.",
                    "Place a tent instead.",
                )
            )
        else:
            cap = totem_cap(state, move.territory, tribe)
            height = len(state.stacks.get(move.territory, ()))
            if height + 1 > cap:
                whose = f"{name}'s own tents there (reading B)" if state.options.totem_cap == "B" else "the tent majority there"
                v.append(
                    Violation(
                        "I-TURN-5",
                        f"the totem stack in {move.territory} would be {height + 1} high, above {whose}: {cap}.",
                        "Place a tent first to raise the cap, or take the totem back.",
                    )
                )
        if state.totems_left[tribe] <= 0:
            v.append(
                Violation(
                    "I-COMP-3",
                    f"the {name} tribe has no totem left: all {state.supply[tribe][1]} are on the map (I-NIT-2).",
                    "Take the totem back.",
                )
            )
    _check_payment(state, move, colour, cards, v)


def _check_payment(state: State, move: M.Place, colour: str, used: int, v: list[Violation]) -> None:
    cards = move.cards
    fix = f"Pay with one {colour} card, or a pair of another colour."
    if len(cards) == 1 and cards[0] != colour:
        v.append(
            Violation(
                "I-TURN-6",
                f"one card pays only in a territory of its colour: {move.territory} is {colour}, the card is {cards[0]}.",
                fix,
            )
        )
    elif len(cards) == 2:
        if colour in cards:
            v.append(
                Violation(
                    "I-TURN-6",
                    f"a pair is of a colour other than the territory's ({colour}): one {colour} card pays for the piece alone.",
                    fix,
                )
            )
        elif state.options.pair == "A" and cards[0] != cards[1]:
            v.append(Violation("I-TURN-6", f"a pair is two cards of one colour, not {cards_text(cards)} (reading A).", fix))
    if used + len(cards) > MAX_CARDS:
        v.append(
            Violation(
                "I-TURN-1",
                f"up to 3 cards a regular move: this piece would make {used + len(cards)}.",
                "Take the piece back: two pairs (4 cards) cannot be paid.",
            )
        )
    problem = hand_problem(state, state.current, cards)
    if problem is not None:
        v.append(
            Violation(
                "I-TURN-6", f"the piece is paid with {cards_text(cards)}, but {problem}.", "Pay with the cards in your hand."
            )
        )


def _empty(state: State, territory: str) -> list[str]:
    return [s for s in state.map.spaces_of(territory) if s not in state.tents]


def apply_place(state: State, move: M.Place) -> None:
    t = state.turn
    p = state.current
    tribe = state.third if move.third else p
    explored = state.explored(move.territory)
    take_cards(state, p, move.cards)
    if move.piece == "tent":
        state.tents[move.space] = tribe
        state.tents_left[tribe] -= 1
    else:
        state.stacks.setdefault(move.territory, []).append(tribe)
        state.totems_left[tribe] -= 1
    if move.third:
        t.stage = "third"
        t.third_opened = t.third_opened or (t.third_pieces == 0 and not explored)
        t.third_territory, t.third_pieces, t.third_cards = move.territory, t.third_pieces + 1, t.third_cards + len(move.cards)
    else:
        t.stage = "place"
        t.opened = t.opened or (t.pieces == 0 and not explored)
        t.territory, t.pieces, t.cards = move.territory, t.pieces + 1, t.cards + len(move.cards)
    if state.options.feats and (tribe < state.n or state.options.third_earns_feats):
        _earn_feats(state, tribe, move)
    if state.options.expeditions and (tribe < state.n or state.options.third_scores_expeditions):
        _expeditions(state, tribe)
    if move.piece == "tent":
        journey.tents_out(state, tribe)


# ---- feats (I-FEAT) -------------------------------------------------------------------------------------------
def earned(state: State, tribe: int, feat: str) -> bool:
    """Whether ``tribe`` earned a ``feat`` already (I-FEAT-5: at most one of each kind, engine)."""
    return any(f["tribe"] == tribe and f["feat"] == feat for f in (*state.feat_log, *state.pending))


def _earn(state: State, tribe: int, feat: str, options) -> None:
    if options and state.feat_supply.get(feat, 0) > 0 and not earned(state, tribe, feat):
        state.feat_supply[feat] -= 1
        state.pending.append({"tribe": tribe, "feat": feat, "options": tuple(options)})


def _earn_feats(state: State, tribe: int, move: M.Place) -> None:
    m = state.map
    if move.piece == "tent":
        spaces = m.spaces_of(move.territory)
        if all(s in state.tents for s in spaces):  # I-FEAT-2: the last free tent space of a territory
            _earn(state, tribe, "discovery", [t for t in m.territories if t != move.territory])
        settlement = settlement_of(state, tribe, move.space)
        if len(settlement) >= 4:  # I-FEAT-1: a settlement completed (I-SETL-1)
            _earn(state, tribe, "union", sorted({m.tent_spaces[s] for s in settlement}))
        return
    colour = state.tribes[tribe]
    totems = state.totem_counts()
    for feat, by in (("honour", "land"), ("respect", "water")):  # I-FEAT-3, I-FEAT-4
        held = [
            f"{M.CONNECTION}{c.id}"
            for c in m.connections
            if c.by == by
            and move.territory in c.between
            and (state.options.feat_mountains or not c.mountain)
            and all(colour in totem_holders(totems.get(x, {})) for x in c.between)
        ]
        _earn(state, tribe, feat, held)


def check_feat(state: State, move: M.PlaceFeat, v: list[Violation]) -> None:
    if not state.pending:
        v.append(Violation("I-FEAT-5", "no feat is waiting to be placed: a feat is placed when it is earned.", "Take it back."))
        return
    due = state.pending[0]
    if move.feat != due["feat"]:
        v.append(
            Violation("I-FEAT-5", f"the feat just earned is {due['feat']}, not {move.feat}.", f"Place the {due['feat']} feat.")
        )
    elif move.at not in due["options"]:
        rule = {"union": "I-FEAT-1", "discovery": "I-FEAT-2", "honour": "I-FEAT-3", "respect": "I-FEAT-4"}[due["feat"]]
        where = {
            "union": "in a territory of the settlement",
            "discovery": "in any territory but the one just filled",
            "honour": "on the land connection that earned it",
            "respect": "on the water connection that earned it",
        }[due["feat"]]
        v.append(
            Violation(
                rule, f"the {due['feat']} feat goes {where}, not {move.at}.", f"Place it at one of {', '.join(due['options'])}."
            )
        )


def apply_feat(state: State, move: M.PlaceFeat) -> None:
    due = state.pending.pop(0)
    state.feats[move.at] = state.feats.get(move.at, 0) + 1
    state.feat_log.append({"feat": move.feat, "at": move.at, "tribe": due["tribe"]})


# ---- expeditions (I-EXP) -----------------------------------------------------------------------------------
def mission_done(state: State, tribe: int, mission: dict) -> bool:
    """Whether ``tribe`` has completed an expedition's mission (the engine's missions, I-NIT-10)."""
    kind, n = mission["kind"], mission["n"]
    own = [s for s, t in state.tents.items() if t == tribe]
    if kind == "tents":
        return len(own) >= n
    if kind == "totems":
        return sum(stack.count(tribe) for stack in state.stacks.values()) >= n
    if kind == "territories":
        return len({state.map.tent_spaces[s] for s in own}) >= n
    if kind == "settlement":
        return any(len(settlement_of(state, tribe, s)) >= n for s in own)
    held = 0  # majorities: territories where the tribe has the most tents (ties included)
    for t in state.map.territories:
        counts = state.tent_counts(t)
        if counts.get(tribe, 0) and counts[tribe] == max(counts.values()):
            held += 1
    return held >= n


def _expeditions(state: State, tribe: int) -> None:
    """I-EXP-1, I-EXP-2: the first tribe to complete a mission scores the first circle at once, the second the
    second; nobody after them."""
    for card in state.expeditions:
        if tribe not in card["done"] and len(card["done"]) < 2 and mission_done(state, tribe, card["mission"]):
            card["done"].append(tribe)
            state.scores[tribe] += card["points"][len(card["done"]) - 1]
