"""The layer rules of docs/architecture.md, checked on the source with ``ast`` (no project module is imported).

- the core (``assistant/table/``, ``assistant/*.py``) and every game package (``assistant/<game>/``) are pure Python:
  no cv2, numpy, onnxruntime, flask or torch, and nothing of vision, web, models, calibration or the programs,
  except ``calibration.builtin`` (the built-in layouts as data, itself stdlib only); the core imports no game package;
- ``vision`` imports no game package, no session, no web and no program;
- ``web`` reaches games only through the core and imports no program;
- ``calibration`` imports no vision, web or program; ``models`` no web and no program;
- no import cycles among the project's modules (top-level imports, ``TYPE_CHECKING`` blocks left out);
- no function-local import of the project's own modules, except the programs' named in ``LAZY`` below.

Why the programs keep a few lazy imports: ``tablewatch`` builds every sub-command's parser at start-up, so each
command module (``COMMAND_MODULES`` in assistant/apps/cli.py) must stay light; its handlers import the heavy work
modules. Measured on the 2-core dev box, best of 5 (``from assistant.apps.cli import main; main(["--help"])``):
0.45 s as it is; 0.86 s with the numpy side imported at the top (live, replay, vision.pipeline, models.*); 0.58 s
with web.server (waitress and the web app); 1.11 s with all of them. ``test_tablewatch_help_loads_no_heavy_module``
holds that line. Outside the programs, only imports of modules that need torch (the ``train`` extra, absent from the
runtime and the test suite) may stay inside a function.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("assistant", "vision", "calibration", "models", "web", "hardware")
HEAVY = ("cv2", "numpy", "onnxruntime", "flask", "torch")
CORE = ("assistant.table", "assistant.errors", "assistant.jsonfile", "assistant.pairs")
APPS = "assistant.apps"
PURE_CALIBRATION = "calibration.builtin"

# (module, own module it imports inside a function) -> why (figures in the module docstring).
_NUMPY = "numpy and the camera side: +0.4 s on every tablewatch command"
_WEB = "waitress and the web app: +0.13 s on every tablewatch command"
_MQTT = "paho-mqtt: +36-50 ms on every tablewatch command"
LAZY: dict[tuple[str, str], str] = {
    ("assistant.apps.publish_cli", "assistant.apps.hub_publish"): _MQTT,
    ("assistant.apps.hub", "assistant.apps.hub_serve"): _WEB,
    ("assistant.apps.adapt_cli", "models.adapt.run"): _NUMPY,
    ("assistant.apps.demo", "assistant.apps.live"): _NUMPY,
    ("assistant.apps.demo", "assistant.apps.replay"): _NUMPY,
    ("assistant.apps.demo", "models.synth.recording"): _NUMPY,
    ("assistant.apps.demo", "vision.pipeline"): _NUMPY,
    ("assistant.apps.demo", "web.server"): _WEB,
    ("assistant.apps.models_cli", "assistant.apps.reliability_cli"): _NUMPY,
    ("assistant.apps.models_cli", "models.counter.evaluate"): _NUMPY,
    ("assistant.apps.models_cli", "models.counter.train"): _NUMPY,
    ("assistant.apps.models_cli", "models.detector.calibrate"): _NUMPY,
    ("assistant.apps.models_cli", "models.detector.evaluate"): _NUMPY,
    ("assistant.apps.models_cli", "models.detector.quantize"): _NUMPY,
    ("assistant.apps.models_cli", "models.detector.train"): _NUMPY,
    ("assistant.apps.models_cli", "models.synth.writer"): _NUMPY,
    ("assistant.apps.pipecli", "assistant.apps.live"): _NUMPY,
    ("assistant.apps.pipecli", "assistant.apps.replay"): _NUMPY,
    ("assistant.apps.pipecli", "models.synth.recording"): _NUMPY,
    ("assistant.apps.pipecli", "vision.pipeline"): _NUMPY,
    ("assistant.apps.serve", "web.server"): _WEB,
    (
        "models.detector.train",
        "models.detector.net",
    ): "needs torch, the train extra; models.counter.train reads CROP_PX without it",
    ("models.detector.train", "models.detector.gpu_crops"): "needs torch, the train extra, as models.detector.net",
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _is_type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and getattr(test, "id", getattr(test, "attr", None)) == "TYPE_CHECKING"


def _imports(name: str) -> list[tuple[str, bool, bool]]:
    """(imported module, imported inside a function, inside a TYPE_CHECKING block) for each import in ``name``."""
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    found = []

    def visit(node: ast.AST, local: bool, typing_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.extend((alias.name, local, typing_only) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - child.level + 1] + ([base] if base else []))
                for alias in child.names:  # `from pkg import module` imports pkg.module
                    found.append((f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base, local, typing_only))
            func = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            visit(child, local or func, typing_only or _is_type_checking(child))

    visit(ast.parse(MODULES[name].read_text(encoding="utf-8")), False, False)
    return found


IMPORTS = {name: _imports(name) for name in MODULES}


def _within(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _games() -> list[str]:
    return sorted(
        {f"assistant.{n.split('.')[1]}" for n in MODULES if n.count(".") >= 2 and n.split(".")[1] not in ("table", "apps")}
    )


GAMES = _games()


def _forbidden(name: str) -> tuple[str, ...]:
    """The module prefixes ``name`` must not import."""
    if _within(name, *CORE, *GAMES):
        core = GAMES if _within(name, *CORE) else ()
        return (*HEAVY, "vision", "web", "models", "calibration", APPS, *core)
    if _within(name, PURE_CALIBRATION):
        return (*HEAVY, "vision", "web", "models", APPS)
    if _within(name, "vision"):
        return (*GAMES, "assistant.table.session", "web", APPS)
    if _within(name, "web"):
        return (*GAMES, APPS)
    if _within(name, "calibration"):
        return ("vision", "web", APPS)
    if _within(name, "models"):
        return ("web", APPS)
    return ()


def test_each_layer_imports_only_what_it_may():
    broken = []
    for name, imports in IMPORTS.items():
        forbidden = _forbidden(name)
        for target, _, _ in imports:
            if _within(target, *forbidden) and not (_within(name, *GAMES) and target == PURE_CALIBRATION):
                broken.append(f"{name} imports {target}")
    assert not broken, "\n".join(sorted(set(broken)))


def test_the_core_and_games_load_nothing_heavy_through_a_chain():
    """What the core and the games import at the top, transitively, holds no heavy module."""
    heavy = []
    for start in [n for n in MODULES if _within(n, *CORE, *GAMES, PURE_CALIBRATION)]:
        seen, todo = {start}, [start]
        while todo:
            for target, local, typing_only in IMPORTS.get(todo.pop(), []):
                if _within(target, *HEAVY):
                    heavy.append(f"{start} loads {target}")
                elif target in MODULES and target not in seen and not (local or typing_only):
                    seen.add(target)
                    todo.append(target)
    assert not heavy, "\n".join(sorted(set(heavy)))


def test_no_import_cycles():
    graph = {
        n: {t for t, local, typing_only in IMPORTS[n] if t in MODULES and t != n and not (local or typing_only)} for n in MODULES
    }
    cycles, state = [], {}

    def walk(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for target in sorted(graph[node]):
            if state.get(target) == "open":
                cycles.append(" -> ".join(stack[stack.index(target) :] + [target]))
            elif target not in state:
                walk(target, stack + [target])
        state[node] = "done"

    for name in sorted(graph):
        if name not in state:
            walk(name, [name])
    assert not cycles, "\n".join(cycles)


def test_own_modules_are_imported_at_the_top():
    local = {(n, t) for n, imports in IMPORTS.items() for t, is_local, _ in imports if is_local and t.split(".")[0] in PACKAGES}
    unexplained = sorted(f"{n} imports {t} inside a function" for n, t in local - set(LAZY))
    assert not unexplained, "\n".join(unexplained)
    torch_only = {t for t in MODULES if any(_within(i, "torch") for i, local, _ in IMPORTS[t] if not local)}
    assert all(_within(n, APPS) or t in torch_only for n, t in LAZY), "outside the programs, only torch modules load lazily"
    assert not set(LAZY) - local, f"LAZY names imports that are no longer lazy: {sorted(set(LAZY) - local)}"


def test_the_session_and_a_game_load_no_heavy_module():
    code = f"import sys, assistant.table.session, assistant.wendake.game\nprint(sorted(set({HEAVY!r}) & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_tablewatch_help_loads_no_heavy_module():
    """The command modules stay light: building every sub-command's parser loads no heavy library and no web server."""
    code = (
        "import sys\nfrom assistant.apps.cli import build_parser\nbuild_parser()\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})), 'web.server' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[] False"
