"""``tablewatch hub``: the organiser's hub over many tables (issue 36, docs/hub.md): follows every table through
one MQTT broker into its own archive and serves the page of live scores, standings and each game's export.

This module only adds the command's parser: it stays light to import, as every command module must (``tablewatch
--help`` loads no Flask, waitress or paho): the work, assistant.apps.hub_serve, is imported when the command runs
(``LAZY`` in tests/test_layers.py).
"""

from __future__ import annotations

from assistant.table import paths, standings

DEFAULT_PORT = 8090


def add_parser(sub) -> None:
    p = sub.add_parser(
        "hub",
        help="the organiser's hub: every table's live score, standings and exports, over an MQTT broker",
        description="Follow every table of an event through an MQTT broker (Eclipse Mosquitto) into the hub's own "
        "archive, and serve the page of live scores, offline tables, standings and each game's export (docs/hub.md).",
    )
    p.add_argument("--broker", required=True, metavar="URL", help="the broker: mqtt://HOST:1883, or mqtts://HOST:8883 (TLS)")
    p.add_argument("--event", help="follow only this event id (default: every event on the broker)")
    p.add_argument("--user", "--hub-user", dest="user", help="the hub's user on the broker (e.g. hub)")
    p.add_argument(
        "--password-file", "--hub-password-file", dest="password_file", help="a file holding the hub's broker password (one line)"
    )
    p.add_argument("--ca", "--hub-ca", dest="ca", help="the organiser's CA certificate (PEM): connect with TLS")
    p.add_argument(
        "--client-id",
        help="the hub's MQTT client id: its persistent session on the broker "
        "(default tablewatch-hub-<event>, or tablewatch-hub-all)",
    )
    p.add_argument("--data-dir", default=None, help=paths.DATA_DIR_HELP)
    p.add_argument("--archive", help="the hub's SQLite archive (default: DATA_DIR/hub/archive.sqlite)")
    p.add_argument("--pin-file", help="the organiser's PIN file (default: hub-pin.json beside the archive)")
    p.add_argument("--pin", help="set the organiser's PIN at first start (6-12 digits) instead of asking")
    p.add_argument("--host", default="0.0.0.0", help="address the page listens on (default 0.0.0.0)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"the page's port (default {DEFAULT_PORT})")
    p.add_argument("--threads", type=int, default=48, help="worker threads; each open page holds one (default 48)")
    p.add_argument(
        "--standings",
        choices=standings.RULES,
        help=f"the scoring rule (default {standings.DEFAULT_RULE}; the organiser can change it on the page)",
    )
    p.add_argument(
        "--tie-breaks",
        metavar="LIST",
        help="tie-breaks in order, from "
        + ", ".join(standings.TIE_BREAKS)
        + f" (default {','.join(standings.DEFAULT_TIE_BREAKS)})",
    )
    p.add_argument(
        "--round-minutes",
        type=int,
        help="games are put in rounds by start time, slots of this many minutes "
        f"(default {standings.DEFAULT_ROUND_MINUTES}; the organiser can set a game's round)",
    )
    p.add_argument(
        "--place-points",
        metavar="LIST",
        help="for --standings places: points by place, e.g. 4,2,1,0 (default: the number of players beaten)",
    )
    p.set_defaults(func=_run)


def _run(args) -> int:
    from assistant.apps.hub_serve import run

    return run(args)
