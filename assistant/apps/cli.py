"""The ``tablewatch`` command: one entry point, one sub-command per job.

Each sub-command lives in the package that owns the work and exposes ``add_parser(subparsers)``, which
adds its parser and sets ``func`` (called with the parsed args, returning an exit code). Command modules
must stay light to import: heavy libraries (OpenCV, onnxruntime, Flask) are imported inside ``func``.
Benchmarks register in ``assistant.apps.bench``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import traceback

# numpy's BLAS would start threads of its own beside the 2 that OpenCV and onnxruntime are given; on 2 cores they
# spin between calls and slow the next stage (``tablewatch bench pipeline``: detect 40 ms against 27, locate 38
# against 28). The runtime's one large product, the tile reader's, takes 2 ms on one thread. Set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from assistant.errors import UserError

# The modules that add sub-commands, in the order ``--help`` lists them.
COMMAND_MODULES = [
    "assistant.apps.demo",
    "assistant.apps.wendake_cli",
    "assistant.apps.iwari_cli",
    "assistant.apps.bench",
    "assistant.apps.calibration_cli",
    "assistant.apps.vision_cli",
    "assistant.apps.models_cli",
    "assistant.apps.adapt_cli",
    "assistant.apps.games",
    "assistant.apps.pipecli",
    "assistant.apps.serve",
    "assistant.apps.hub",
    "assistant.apps.publish_cli",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablewatch",
        description="Tablewatch: a camera table assistant that reads the game, checks every move and keeps the score.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # a sub-system not installed yet: leave it out of the CLI
                continue
            raise
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0 if args.command is None else 2
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"tablewatch: {exc}", file=sys.stderr)
        return exc.exit_code
    except FileNotFoundError as exc:
        print(f"tablewatch: file not found: {exc.filename}. Check the path and try again.", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head or similar, which stopped reading
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("tablewatch: interrupted.", file=sys.stderr)
        return 130
    except OSError as exc:
        if exc.filename is None:
            return _bug(exc)
        print(f"tablewatch: {exc.filename}: {exc.strerror or exc}. Check the path, its permissions and the free space.", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - the last resort: a bug, told in one line, the traceback kept in a file
        return _bug(exc)


def _bug(exc: BaseException) -> int:
    """An exception no input check caught is a bug in Tablewatch: one line on stderr naming the file that holds the
    traceback, so that it can be reported; exit code 1 (bad input is 2)."""
    try:
        fd, path = tempfile.mkstemp(prefix="tablewatch-bug-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(f"tablewatch {' '.join(sys.argv[1:])}\n\n")
            traceback.print_exception(exc, file=f)
        where = f"the details are in {path}"
    except OSError:
        where = "the details could not be written to a file"
    what = str(exc).splitlines()[0][:200] if str(exc) else ""
    print(f"tablewatch: internal error ({type(exc).__name__}{': ' + what if what else ''}). This is a bug in Tablewatch, "
          f"not in what you typed; {where}. Please report it with that file.", file=sys.stderr)
    return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
