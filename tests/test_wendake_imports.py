"""The Wendake package imports cleanly in any order and stays pure Python at run time, not only at import time.

The layer test (``test_layers.py``) reads the source; this one runs it: every module of ``assistant.wendake``
imported first in a fresh interpreter state, then a game set up, played a little, seen through the observer and
described, with no OpenCV, numpy, onnxruntime or Flask loaded on the way.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "assistant" / "wendake"
MODULES = sorted(
    "assistant.wendake." + ".".join(p.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
    for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE
)

SCRIPT = """
import importlib, random, sys
for name in sys.argv[1:]:
    for m in [m for m in sys.modules if m == "assistant" or m.startswith(("assistant.", "calibration"))]:
        del sys.modules[m]
    importlib.import_module(name)  # first of the package, in a fresh state: no cycle may leave it half-built
from assistant.table import game as games
game = games.get("wendake")
state = game.new_state(["A", "B", "C"], seed=1)
rng = random.Random(1)
for _ in range(60):
    move = game.random_move(state, rng)
    before = game.copy(state)
    game.apply(state, move)
    game.describe(before, move, state)
    game.expected_readings(game.conceal(state))
heavy = sorted(m for m in ("cv2", "numpy", "onnxruntime", "flask", "torch") if m in sys.modules)
print("heavy:", heavy)
"""


def test_every_module_imports_first_and_nothing_heavy_loads():
    out = subprocess.run([sys.executable, "-c", SCRIPT, *MODULES], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("heavy: []"), out.stdout
    assert "assistant.wendake.rules" in MODULES and "assistant.wendake.rules.trade" in MODULES
