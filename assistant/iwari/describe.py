"""Plain-language lines for Iwari moves, as the demo, the event log and the tablet show them: the player's name,
the tribe by its colour, territories by id and colour, display slots by number; no move type or internal form."""

from __future__ import annotations

from assistant.iwari import moves as M
from assistant.iwari.board import cards_text
from assistant.iwari.state import State

FEAT_NAMES = {"union": "Union", "discovery": "Discovery", "honour": "Honour", "respect": "Respect"}


def describe(before: State, move, after: State) -> str:
    p = before.current
    name = before.players[p].name
    text = _what(before, move, after)
    gained = [
        f"{after.tribes[i]} +{after.scores[i] - before.scores[i]}"
        for i in range(len(after.tribes))
        if after.scores[i] != before.scores[i]
    ]
    events = []
    if after.exhaustions > before.exhaustions:
        events.append(
            "half journey: the discard pile becomes the deck, tents scored"
            if before.exhaustions == 0 and after.exhaustions >= 1
            else "the deck ran out again: the journey ends after this round"
        )
    elif after.end and not before.end:
        events.append("a tribe has no tents left: the journey ends after this round")
    if after.phase == "over" and before.phase != "over":
        events.append("the journey is over: " + (after.tie_break or ""))
    out = f"{name}: {text}"
    if gained:
        out += f" ({', '.join(gained)})"
    return out + "".join(f". {e}" for e in events)


def _territory(state: State, tid: str) -> str:
    colour = state.map.territories.get(tid)
    return f"{tid} ({colour})" if colour else tid


def _what(before: State, move, after: State) -> str:
    if isinstance(move, M.Place):
        tribe = before.tribes[before.third if move.third and before.third is not None else before.current]
        who = f"for the third tribe ({tribe})" if move.third else f"a {tribe}"
        what = f"tent on {move.space}" if move.piece == "tent" else "totem on the stack"
        lead = f"places {who} {what}" if not move.third else f"places a {what} {who}"
        return f"{lead} in {_territory(before, move.territory)}, paying {cards_text(move.cards)}"
    if isinstance(move, M.Draw):
        if move.slot is None:
            return "draws a card from the deck" + (f" ({move.card})" if move.card else "")
        taken = before.display[move.slot - 1] if move.slot <= len(before.display) else None
        new = after.display[move.slot - 1] if move.slot <= len(after.display) else None
        return f"takes the {taken} card from display slot {move.slot}" + (
            f"; a {new} card replaces it" if new else "; the slot stays empty"
        )
    if isinstance(move, M.Swap):
        return f"swaps a card: discards {move.card}"
    if isinstance(move, M.PlaceFeat):
        where = f"connection {move.at.split(':', 1)[1]}" if move.at.startswith(M.CONNECTION) else _territory(before, move.at)
        return f"places the {FEAT_NAMES.get(move.feat, move.feat)} feat on {where}"
    if isinstance(move, M.EndTurn):
        return "ends the turn" if before.turn.stage != "start" else "passes (no move or swap possible)"
    return str(move)
