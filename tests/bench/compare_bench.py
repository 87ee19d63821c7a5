#!/usr/bin/env python3
"""Cost of `sparkscope-cli compare A B` against one trace's `sparkscope-cli metrics` (scripts/bench compare).

Runs `metrics A`, `metrics B` and `compare A B` one after the other, RUNS times (interleaved, so a
change in the machine's load hits all three alike), each as its own process writing to /dev/null, and
takes each process's wall time and peak RSS (from wait4). Prints the medians side by side and the
ratios compare / metrics, against A's metrics and against the larger of A's and B's medians. The issue's
target: at most 2.2x in time and in memory. Never asserts: it prints figures.
"""
import argparse
import os
import statistics
import subprocess
import time


def run(argv):
    """Wall seconds and peak RSS in MB of one process."""
    start = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit("%s failed (%d): %s" % (" ".join(argv), p.returncode, err))
    return wall, usage.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("a")
    ap.add_argument("b")
    args = ap.parse_args()
    commands = {
        "metrics A": [args.cli, "metrics", args.a, "-o", "/dev/null"],
        "metrics B": [args.cli, "metrics", args.b, "-o", "/dev/null"],
        "compare A B": [args.cli, "compare", args.a, args.b, "-o", "/dev/null"],
    }
    results = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, argv in commands.items():
            results[name].append(run(argv))
    median = {name: (statistics.median(w for w, _ in r), statistics.median(m for _, m in r))
              for name, r in results.items()}
    print("compare: %s vs %s, medians of %d interleaved runs" % (args.a, args.b, args.runs))
    for name in commands:
        walls = " ".join("%.2f" % w for w, _ in results[name])
        print("  %-12s wall %6.2f s  peak RSS %6.0f MB   (walls: %s)" % (name, median[name][0], median[name][1], walls))
    cw, cm = median["compare A B"]
    aw, am = median["metrics A"]
    lw, lm = max(median["metrics A"][0], median["metrics B"][0]), max(median["metrics A"][1], median["metrics B"][1])
    print("ratio compare / metrics A:              time %.2fx, peak memory %.2fx (target <= 2.2x each)" % (cw / aw, cm / am))
    print("ratio compare / the larger metrics run: time %.2fx, peak memory %.2fx" % (cw / lw, cm / lm))
    print("RESULT compare_s=%.3f compare_mb=%.0f metrics_a_s=%.3f metrics_a_mb=%.0f" % (cw, cm, aw, am))


if __name__ == "__main__":
    main()
