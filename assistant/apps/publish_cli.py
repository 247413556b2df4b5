"""``tablewatch publish``: follow a game log and publish its games to a hub's MQTT broker, alone (what
``tablewatch live --hub`` does beside the camera). The parser only: the paho client (``assistant.apps.hub_publish``)
is imported when the command runs, so that every other command starts without it (``tests/test_layers.py``)."""

from __future__ import annotations

from assistant.table import hubfollow, paths


def add_parser(sub) -> None:
    p = sub.add_parser(
        "publish",
        help="publish a game log to a hub's MQTT broker (what live --hub does, alone)",
        description="Follow a table's game log and publish its games to a hub's MQTT broker "
        "(docs/hub.md): for a table served by `tablewatch serve`, or a log copied from a table.",
    )
    paths.add_options(p)
    hubfollow.add_options(p, table=True)
    p.set_defaults(func=_run)


def _run(args) -> int:
    from assistant.apps.hub_publish import run_publish

    return run_publish(args)
