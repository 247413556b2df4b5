"""Iwari registered with the table core: ``GAME``, found by the registry (``assistant.table.game.get("iwari")``)."""

from __future__ import annotations

from assistant.iwari.table_game import Iwari

GAME = Iwari()
