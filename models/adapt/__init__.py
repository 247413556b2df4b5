"""Adapting the readers to one owner's table (``tablewatch adapt``, docs/adapt.md), in numpy on CPU, no torch.

``looks``: the harvested looks of a table profile, the hold-out rule and the agreement of a reading with the
rules' value. ``views``: reading the stored board views through the observer's own code, and the figures.
``detector_head``, ``counter_head``, ``galleries``: what is fitted. ``run``: one adapt (fit, check on the held-out
looks, swap in or keep, card, reliability) and the rollback. ``record``: harvested looks made from a rendered
game with its truth (tests and measurements).
"""
