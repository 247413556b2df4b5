"""The Mask ceremony (W-ACT-9, with the L1/L2/L3 Mask tiles): draws, the ceremony space, its apply."""

from __future__ import annotations

from collections import Counter

from assistant.wendake import progress
from assistant.wendake.board import MaskPiles, Violation, add_points, draw_mask


def _check_draw(piles, source, card, ed, v, label: str = "") -> bool:
    """W-ACT-9 a: whether a draw from ``source`` naming ``card`` is possible from these piles."""
    if source not in ("deck", "discard"):
        v.append(Violation("W-ACT-9", f"{label}draw from 'deck' or 'discard', not {source!r}."))
        return False
    pile = piles.mask_deck if source == "deck" else piles.mask_discard
    if source == "deck" and not pile and not piles.mask_discard:
        v.append(Violation("W-ACT-9", f"{label}both the deck and the discard pile are empty."))
        return False
    if source == "discard" and not pile:
        v.append(Violation("W-ACT-9", f"{label}the discard pile is empty; draw from the deck."))
        return False
    top = pile[-1] if pile else None
    if card is not None:
        if card not in ed.mask_cards:
            v.append(Violation("W-ACT-9", f"{label}{card!r} is not a mask card."))
            return False
        if top is not None and card != top:
            v.append(Violation("W-ACT-9", f"{label}the top card of the {source} is {top}, not {card}."))
            return False
    return True


def check_mask(state, p, move, pending, v, ed):
    player = state.players[p]
    uses = progress.check_uses(player, move.use, "mask", ed, v)
    if v:
        return
    two = "W-PRG-L1-5" in uses
    if not two and (move.source2 is not None or move.card2 is not None or move.discard is not None):
        v.append(Violation("W-PRG-L1-5", "a second draw and a discard need the Draw-two tile (L1 Mask) in use."))
        return
    if two and move.source2 is None:
        v.append(Violation("W-PRG-L1-5", "with Draw two, name the second draw (source2) and the card you discard (discard)."))
        return
    for field, rule in (("wild", "W-PRG-L2-6"), ("phantom", "W-PRG-L3-6"), ("recall", "W-PRG-L2-5")):
        if getattr(move, field) is not None and rule not in uses:
            v.append(Violation(rule, f"'{field}' needs the tile of {rule} in use."))
            return
    hand = list(player.hand)
    if "W-PRG-L2-5" in uses:  # Recall: played cards come back first
        if state.options.recall_one_card:
            if move.recall is not None:
                if move.recall not in player.played:
                    v.append(Violation("W-PRG-L2-5", f"{move.recall} is not among the cards you played this year."))
                    return
                hand.append(move.recall)
        else:
            hand += player.played
    piles = MaskPiles(state)
    if not _check_draw(piles, move.source, move.card, ed, v):
        return
    hand.append(draw_mask(piles, move.source, move.card, move.flip))
    if two:
        if not _check_draw(piles, move.source2, move.card2, ed, v, "second draw: "):
            return
        hand.append(draw_mask(piles, move.source2, move.card2, move.flip2))
        # discard None: a face-down unknown card of the hand (the tracker's hidden hands, ``assistant.table.tracker``)
        if move.discard not in hand:
            what = "you hold no unknown card" if move.discard is None else f"{move.discard} is not"
            v.append(Violation("W-PRG-L1-5", f"you can discard only a card in your hand; {what}.",
                               "Name the card you discarded (discard)."))
            return
        hand.remove(move.discard)
    if move.space is None:
        if move.cards:
            v.append(Violation("W-ACT-9", "cards are played only onto a ceremony space; name the space."))
        return
    space = ed.mask_spaces.get(move.space)
    if space is None:
        v.append(Violation("W-ACT-9", f"{move.space!r} is not a ceremony space.", "Spaces: " + ", ".join(ed.mask_spaces) + "."))
        return
    holder = state.mask_space_holder(move.space)
    if holder is not None and "W-PRG-L1-6" not in uses:
        who = "your own disk" if holder == p else f"{state.players[holder].name}'s disk"
        v.append(Violation("W-ACT-9.2", f"space {move.space} is occupied by {who}; only an empty space can be used.",
                           _free_spaces_hint(state, ed)))
        return
    have = Counter(hand)
    need = Counter(move.cards)
    if any(c is None for c in move.cards) or any(have[c] < k for c, k in need.items()):
        v.append(Violation("W-ACT-9.1", "you can play only cards in your hand (cards played this year cannot be used again).",
                           "Your hand: " + ", ".join(str(c) for c in hand) + "."))
        return
    types = [ed.mask_cards[c].mask for c in move.cards]
    kinds = {c.mask for c in ed.mask_cards.values()}
    if move.wild is not None:
        if move.wild not in move.cards or move.wild_as not in kinds:
            v.append(Violation("W-PRG-L2-6", "Wild: name one of the cards you play (wild) and the mask type it counts as (wild_as)."))
            return
        types.remove(ed.mask_cards[move.wild].mask)
        types.append(move.wild_as)
    if move.phantom is not None:
        if move.phantom not in kinds:
            v.append(Violation("W-PRG-L3-6", f"Phantom card: {move.phantom!r} is not a mask type ({', '.join(sorted(kinds))})."))
            return
        types.append(move.phantom)
    groups = tuple(sorted(Counter(types).values(), reverse=True))
    if groups != space.pattern:
        v.append(Violation("W-ACT-9", f"space {move.space} needs {_pattern_text(space.pattern)}; the cards played show {_pattern_text(groups)}.",
                           "Play exactly the cards the space asks for and keep the rest."))


def _pattern_text(pattern) -> str:
    if not pattern:
        return "no cards"
    if all(g == 1 for g in pattern):
        return f"{len(pattern)} different masks"
    return " + ".join(f"{g} identical" if g > 1 else "1 other" for g in pattern)


def _free_spaces_hint(state, ed) -> str:
    free = [s for s in ed.mask_spaces if state.mask_space_holder(s) is None]
    return "Empty spaces: " + (", ".join(free) if free else "none") + "."


def apply_mask(state, p, move, ed):
    player = state.players[p]
    uses = {progress.rule_of(ed, t) for t in move.use}
    progress.flip(player, move.use)
    if "W-PRG-L2-5" in uses:  # Recall, before the ceremony
        if state.options.recall_one_card:
            if move.recall is not None:
                player.played.remove(move.recall)
                player.hand.append(move.recall)
        else:
            player.hand.extend(player.played)
            player.played = []
    player.hand.append(draw_mask(state, move.source, move.card, move.flip))
    if "W-PRG-L1-5" in uses:  # Draw two, then discard any 1 card face up
        player.hand.append(draw_mask(state, move.source2, move.card2, move.flip2))
        player.hand.remove(move.discard)
        state.mask_discard.append(move.discard)
    if move.space is not None:
        for c in move.cards:
            player.hand.remove(c)
            player.played.append(c)
        player.mask_space = move.space
        add_points(state, p, "mask", ed.mask_spaces[move.space].points, ed.cap)
    if "W-PRG-L3-5" in uses:
        add_points(state, p, "mask", 1, ed.cap)
