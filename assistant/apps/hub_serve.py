"""The hub program: the MQTT subscriber that fills the hub's archive, and ``run`` (``tablewatch hub``), which serves
the hub's page beside it. The command's options are in assistant.apps.hub.

``Subscriber`` is a paho-mqtt client with a persistent session (``clean_session=False`` and a fixed client id, so
the broker queues every QoS 1 message for the hub while it is away) subscribed to ``tablewatch/<event>/#`` (or
``tablewatch/#``) at QoS 1. paho hands each message to a queue; one writer thread applies what has queued, as one
transaction of the archive (assistant.table.hubarchive), and acknowledges (PUBACK, paho's ``manual_ack``) each
message only once that transaction is committed. So a hub killed at any moment loses nothing: what it had not
acknowledged, the broker delivers again, and the archive applies it once. A message outside the schema is one line
on stderr and is acknowledged (it would come back for ever otherwise); an archive that cannot be written (a full
disk) holds the batch, says so in one line, and tries again every second, acknowledging nothing meanwhile.
"""

from __future__ import annotations

import queue
import ssl
import sys
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt

from assistant.apps.stopping import sigterm_to_interrupt
from assistant.errors import UserError
from assistant.table import hubmsg, paths, standings
from assistant.table.hubarchive import HubArchive
from assistant.table.hubfollow import Broker, parse_broker
from web.hubpage import DEFAULTS_KEY, create_hub_app
from web.server import ensure_pin, make_server, page_url, stream_budget

BATCH = 500  # messages applied in one transaction at most
RETRY_S = (1, 10)  # paho's reconnect delay, first and longest
KEEPALIVE_S = 30
FIRST_CONNECT_S = 5.0  # at start, how long the first answer of the broker is waited for


def _stderr(level: str, text: str) -> None:
    print(f"tablewatch hub [{level}]: {text}", file=sys.stderr, flush=True)


class Subscriber:
    """Follows the broker into ``archive``. ``start()`` / ``stop()``; ``state()`` for the page."""

    def __init__(
        self,
        archive: HubArchive,
        broker: Broker,
        event: str | None = None,
        client_id: str | None = None,
        user: str | None = None,
        password: str | None = None,
        ca: str | None = None,
        on_message=None,
        batch: int = BATCH,
    ):
        self.archive = archive
        self.broker = broker
        self.event = event
        self.topic = hubmsg.subscription(event)
        self.client_id = client_id or f"tablewatch-hub-{event or 'all'}"
        self.on_message = on_message or _stderr
        self.batch = batch
        self.counts = {"received": 0, "applied": 0, "duplicates": 0, "stale": 0, "rejected": 0}
        self._queue: queue.Queue = queue.Queue()
        self._gen = 0  # connection number: a message is acknowledged on the connection it came on
        self._state = {"state": "connecting", "since": time.time(), "problem": None, "broker": broker.url}
        self._said: str | None = None
        self._answered = threading.Event()  # the broker accepted or refused us at least once
        self._refusal: str | None = None  # why the broker's last answer refused us (a disconnect follows at once)
        self._stop = threading.Event()
        self._writer: threading.Thread | None = None
        self.client = self._client(user, password, ca, broker.tls or ca is not None)

    def _client(self, user, password, ca, tls) -> mqtt.Client:
        c = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            clean_session=False,
            protocol=mqtt.MQTTv311,
            manual_ack=True,
        )
        c.reconnect_delay_set(*RETRY_S)
        c.max_queued_messages_set(0)
        if user:
            c.username_pw_set(user, password)
        if tls:
            try:
                c.tls_set(ca_certs=ca, cert_reqs=ssl.CERT_REQUIRED)
            except (ssl.SSLError, OSError, ValueError) as exc:
                raise UserError(
                    f"CA certificate {ca}: cannot be used ({exc}). Give the organiser's CA file in PEM form."
                ) from None
        c.on_connect = self._on_connect
        c.on_connect_fail = self._on_connect_fail
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        return c

    # ---- paho's thread -----------------------------------------------------------------------------------------
    def _set(self, state: str, problem: str | None, level: str, text: str) -> None:
        if state != self._state["state"] or problem != self._state["problem"]:
            self._state = {"state": state, "since": time.time(), "problem": problem, "broker": self.broker.url}
        if text != self._said:
            self._said = text
            self.on_message(level, text)

    def _on_connect(self, client, userdata, flags, reason, properties) -> None:
        self._gen += 1
        try:
            if reason.is_failure:
                why = self._refusal = _refused(reason)
                self._set("refused", why, "warning", f"{self.broker.url}: {why}; retrying.")
                return
            self._refusal = None
            client.subscribe(self.topic, qos=hubmsg.QOS)
            resumed = " (queued messages follow)" if flags.session_present else ""
            self._set("connected", None, "info", f"following {self.topic} on {self.broker.url} as {self.client_id}{resumed}.")
        finally:
            self._answered.set()  # once ``_refusal`` says what the answer was: ``start`` reads it when woken

    def _on_connect_fail(self, client, userdata) -> None:
        self._set(
            "disconnected",
            "cannot reach the broker",
            "warning",
            f"cannot reach the broker {self.broker.url} (is it running, is the address right?); retrying.",
        )

    def _on_disconnect(self, client, userdata, flags, reason, properties) -> None:
        if not self._stop.is_set():
            self._set(
                "disconnected",
                f"lost the broker ({reason})",
                "warning",
                f"lost the broker {self.broker.url} ({reason}); reconnecting, the tables' messages wait for the hub there.",
            )

    def _on_message(self, client, userdata, msg) -> None:
        try:
            topic = msg.topic
        except UnicodeDecodeError:
            topic = bytes(msg._topic).decode("utf-8", "replace")
        self._queue.put((self._gen, topic, bytes(msg.payload), msg.mid, msg.qos))

    # ---- the writer --------------------------------------------------------------------------------------------
    def _write(self) -> None:
        while not self._stop.is_set():
            try:
                first = self._queue.get(timeout=0.5)
            except queue.Empty:
                continue
            batch = [first]
            while len(batch) < self.batch:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            self._apply(batch)

    def _apply(self, batch: list) -> None:
        while not self._stop.is_set():
            try:
                done = self.archive.apply([(topic, payload) for _, topic, payload, _, _ in batch])
                break
            except Exception as exc:  # noqa: BLE001 - the archive cannot be written now: hold the batch, say it, retry
                self._set(
                    self._state["state"],
                    f"the archive cannot be written ({exc})",
                    "warning",
                    f"cannot write the archive {self.archive.path} ({exc}); holding {len(batch)} messages, retrying "
                    "every second (nothing is acknowledged, so nothing is lost).",
                )
                self._stop.wait(1.0)
        else:
            return
        if self._state["problem"] and self._state["problem"].startswith("the archive"):
            self._set(self._state["state"], None, "info", f"the archive {self.archive.path} is written again.")
        for reason in done.rejected:
            self.on_message("warning", f"dropped a message: {reason}")
        c = self.counts
        c["received"] += len(batch)
        c["applied"] += len(done.changes)
        c["duplicates"] += done.duplicates
        c["stale"] += done.stale
        c["rejected"] += len(done.rejected)
        for gen, _, _, mid, qos in batch:
            if qos > 0 and gen == self._gen:  # an older connection's message comes again and is applied once
                self.client.ack(mid, qos)

    # ---- running -----------------------------------------------------------------------------------------------
    def start(self, wait_s: float = 0.0) -> "Subscriber":
        """Connect and follow; with ``wait_s``, wait that long for the broker's first answer and raise ``UserError``
        when it refused the hub (a wrong user or password is bad input; an unreachable broker is retried)."""
        self._writer = threading.Thread(target=self._write, name="tablewatch-hub-archive", daemon=True)
        self._writer.start()
        try:
            self.client.connect_async(self.broker.host, self.broker.port, keepalive=KEEPALIVE_S)
        except (OSError, ValueError) as exc:
            raise UserError(f"broker {self.broker.url}: {exc}") from None
        self.client.loop_start()
        # the refusal itself, not the state: the broker's disconnect right after it may have set "disconnected"
        if wait_s and self._answered.wait(wait_s) and self._refusal is not None:
            problem = self._refusal
            self.stop()
            raise UserError(f"{self.broker.url}: {problem}.")
        return self

    def state(self) -> dict:
        return dict(self._state)

    def stop(self) -> None:
        """Disconnect; what was received and not yet applied is not acknowledged, so the broker keeps it."""
        self._stop.set()
        self.client.disconnect()
        self.client.loop_stop()
        if self._writer is not None:
            self._writer.join(timeout=5.0)


def _refused(reason) -> str:
    text = str(reason)
    low = text.lower()
    if "password" in low or "not authori" in low or "bad user" in low:
        return f"the broker refused the hub ({text}): check --user and --password-file (hardware/mosquitto)"
    return f"the broker refused the hub ({text})"


def read_password(path: str | None) -> str | None:
    if not path:
        return None
    p = Path(path).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"password file {p} not found. Put the hub's broker password in it (one line).") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"password file {p} cannot be read ({getattr(exc, 'strerror', None) or exc}).") from None
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise UserError(f"password file {p} is empty. Put the hub's broker password in it (one line).")
    return lines[0].strip()


def store_standings(
    archive: HubArchive,
    event: str | None,
    rule: str | None,
    tie_breaks: str | None,
    round_minutes: int | None,
    place_points: str | None,
) -> None:
    """The command line's standings options, stored for ``event`` (or as every event's default) when any is given."""
    if rule is None and tie_breaks is None and round_minutes is None and place_points is None:
        return
    key = event or DEFAULTS_KEY
    doc = dict(archive.settings.get(key) or {})
    for name, value in (
        ("rule", rule),
        ("tie_breaks", tie_breaks),
        ("round_minutes", round_minutes),
        ("place_points", place_points),
    ):
        if value is not None:
            doc[name] = value
    archive.set_settings(key, standings.Settings.from_json(doc).to_json())


def run(args, out=sys.stdout) -> int:
    """``tablewatch hub``: open the archive, follow the broker, serve the page until Ctrl-C or SIGTERM."""
    sigterm_to_interrupt()
    broker = _parse_broker(args.broker)
    try:
        event = hubmsg.event_slug(args.event) if args.event is not None else None
    except ValueError as exc:
        raise UserError(f"--event: {exc}.") from None
    if args.threads < 2:
        raise UserError(f"--threads {args.threads}: give at least 2 (each open page holds one; default 48).")
    if not 0 <= int(args.port) < 65536:
        raise UserError(f"--port {args.port} is not a port number (1-65535, or 0 for any free one).")
    archive_path = Path(args.archive).expanduser() if args.archive else paths.data_dir(args.data_dir) / "hub" / "archive.sqlite"
    password = read_password(args.password_file)
    if password and not args.user:
        raise UserError("a password needs its user: add --user NAME (the hub's broker user, e.g. hub).")
    if args.ca and not Path(args.ca).expanduser().is_file():
        raise UserError(f"CA certificate {args.ca} not found. Give the organiser's CA file (PEM) to --ca.")
    archive = HubArchive(archive_path)
    sub = server = hp = None
    try:
        store_standings(archive, event, args.standings, args.tie_breaks, args.round_minutes, args.place_points)
        pin_file = Path(args.pin_file).expanduser() if args.pin_file else archive_path.parent / "hub-pin.json"
        ensure_pin(pin_file, args.pin, out=out)
        sub = Subscriber(
            archive,
            broker,
            event,
            client_id=args.client_id,
            user=args.user,
            password=password,
            ca=str(Path(args.ca).expanduser()) if args.ca else None,
        )
        app = create_hub_app(archive, {"PIN_FILE": str(pin_file), "EVENT": event, "BROKER_STATE": sub.state})
        hp = app.extensions["tablewatch_hub"]
        server = make_server(app, args.host, int(args.port), args.threads)
        hp.pump.max_streams = stream_budget(args.threads)
        sub.start(wait_s=FIRST_CONNECT_S)
        real_port = getattr(server, "effective_port", args.port)
        print(
            f"Tablewatch hub at {page_url(args.host, real_port)}  (broker {broker.url}, {sub.topic}; archive {archive_path})",
            file=out,
            flush=True,
        )
        print("Press Ctrl-C to stop.", file=out, flush=True)
        hp.pump.start()
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        if sub is not None:
            sub.stop()
        if hp is not None:
            hp.pump.stop()
        if server is not None:
            server.close()
        archive.close()
    return 0


def _parse_broker(url: str) -> Broker:
    if isinstance(url, str) and "@" in url.partition("://")[2].partition("/")[0]:
        raise UserError(f"broker {url!r}: give the user and password apart (--user, --password-file), not in the URL.")
    return parse_broker(url)
