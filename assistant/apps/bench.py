"""``tablewatch bench NAME``: the performance benchmarks, each printing its own figures.

Each benchmark is ``module:function`` taking the remaining argv list and returning an exit code; the
function imports whatever it measures. The figures go in docs/benchmarks.md with the machine and command.
"""

from __future__ import annotations

import argparse
import importlib

BENCHMARKS = {
    "rules": ("assistant.apps.bench_rules:main", "random full games of a game (--game wendake|iwari): games/s, ms per game, median check and apply time"),
    "locate": ("assistant.apps.bench_vision:main", "board localisation: milliseconds per 12 MP frame"),
    "detector": ("assistant.apps.bench_detector:main", "piece detector: milliseconds per rectified map view (fp32, int8; 2 threads)"),
    "pipeline": ("assistant.apps.bench_pipeline:main", "live pipeline: settled frame -> event latency per stage, 2304x1296, 2 threads"),
    "web": ("assistant.apps.bench_web:main", "tablet SSE fan-out: 20 clients at 10 Hz on loopback; dropped/late events, p95 delivery latency; "
            "then 200 streams at once: accepted/refused, page and API latency while they are open"),
    "hub": ("assistant.apps.bench_hub:main", "many tables through a local Mosquitto into the hub: end-to-end latency, dropped events, "
            "the hub's CPU and memory (--tables 50, --restart-broker, --kill-table)"),
}


def _run(args: argparse.Namespace) -> int:
    target, _ = BENCHMARKS[args.name]
    module_name, func_name = target.split(":")
    return getattr(importlib.import_module(module_name), func_name)(args.rest)


def add_parser(sub) -> None:
    lines = "\n".join(f"  {name:8s} {text}" for name, (_, text) in BENCHMARKS.items())
    p = sub.add_parser(
        "bench",
        help="run a benchmark and print its figures",
        description="Benchmarks:\n" + lines,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", choices=sorted(BENCHMARKS), help="which benchmark")
    p.add_argument("rest", nargs=argparse.REMAINDER, help="options for that benchmark (see: bench NAME --help)")
    p.set_defaults(func=_run)
