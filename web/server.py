"""Serving the tablet app with waitress (a production WSGI server, pure Python): ``serve(session, ...)``.

At start it makes sure a PIN is set (``ensure_pin``: asks on the terminal until the two PINs typed match, or,
when nobody is there to type, makes one up: shown once on a terminal, else written to ``DATA_DIR/first-pin.txt``,
mode 600, never to the journal), then prints the page's URL and a QR code of it so a tablet can join by
scanning. Blocks until interrupted. ``make_server`` keeps worker threads for pages whatever the SSE streams do.
"""

from __future__ import annotations

import getpass
import os
import secrets
import socket
import sys
from pathlib import Path

from assistant.errors import UserError
from web.app import create_app
from web.security import PIN_MAX, PIN_MIN, PinStore, check_pin_format

DEFAULT_PORT = 8080
DEFAULT_THREADS = 48  # each live page holds one thread for its SSE stream
FIRST_PIN_FILE = "first-pin.txt"  # a PIN made up with nobody at the terminal: only its owner can read it


def page_threads(threads: int) -> int:
    """Worker threads kept for pages and the API whatever the SSE streams do: a quarter, at least 8."""
    return max(8, threads // 4)


def stream_budget(threads: int) -> int:
    """How many SSE streams a server with ``threads`` worker threads admits (web.hub caps the rest)."""
    return max(1, threads - page_threads(threads))


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent), or 127.0.0.1."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def page_url(host: str, port: int) -> str:
    shown = lan_address() if host in ("0.0.0.0", "", "::") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def qr_text(url: str) -> str:
    """The URL as a QR code drawn with Unicode half blocks (dark on light, with its quiet zone)."""
    import segno

    qr = segno.make(url, error="m")
    rows = [[bool(v) for v in row] for row in qr.matrix_iter(scale=1, border=2)]
    if len(rows) % 2:
        rows.append([False] * len(rows[0]))
    chars = {(False, False): "\u2588", (True, False): "\u2584", (False, True): "\u2580", (True, True): " "}
    return "\n".join("".join(chars[(top, bottom)] for top, bottom in zip(rows[y], rows[y + 1])) for y in range(0, len(rows), 2))


def ensure_pin(pin_file: str | Path, pin: str | None = None, interactive: bool | None = None, out=sys.stdout) -> None:
    """Set the PIN at first start: ``pin`` if given; else typed twice on the terminal (asked again until the two
    match, or until the input ends); else made up: shown once when ``out`` is a terminal, otherwise written to
    ``FIRST_PIN_FILE`` beside the PIN file (mode 600) with only that file's place printed, so that a PIN made
    under a service never reaches the journal."""
    store = PinStore(pin_file)
    first_pin = store.path.parent / FIRST_PIN_FILE
    if pin is not None:
        if store.is_set and store.verify(pin):
            return
        if store.is_set:
            raise UserError(f"a different PIN is already set in {store.path}. Leave out --pin, or delete that file to set a new PIN.")
        store.set_pin(pin)
        first_pin.unlink(missing_ok=True)  # a made-up PIN from before no longer opens anything
        return
    if store.is_set:
        return
    interactive = sys.stdin.isatty() if interactive is None else interactive
    if interactive:
        print(f"First start: choose a PIN ({PIN_MIN}-{PIN_MAX} digits). Players need it to correct moves, set up games "
              "and save layouts.", file=out)
        try:
            while True:  # a typo in either PIN asks again; only the end of the input stops
                first = getpass.getpass("PIN: ")
                try:
                    check_pin_format(first)
                except UserError as exc:
                    print(exc, file=out)
                    continue
                if getpass.getpass("PIN again: ") == first:
                    store.set_pin(first)
                    first_pin.unlink(missing_ok=True)
                    return
                print("The two PINs differ; type the PIN again.", file=out)
        except EOFError:  # the terminal's input ended (closed, or nothing typed into a pipe)
            raise UserError("the input ended before a PIN was set. Start again in a terminal and type the PIN twice "
                            f"(started without a terminal, Tablewatch makes a PIN and writes it to {first_pin}).") from None
    made = f"{secrets.randbelow(10**6):06d}"
    store.set_pin(made)
    isatty = getattr(out, "isatty", None)
    if callable(isatty) and isatty():
        first_pin.unlink(missing_ok=True)
        print(f"First start: the PIN for changes is {made}. It is shown only this once (stored hashed in {store.path}; "
              "delete that file to choose another).", file=out)
        return
    first_pin.unlink(missing_ok=True)
    fd = os.open(first_pin, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(f"{made}\n")
    print(f"First start: a PIN for changes was made and written to {first_pin}, readable by this user only "
          f"(cat {first_pin}); it is not printed here, so that it stays out of logs. Delete that file once you have "
          "noted the PIN.", file=out)


def make_app(session, data_dir: str | Path | None, db_path: str | None, pin_file: str | Path | None = None,
             pin: str | None = None, config: dict | None = None, out=sys.stdout):
    """The tablet app for ``session``, with its PIN set up at first start (``ensure_pin``). ``data_dir`` holds
    pin.json, setup.json and colours.json (default ~/.tablewatch)."""
    data_dir = Path(data_dir or Path.home() / ".tablewatch")
    pin_file = Path(pin_file or data_dir / "pin.json")
    ensure_pin(pin_file, pin, out=out)
    return create_app(session, {"PIN_FILE": str(pin_file), "DATA_DIR": str(data_dir), "DB_PATH": db_path, **(config or {})})


def make_server(app, host: str = "0.0.0.0", port: int = DEFAULT_PORT, threads: int = DEFAULT_THREADS):
    """A waitress server for ``app``. The app's hub admits at most ``stream_budget(threads)`` SSE streams, so
    ``page_threads(threads)`` threads always answer pages; ``channel_request_lookahead`` lets a stream see its
    client leave (``waitress.client_disconnected``); idle connections close after a minute (streams are not idle)."""
    from waitress.server import create_server

    tw = app.extensions.get("tablewatch") if hasattr(app, "extensions") else None
    if tw is not None:
        tw.hub.max_streams = stream_budget(threads)
    try:
        return create_server(app, host=host, port=port, threads=threads, channel_timeout=60, ident="tablewatch",
                             connection_limit=max(400, threads * 4), cleanup_interval=10, channel_request_lookahead=1)
    except OSError as exc:
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror}. Choose another --port or --host.") from None


def serve(session, host: str = "0.0.0.0", port: int = DEFAULT_PORT, pin_file: str | Path | None = None,
          data_dir: str | Path | None = None, db_path: str | None = None, pin: str | None = None,
          threads: int = DEFAULT_THREADS, config: dict | None = None, qr: bool = True, out=sys.stdout,
          companion=None) -> int:
    """Serve ``session`` on host:port until Ctrl-C. ``config`` adds app config keys (hooks: BOARD_IMAGE,
    CAMERA_FRAME, NEW_GAME; see web.app). ``companion``: something that runs beside the server (the camera
    pipeline of ``tablewatch live``): its ``attach(app)`` is called once the app exists, ``start()`` when serving
    begins and ``stop()`` when it ends. Returns 0."""
    if not 0 < int(port) < 65536:
        raise UserError(f"--port {port} is not a port number (1-65535).")
    app = make_app(session, data_dir, db_path, pin_file=pin_file, pin=pin, config=config, out=out)
    tw = app.extensions["tablewatch"]
    if companion is not None:
        companion.attach(app)
    server = make_server(app, host, int(port), threads)
    real_port = server.effective_port if hasattr(server, "effective_port") else port
    url = page_url(host, real_port)
    print(f"Tablewatch is live at {url}  (open it on the tablet, or scan:)", file=out)
    if qr:
        print(qr_text(url), file=out)
    print("Press Ctrl-C to stop.", file=out, flush=True)
    tw.hub.start()
    if companion is not None:
        companion.start()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        if companion is not None:
            companion.stop()
        tw.hub.stop()
        server.close()
    return 0
