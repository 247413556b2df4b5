"""Publishing a table's game to a hub's MQTT broker: the paho-mqtt client around ``assistant.table.hubfollow``.

``Publisher`` runs one background thread (plus paho's network thread) that follows the game log and never makes
the game wait: the camera loop and the tablet never call it, so a broker that is down, slow or refusing changes
nothing for them. MQTT 3.1.1, QoS 1, a persistent session (``clean_session=False``, a client id fixed per event
and table), the ``status`` topic retained with a last will of ``offline``.

- On each connect: ``status`` online, the newest game's setup and the snapshot (all retained), then every event
  after the cursor, in seq order. A new process starts its cursor at the acknowledged seq (``Follower``), so after
  a ``kill -9`` it sends again what the broker never acknowledged, and nothing else.
- At most ``window`` events are handed to paho unacknowledged (memory stays bounded however long the broker is
  away; the log holds the rest). paho sends those again by itself after a reconnect.
- Each PUBACK moves the acknowledged seq (contiguous: every event up to it acknowledged); it is written beside the
  log at most every ``save_s`` and at stop.
- The snapshot goes out after events that may change it (not after looks alone), at most every ``snapshot_s``.
- A refused connection (wrong password, unknown user), an unreachable broker, a TLS failure: one line each time the
  problem changes (``on_message``), retries every 1 to 30 s, and ``status`` says it for the tablet.

``tablewatch publish --db LOG --hub URL --table NAME`` runs a publisher alone (a table served by ``tablewatch
serve``, or a log copied from a table); ``tablewatch live --hub ...`` runs one beside the camera (``HubLink``).
"""

from __future__ import annotations

import argparse
import ssl
import sys
import threading
import time
from collections import deque
from pathlib import Path

import paho.mqtt.client as mqtt

from assistant.apps import publish_cli
from assistant.apps.stopping import sigterm_to_interrupt
from assistant.errors import UserError
from assistant.table import hubfollow, hubmsg, paths
from assistant.table.hubfollow import Follower, HubSettings

WINDOW = 100  # events handed to paho and not yet acknowledged
POLL_S = 0.1  # how often the log is read for new events
SAVE_S = 0.5  # the acknowledged seq is written at most this often
SNAPSHOT_S = 0.5  # the snapshot goes out at most this often
RETRY_S = (1, 30)  # paho's reconnect delay, first and longest
KEEPALIVE_S = 30
STOP_WAIT_S = 2.0  # at stop: how long the last acknowledgements are waited for


def _stderr(level: str, text: str) -> None:
    print(f"tablewatch hub [{level}]: {text}", file=sys.stderr, flush=True)


def _refused(reason) -> str:
    text = str(reason)
    low = text.lower()
    if "password" in low or "not authori" in low or "bad user" in low:
        return (
            f"the broker refused the table ({text}): check --hub-user and the password file (the organiser's "
            "mosquitto_passwd, hardware/mosquitto/README.md)"
        )
    if "identifier" in low:
        return f"the broker refused the client id ({text})"
    return f"the broker refused the connection ({text})"


class Publisher:
    """Follows the game log at ``log_path`` and publishes it to the hub ``hub``. ``start()`` / ``stop()``."""

    def __init__(
        self,
        log_path,
        hub: HubSettings,
        snapshot_of=None,
        on_message=None,
        window: int = WINDOW,
        poll_s: float = POLL_S,
        save_s: float = SAVE_S,
        snapshot_s: float = SNAPSHOT_S,
    ):
        self.hub = hub
        self.follower = Follower(log_path, hub.key, snapshot_of)
        self.on_message = on_message or _stderr
        self.window, self.poll_s, self.save_s, self.snapshot_s = window, poll_s, save_s, snapshot_s
        self.problem: str | None = None  # what keeps the table from the hub now, in one line
        self.connected = False
        self._said: str | None = None
        self._acks: deque = deque()  # mids paho acknowledged (appended from its thread)
        self._inflight: dict[int, tuple[str, object]] = {}  # mid -> ("event", seq) | ("setup", game id) | ("other", None)
        self._order: deque = deque()  # [seq, acknowledged] of the events in flight, in seq order
        self._fresh = threading.Event()  # connected since the last status/setup/snapshot round
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._saved_at = 0.0
        self._snap_due = True
        self._snap_at = 0.0
        self.client = self._client()
        if hub.user and hub.user != hub.key.table:
            self.on_message(
                "warning",
                f"broker user {hub.user!r} is not the table's slug {hub.key.table!r}: the "
                "shipped ACL (hardware/mosquitto/acl) lets a table write only tablewatch/+/<its user>/#, "
                f"so name the user {hub.key.table} or give --table {hub.user}.",
            )

    # ---- the client ------------------------------------------------------------------------------------------
    def _client(self) -> mqtt.Client:
        key = self.hub.key
        client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=f"tablewatch-{key.event_slug}-{key.table}",
            clean_session=False,
            protocol=mqtt.MQTTv311,
        )
        client.max_inflight_messages_set(self.window + 10)  # the window, and status/setup/snapshot beside it
        client.max_queued_messages_set(0)
        client.reconnect_delay_set(*RETRY_S)
        if self.hub.user:
            client.username_pw_set(self.hub.user, self.hub.password)
        if self.hub.tls:
            try:
                client.tls_set(ca_certs=self.hub.ca, cert_reqs=ssl.CERT_REQUIRED)
            except (ssl.SSLError, OSError, ValueError) as exc:
                raise UserError(
                    f"hub CA certificate {self.hub.ca}: cannot be used ({exc}). Give the organiser's CA file in PEM form."
                ) from None
        offline = self.follower.status_message("offline")
        client.will_set(offline.topic, offline.payload, qos=hubmsg.QOS, retain=True)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        return client

    def _say(self, level: str, problem: str | None, text: str) -> None:
        """One line when what is wrong changes (``problem`` None: all is well again)."""
        self.problem = problem
        if text != self._said:
            self._said = text
            self.on_message(level, text)

    def _on_connect(self, client, userdata, flags, reason, properties) -> None:
        if reason.is_failure:
            self.connected = False
            why = _refused(reason)
            self._say("warning", why, f"{self.hub.broker.url}: {why}; retrying, the game goes on.")
            return
        self.connected = True
        self._fresh.set()
        self._wake.set()
        self._say(
            "info",
            None,
            f"publishing to {self.hub.broker.url}: table {self.hub.name!r} ({self.hub.key.table}), event {self.hub.event}.",
        )

    def _on_connect_fail(self, client, userdata) -> None:
        self.connected = False
        why = f"cannot reach the hub's broker {self.hub.broker.url}"
        self._say(
            "warning",
            why,
            f"{why} (is it running, is the address right?); retrying every {RETRY_S[1]} s at "
            "most, the game goes on and is sent when it is back.",
        )

    def _on_disconnect(self, client, userdata, flags, reason, properties) -> None:
        was = self.connected
        self.connected = False
        if was and not self._stop.is_set():
            why = f"lost the hub's broker {self.hub.broker.url} ({reason})"
            self._say("warning", why, f"{why}; reconnecting, the game goes on and is sent when it is back.")

    def _on_publish(self, client, userdata, mid, reason, properties) -> None:
        self._acks.append(mid)  # only this: paho holds its own lock here (the thread below takes the rest)
        self._wake.set()

    # ---- the thread ------------------------------------------------------------------------------------------
    def start(self) -> "Publisher":
        b = self.hub.broker
        try:
            self.client.connect_async(b.host, b.port, keepalive=KEEPALIVE_S)
        except (OSError, ValueError) as exc:
            raise UserError(f"hub broker {b.url}: {exc}") from None
        self.client.loop_start()
        self._thread = threading.Thread(target=self._run, name="tablewatch-hub-publish", daemon=True)
        self._thread.start()
        return self

    def wake(self) -> None:
        """New events may be in the log: look now rather than at the next poll."""
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._step()
            except Exception as exc:  # noqa: BLE001 - publishing never stops the game: said, and tried again
                self._say(
                    "warning",
                    f"publishing failed ({type(exc).__name__}: {exc})",
                    f"publishing to the hub failed ({type(exc).__name__}: {exc}); trying again.",
                )
                self._stop.wait(1.0)
            self._wake.wait(self.poll_s)
            self._wake.clear()

    def _step(self) -> None:
        self._take_acks()
        if self.connected and self._fresh.is_set():
            self._fresh.clear()
            self._greet()
        if self.connected:
            self._send_events()
            if (self.follower.changed or self._snap_due) and time.monotonic() - self._snap_at >= self.snapshot_s:
                self._send_snapshot()
        if time.monotonic() - self._saved_at >= self.save_s:
            self._save()

    def _publish(self, msg: hubmsg.Message, what: tuple[str, object]) -> None:
        info = self.client.publish(msg.topic, msg.payload, qos=msg.qos, retain=msg.retain)
        if info.rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
            raise RuntimeError(f"paho refused a message ({mqtt.error_string(info.rc)})")
        self._inflight[info.mid] = what
        if what[0] == "event":
            self._order.append([what[1], False])

    def _greet(self) -> None:
        """After each connect: status online, the newest game's setup, the snapshot (all retained)."""
        self._publish(self.follower.status_message("online"), ("other", None))
        game_id = self.follower.newest_game()
        msg = self.follower.setup_message(game_id) if game_id is not None else None
        if msg is not None:
            self._publish(msg, ("setup", game_id))
        self._snap_due = True

    def _send_events(self) -> None:
        room = self.window - len(self._order)
        for msg, kind, value in self.follower.next(limit=room) if room > 0 else []:
            self._publish(msg, (kind, value))

    def _send_snapshot(self) -> None:
        msg = self.follower.snapshot_message()
        self._snap_due, self._snap_at = False, time.monotonic()
        if msg is not None:
            self._publish(msg, ("other", None))

    def _take_acks(self) -> None:
        while self._acks:
            what = self._inflight.pop(self._acks.popleft(), None)
            if what is None:
                continue
            kind, value = what
            if kind == "setup":
                self.follower.acknowledged(setup_of=value)
            elif kind == "event":
                for entry in self._order:
                    if entry[0] == value:
                        entry[1] = True
                        break
        while self._order and self._order[0][1]:
            self.follower.acknowledged(self._order.popleft()[0])

    def _save(self) -> None:
        self._saved_at = time.monotonic()
        if not self.follower.save():
            self._say(
                "warning",
                "the acknowledged seq cannot be written",
                f"cannot write {self.follower.state_path}: after a restart, events the hub has may be sent "
                "again (the hub ignores them).",
            )

    # ---- reading and stopping --------------------------------------------------------------------------------
    @property
    def status(self) -> dict:
        """For the tablet and tests: the hub, connected or not, the acknowledged and sent seqs, the problem."""
        return {
            "hub": self.hub.broker.url,
            "table": self.hub.name,
            "event": self.hub.event,
            "connected": self.connected,
            "acked": self.follower.acked,
            "sent": self.follower.cursor,
            "message": self.problem,
        }

    def stop(self, wait_s: float = STOP_WAIT_S) -> None:
        """Say ``offline`` (retained), wait up to ``wait_s`` for the last acknowledgements, write the acknowledged
        seq and disconnect. The game log is not touched."""
        if self._thread is not None:
            self._stop.set()
            self._wake.set()
            self._thread.join(timeout=5.0)
        try:
            if self.connected:
                self._publish(self.follower.status_message("offline"), ("other", None))
                deadline = time.monotonic() + wait_s
                while self._inflight and self.connected and time.monotonic() < deadline:
                    time.sleep(0.02)
                    self._take_acks()
            self._take_acks()
            self._save()
        finally:
            self.client.disconnect()
            self.client.loop_stop()
            self.follower.close()


class HubLink:
    """The publisher ``tablewatch live`` runs: from the command line's hub settings, else from the tablet's Setup
    (``DATA_DIR/setup.json``, key ``hub``; watched, a change restarts the publisher). Never raises into the game."""

    def __init__(
        self, log_path, data_dir, fixed: HubSettings | None = None, snapshot_of=None, on_message=None, poll_s: float = 2.0
    ):
        self.log_path, self.data_dir, self.fixed = Path(log_path), Path(data_dir), fixed
        self.snapshot_of = snapshot_of
        self.on_message = on_message or _stderr
        self.poll_s = poll_s
        self.publisher: Publisher | None = None
        self._current = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "HubLink":
        self.check()
        if self.fixed is None:
            self._thread = threading.Thread(target=self._watch, name="tablewatch-hub-setup", daemon=True)
            self._thread.start()
        return self

    def _watch(self) -> None:
        while not self._stop.wait(self.poll_s):
            self.check()

    def check(self) -> None:
        """Start, restart or stop the publisher to match the settings now."""
        try:
            wanted = self.fixed or hubfollow.from_setup(self.data_dir)
        except UserError as exc:
            wanted = None
            if str(exc) != self._current:
                self.on_message("warning", f"the hub set in Setup is not used: {exc}")
            self._stop_publisher()
            self._current = str(exc)
            return
        if wanted == self._current:
            return
        self._stop_publisher()
        self._current = wanted
        if wanted is not None:
            try:
                self.publisher = Publisher(
                    self.log_path, wanted, snapshot_of=self.snapshot_of, on_message=self.on_message
                ).start()
            except UserError as exc:
                self.on_message("warning", f"not publishing to the hub: {exc}")

    @property
    def status(self) -> dict | None:
        return self.publisher.status if self.publisher is not None else None

    def wake(self) -> None:
        if self.publisher is not None:
            self.publisher.wake()

    def _stop_publisher(self) -> None:
        if self.publisher is not None:
            self.publisher.stop()
            self.publisher = None

    def stop(self) -> None:
        self._stop.set()
        self._stop_publisher()


# ---- tablewatch publish ----------------------------------------------------------------------------------------
def run_publish(args) -> int:
    sigterm_to_interrupt()
    hub = hubfollow.settings_from_args(args)
    if hub is None:
        raise UserError("tablewatch publish needs --hub mqtt://HOST:1883 and --table NAME.")
    db = paths.db_path(args.db, args.data_dir)
    if not Path(db).is_file():
        raise UserError(f"no game log at {db}. Check --data-dir / --db.")
    pub = Publisher(db, hub).start()
    print(
        f"tablewatch publish: {db} -> {hub.broker.url}, table {hub.name!r}, event {hub.event}; Ctrl-C to stop",
        file=sys.stderr,
        flush=True,
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        pub.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m assistant.apps.hub_publish ...``: ``tablewatch publish`` without the rest of the CLI."""
    parser = argparse.ArgumentParser(prog="tablewatch publish")
    sub = parser.add_subparsers(dest="command")
    publish_cli.add_parser(sub)
    args = parser.parse_args(["publish", *(sys.argv[1:] if argv is None else argv)])
    try:
        return run_publish(args)
    except UserError as exc:
        print(f"tablewatch: {exc}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
