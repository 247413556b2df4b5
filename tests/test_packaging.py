"""What ``pip install .`` puts in the wheel: every data file the runtime reads (templates, static files, edition
data, layouts, galleries, weights) matches a ``[tool.setuptools.package-data]`` pattern of pyproject.toml.

A file left out works in the editable install the tests use and is missing from a user's install: the demo's
scoreboard was blank once a game's templates moved to ``web/templates/<game>/``.
"""

from __future__ import annotations

import fnmatch
import subprocess
import tomllib
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]
RUNTIME_DATA = (".html", ".js", ".css", ".json", ".onnx", ".npz")


def _owner(path: PurePosixPath) -> tuple[str, PurePosixPath]:
    """The package that ships ``path`` (its nearest folder with an ``__init__.py``) and the path inside it."""
    folder = path.parent
    while not (ROOT / folder / "__init__.py").is_file():
        folder = folder.parent
    return ".".join(folder.parts), path.relative_to(folder)


def _matches(rel: PurePosixPath, pattern: str) -> bool:
    """setuptools' glob: ``*`` stays within one folder."""
    parts = PurePosixPath(pattern).parts
    return len(parts) == len(rel.parts) and all(fnmatch.fnmatchcase(a, b) for a, b in zip(rel.parts, parts))


def test_every_runtime_data_file_is_in_the_wheel():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    tracked = subprocess.run(["git", "ls-files", "assistant", "calibration", "models/weights", "web"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    missing = []
    for name in tracked:
        path = PurePosixPath(name)
        if path.suffix not in RUNTIME_DATA:
            continue
        package, rel = _owner(path)
        if not any(_matches(rel, p) for p in data.get("*", []) + data.get(package, [])):
            missing.append(name)
    assert not missing, f"not in the wheel (add a package-data pattern in pyproject.toml): {missing}"
