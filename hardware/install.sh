#!/usr/bin/env bash
# Install Tablewatch on Raspberry Pi OS (Bookworm or later) or Debian: system packages, a service user, a venv
# that sees the system's picamera2, the package itself, the PIN, and the systemd service.
#
#   sudo hardware/install.sh                 # install (or upgrade) from this checkout and start the service
#   sudo hardware/install.sh --no-start      # install, enable at boot, but do not start now
#   sudo hardware/install.sh --source usb:0  # write the camera choice into /etc/default/tablewatch
#
# Safe to run again: it keeps the data folder (games, PIN, layouts, setup) and an existing /etc/default/tablewatch.
set -euo pipefail

PREFIX=/opt/tablewatch
VENV="$PREFIX/venv"
DATA=/var/lib/tablewatch
SERVICE_USER=tablewatch
UNIT=/etc/systemd/system/tablewatch.service
DEFAULTS=/etc/default/tablewatch
START=1
SOURCE=""

usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --no-start) START=0 ;;
        --source) SOURCE="${2:?--source needs a value: picam, usb:0 ...}"; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

if [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run it as root: sudo $0" >&2
    exit 2
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install.sh: this script is for Debian / Raspberry Pi OS (apt-get not found)." >&2
    exit 2
fi

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ ! -f "$REPO/pyproject.toml" ]; then
    echo "install.sh: $REPO does not look like the Tablewatch source (no pyproject.toml)." >&2
    exit 2
fi

say() { printf '\n== %s\n' "$*"; }

say "System packages"
export DEBIAN_FRONTEND=noninteractive
apt-get update
# python3-venv: the venv; libgomp1: onnxruntime's threads; v4l-utils: list USB cameras (v4l2-ctl --list-devices);
# sqlite3: look into the game log by hand.
apt-get install -y --no-install-recommends python3 python3-venv python3-pip libgomp1 v4l-utils sqlite3 ca-certificates
HAVE_PICAM=0
if apt-cache show python3-picamera2 >/dev/null 2>&1; then
    # the Raspberry Pi camera stack (libcamera + picamera2); --no-install-recommends leaves out the Qt/GUI preview
    apt-get install -y --no-install-recommends python3-picamera2 && HAVE_PICAM=1
else
    echo "python3-picamera2 is not in the package lists (not Raspberry Pi OS): only USB cameras will work."
fi

say "Service user $SERVICE_USER"
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
    useradd --system --home-dir "$DATA" --shell /usr/sbin/nologin "$SERVICE_USER"
fi
for group in video render; do
    if getent group "$group" >/dev/null; then usermod -aG "$group" "$SERVICE_USER"; fi
done
install -d -o "$SERVICE_USER" -g "$SERVICE_USER" -m 750 "$DATA"

say "Python environment $VENV"
install -d "$PREFIX"
if [ ! -x "$VENV/bin/python" ]; then
    # --system-site-packages: picamera2 and libcamera come from apt and must be importable from the venv
    python3 -m venv --system-site-packages "$VENV"
fi
"$VENV/bin/python" -m pip install --upgrade pip wheel
CONSTRAINTS="$PREFIX/constraints.txt"
if [ "$HAVE_PICAM" -eq 1 ]; then
    # apt's picamera2 imports simplejpeg, built against the system's numpy 1.x: numpy 2 in the venv would break
    # `from picamera2 import Picamera2` (numpy.dtype size changed). Keep numpy 1.x and an OpenCV that accepts it.
    printf 'numpy<2\nopencv-python-headless<4.12\n' >"$CONSTRAINTS"
else
    : >"$CONSTRAINTS"
fi
"$VENV/bin/python" -m pip install --constraint "$CONSTRAINTS" "$REPO"
cp "$REPO/hardware/README.md" "$PREFIX/README.md"
"$VENV/bin/tablewatch" --help >/dev/null
if [ "$HAVE_PICAM" -eq 1 ]; then
    if "$VENV/bin/python" -c "from picamera2 import Picamera2" 2>/dev/null; then
        echo "picamera2 is importable from the venv."
    else
        echo "WARNING: picamera2 does not import from $VENV; the Pi camera will not work (USB cameras will)." >&2
    fi
fi

say "Settings $DEFAULTS"
if [ ! -f "$DEFAULTS" ]; then
    cat >"$DEFAULTS" <<'EOF'
# Extra options for `tablewatch live` (see: /opt/tablewatch/venv/bin/tablewatch live --help).
# Examples: --source picam | --source usb:0 --size 1920x1080 | --port 80 | --layout wendake-map-4p ...
TABLEWATCH_ARGS=""
EOF
fi
if [ -n "$SOURCE" ]; then
    sed -i "s|^TABLEWATCH_ARGS=.*|TABLEWATCH_ARGS=\"--source $SOURCE\"|" "$DEFAULTS"
fi

say "Shell settings /etc/profile.d/tablewatch.sh"
# `tablewatch games` / `tablewatch export latest` in a login shell read the service's game log (assistant/table/paths.py)
cat >/etc/profile.d/tablewatch.sh <<EOF
# Tablewatch (written by hardware/install.sh): the service's data folder, where its game log is ($DATA/games.sqlite).
export TABLEWATCH_DATA_DIR="$DATA"
case ":\$PATH:" in *":$VENV/bin:"*) ;; *) export PATH="\$PATH:$VENV/bin" ;; esac
EOF

say "PIN for changes on the tablet"
if [ -f "$DATA/pin.json" ]; then
    echo "A PIN is already set (delete $DATA/pin.json to choose a new one)."
elif [ -t 0 ]; then
    runuser -u "$SERVICE_USER" -- "$VENV/bin/python" -c \
        "from web.server import ensure_pin; ensure_pin('$DATA/pin.json', interactive=True)"
else
    echo "No terminal: the service makes up a PIN at its first start; read it with: journalctl -u tablewatch | grep PIN"
fi

say "systemd service"
install -m 644 "$REPO/hardware/tablewatch.service" "$UNIT"
systemctl daemon-reload
systemctl enable tablewatch.service
if [ "$START" -eq 1 ]; then
    systemctl restart tablewatch.service
    sleep 3
    systemctl --no-pager --lines=15 status tablewatch.service || true
fi

PORT=8080
ADDR="$(hostname -I 2>/dev/null | awk '{print $1}')"
cat <<EOF

Tablewatch is installed.
  tablet page:   http://${ADDR:-<this Pi's address>}:$PORT/   (or http://$(hostname).local:$PORT/)
  QR code:       sudo -u $SERVICE_USER $VENV/bin/python -c "from web.server import qr_text; print(qr_text('http://${ADDR:-127.0.0.1}:$PORT/'))"
  logs:          journalctl -u tablewatch -f
  options:       $DEFAULTS, then: sudo systemctl restart tablewatch
  games:         tablewatch games; tablewatch export latest --out game.json   (a new login shell; or --data-dir $DATA)
EOF
