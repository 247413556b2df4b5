"""Harvest, Hunt, Tan pelts and Fish (W-ACT-4..7): always legal once their action is open; their applies."""

from __future__ import annotations


def check_nothing(state, p, move, pending, v, ed):
    return


def apply_harvest(state, p, move, ed):
    res = state.players[p].resources
    for t in state.territories.values():
        for pa in t.pas:
            if pa.owner == p and pa.native == "woman" and pa.count > 0:
                res[pa.crop] += 1


def apply_hunt(state, p, move, ed):
    state.players[p].beavers += state.occupied_pas(p, "hunter")


def apply_tan(state, p, move, ed):
    player = state.players[p]
    player.resources["leather"] += player.beavers
    player.beavers = 0


def apply_fish(state, p, move, ed):
    state.players[p].resources["fish"] += state.canoes_in_play(p)
