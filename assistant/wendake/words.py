"""The words a player reads for Wendake's pieces, the same in alerts, the set-up check, fix lines and the Ghost's
referee: ``piece_words("woman:blue:colour", 2)`` -> "2 blue women (colour side)"."""

from __future__ import annotations

from assistant.table.observation import split_key

PIECE_NOUNS = {"warrior_standing": "warrior", "warrior_lying": "outpost warrior", "action_marker": "action marker",
               "tribe_disk": "tribe disk", "fire_token": "Sacred Fire token", "progress_tile": "progress tile"}


def piece_words(key: str, n: int) -> str:
    """``n`` pieces of a reading key's piece, in the player's words (plural past one)."""
    cls, colour, side = split_key(key)
    if cls == "progress_tile":
        return f"{n} level-{colour.lstrip('P')} progress tile{'s' if n > 1 else ''} ({side} up)"
    noun = PIECE_NOUNS.get(cls, cls.replace("_", " "))
    if n > 1:
        noun = "women" if noun == "woman" else noun + "s"
    return f"{n} {'' if colour == 'none' else colour + ' '}{noun}" + (f" ({side} side)" if side else "")
