"""Where an ``igpart`` command's wall-clock time goes, thread by thread: runs the command in this
process (``IGPART_FAST_EXIT=0``, so that the report is written after it) while a sampler thread
records the stack of the main thread and of the GPU preparation's threads every ``--interval``
milliseconds. The report gives, per thread, the runs of equal consecutive samples (start and
length in milliseconds from the start of this script, the innermost frame and the innermost
frames of igpart's own code) of at least ``--min-ms``, then the time by igpart frame. Unlike
cProfile it sees waits (locks, the driver, the GIL held by another thread) as time where they
happen, and it does not slow the Python it samples by an order of magnitude.

    python benchmarks/sample_command.py --out report.txt -- partition FILE -k 16 --backend gpu

A sample is taken when the sampler gets the GIL: a thread holding it in a long C call delays the
next sample, and that time is counted in the run the delayed sample ends.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import threading
import time

#: threads sampled besides the main one (the GPU preparation's)
THREAD_PREFIXES = ("igpart-gpu",)


def _key(frame) -> str:
    inner = f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno} {frame.f_code.co_name}"
    ours = []
    f = frame
    while f is not None and len(ours) < 3:
        name = f.f_code.co_filename.replace(os.sep, "/")
        if "/igpart/" in name:
            ours.append(f"{name.split('/igpart/')[-1]}:{f.f_lineno} {f.f_code.co_name}")
        f = f.f_back
    return inner + " <= " + " < ".join(ours)


def report(samples, min_ms: float, interval_ms: float) -> str:
    """The text report of ``samples`` ((seconds, thread name, key) in time order)."""
    lines = []
    names = ["MainThread"] + sorted({n for _, n, _ in samples} - {"MainThread"})
    for name in names:
        rows = [(t, k) for t, n, k in samples if n == name]
        lines.append(f"=== {name}: {len(rows)} samples")
        run_key, run_t0, last_t = None, 0.0, 0.0
        for t, k in rows + [(None, None)]:
            if k != run_key:
                if run_key is not None and (last_t - run_t0) * 1000 >= min_ms:
                    lines.append(f"{run_t0 * 1000:8.1f} {(last_t - run_t0) * 1000:7.1f} ms  "
                                 f"{run_key}")
                run_key, run_t0 = k, t
            if t is not None:
                last_t = t
        by_frame = collections.Counter(k.split(" <= ", 1)[-1] for _, k in rows)
        lines.append(f"--- {name}: time by igpart frames ({interval_ms:g}-ms samples)")
        for k, c in by_frame.most_common(40):
            lines.append(f"{c * interval_ms:8.0f} ms  {k or '(outside igpart)'}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv:
        raise SystemExit("sample_command: give the command after '--', e.g. "
                         "-- partition FILE -k 16")
    cut = argv.index("--")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the report's file")
    ap.add_argument("--interval", type=float, default=2.0, help="milliseconds between samples")
    ap.add_argument("--min-ms", type=float, default=4.0, help="shortest run listed (ms)")
    args = ap.parse_args(argv[:cut])
    command = argv[cut + 1:]
    os.environ["IGPART_FAST_EXIT"] = "0"
    main_id = threading.get_ident()
    t0 = time.perf_counter()
    samples: list[tuple[float, str, str]] = []
    stop = threading.Event()

    def sampler() -> None:
        me = threading.get_ident()
        while not stop.is_set():
            t = time.perf_counter() - t0
            names = {th.ident: th.name for th in threading.enumerate()}
            for ident, frame in sys._current_frames().items():
                name = names.get(ident, "?")
                if ident != me and (ident == main_id or name.startswith(THREAD_PREFIXES)):
                    samples.append((t, "MainThread" if ident == main_id else name, _key(frame)))
            time.sleep(args.interval / 1000)

    thread = threading.Thread(target=sampler, name="sampler", daemon=True)
    thread.start()
    code = 0
    try:
        from igpart.cli import main as igpart_main

        code = igpart_main(command)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        stop.set()
        thread.join()
        with open(args.out, "w") as fh:
            fh.write(f"command: igpart {' '.join(command)}; exit status {code}; "
                     f"{time.perf_counter() - t0:.3f} s\n")
            fh.write(report(samples, args.min_ms, args.interval))
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
