"""The whole ``igpart partition`` command, start to exit, under variants of its environment,
side by side: per input, the variants alternate run by run (each run a fresh process), and the
report gives each variant's median seconds, the median of the partition call inside it (the
command's ``--json`` ``seconds``) and the rest (interpreter, imports, reading, the GPU's
readiness, writing), with ratios to the first variant. ``--timeline`` adds one run per input and
variant with the command's log (``-vv``) stamped in milliseconds from the interpreter's start of
logging, which shows when the input was read, the partition started, the background GPU
preparation ended, and so on.

    python benchmarks/suite.py --suite large --cases ibm10,neuron,cholesky --inputs-only
    python benchmarks/cli_ab.py /tmp/igpart_suite/inputs/ibm10x29_s0.hgr \\
        --args "-k 16 --backend gpu -t 16" --reps 3 --timeline \\
        --variants '{"prepared": {}, "not": {"IGPART_GPU_PREPARE": "0"}}'

Variant values are environment variables for that variant's processes (``""``: unset). Run it
with the bytecode cache a user's install has (``PYTHONPYCACHEPREFIX`` or the default
``__pycache__``; ``PYTHONDONTWRITEBYTECODE=1`` recompiles every module in every process).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TIMELINE = (
    "import logging, sys\n"
    "logging.basicConfig(level=logging.DEBUG,\n"
    "                    format='%(relativeCreated)8.1f ms  %(threadName)s: %(message)s')\n"
    "sys.argv = ['igpart'] + sys.argv[1:]\n"
    "from igpart.cli import run\n"
    "run()\n"
)


def _env(changes: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    for name, value in changes.items():
        if value == "":
            env.pop(name, None)
        else:
            env[name] = str(value)
    return env


def run_once(path: str, extra: list[str], env: dict[str, str], out: str) -> dict:
    cmd = [sys.executable, "-m", "igpart", "partition", path, *extra, "-o", out, "--json"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 3):
        raise SystemExit(f"cli_ab: {shlex.join(cmd)} exited {proc.returncode}:\n{proc.stderr}")
    result = json.loads(proc.stdout)
    return {"wall": wall, "partition": float(result["seconds"]), "cut": result["cut"],
            "km1": result["km1"], "balanced": result["balanced"]}


def timeline(path: str, extra: list[str], env: dict[str, str], out: str) -> str:
    cmd = [sys.executable, "-c", TIMELINE, "partition", path, *extra, "-o", out, "-vv"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    return proc.stderr


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", help="hypergraph or graph files")
    ap.add_argument("--args", default="-k 16 --backend gpu", help="the command's other options")
    ap.add_argument("--variants", default='{"default": {}}',
                    help="JSON: variant name -> environment variables")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1,
                    help="untimed runs of the first variant on the first input before the "
                         "timed ones (bytecode written, kernel caches read once)")
    ap.add_argument("--timeline", action="store_true", help="one logged run per variant")
    ap.add_argument("--json", help="write every run here")
    args = ap.parse_args(argv)
    variants = json.loads(args.variants)
    if not isinstance(variants, dict) or not variants:
        raise SystemExit("cli_ab: --variants must be a JSON object of variants")
    extra = shlex.split(args.args)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "parts")
        for _ in range(args.warmup):
            run_once(args.inputs[0], extra, _env(next(iter(variants.values()))), out)
        for path in args.inputs:
            for rep in range(args.reps):
                for name, changes in variants.items():
                    r = run_once(path, extra, _env(changes), out)
                    r.update(input=Path(path).name, variant=name, rep=rep)
                    rows.append(r)
                    print(f"{r['input']} {name} rep {rep}: whole {r['wall']:.3f} s, partition "
                          f"{r['partition']:.3f} s, cut {r['cut']}", flush=True)
            if args.timeline:
                for name, changes in variants.items():
                    print(f"--- timeline: {Path(path).name}, {name}")
                    print(timeline(path, extra, _env(changes), out), end="", flush=True)
    print(f"\ncommand: igpart partition FILE {args.args}; {args.reps} runs per variant, "
          f"alternating; medians")
    first = next(iter(variants))
    print("| input | variant | whole s | partition s | rest s | whole vs " + first + " |")
    print("|---|---|---:|---:|---:|---:|")
    for path in args.inputs:
        name_in = Path(path).name
        base = None
        for name in variants:
            mine = [r for r in rows if r["input"] == name_in and r["variant"] == name]
            whole = statistics.median(r["wall"] for r in mine)
            part = statistics.median(r["partition"] for r in mine)
            rest = statistics.median(r["wall"] - r["partition"] for r in mine)
            base = whole if base is None else base
            print(f"| {name_in} | {name} | {whole:.3f} | {part:.3f} | {rest:.3f} | "
                  f"{whole / base:.3f}x |")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": args.args, "variants": variants,
                                               "runs": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
