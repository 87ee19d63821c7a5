#!/usr/bin/env python3
"""What-if accuracy (scripts/bench whatif; a benchmark, never pass/fail).

For each workload: a trace at 1 engine (pinned to one core with `taskset -c 0`) and one at 2 engines;
each trace predicts the other's wall time (its first context's start to its last context's end,
`what_if.recorded_wall_ns`) with the costs it measured itself (`sparkscope-cli analyze --engines 1,2`).
Error = (predicted - recorded) / recorded. The 2-engine trace measures its contention coefficient
(docs/analysis.md, "Contention"); the 1-engine trace cannot, so it is also shown predicting 2 engines with
the coefficient the 2-engine trace measured, given through `analyze --contention C` (its own measured costs
beside). With --repeat 2 or more, a contention coefficient calibrated on the other pairs of the same workload
is tried too (leave one out): each pair's coefficient is the one with which its 2-engine trace predicts its
1-engine trace's wall time (`sparkscope-cli calibrate`), and every pair is predicted, both ways, with the
median coefficient of the other pairs (`loo c`, `analyze --contention`): a coefficient measured once per program and machine, then
used on runs it was not fitted on. Every pair is printed with the CPU time the hypervisor stole
from this virtual machine during each recording (/proc/stat; time stolen while a context runs counts as
running in the trace), then the median error of each direction over the pairs (the pairs of a workload
differ only by the machine's noise).

  whatif_accuracy.py --cli CLI --demo DEMO [--repeat N] [--scratch DIR] [--workloads NAME,...]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile

WORKLOADS = {
    "parfib": "--n 37 --cutoff 14",
    "quicksort": "--n 2000000 --cutoff 20000",
    "sumeuler": "--n 6000 --chunk 100",
    "pipeline": "--items 1000 --work 20000",
}


def stolen_ms():
    """CPU time the hypervisor took from this virtual machine so far (/proc/stat's steal column), ms."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) * 1000 // os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0


def record(demo, name, engines, path):
    """Records one trace; returns the steal time (ms, all CPUs) during the run."""
    pin = ["taskset", "-c", "0"] if engines == 1 and shutil.which("taskset") else []
    cmd = pin + [demo, name] + WORKLOADS[name].split() + ["--engines", str(engines), "--trace", path]
    before = stolen_ms()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return stolen_ms() - before


def analysed(cli, path, *extra):
    """The recorded wall time, the predictions for 1 and 2 engines, the work (T1) and the costs used."""
    out = subprocess.run([cli, "analyze", path, "--engines", "1,2", "--format", "json"] + list(extra), check=True,
                         stdout=subprocess.PIPE).stdout
    a = json.loads(out)["analysis"]
    return (a["what_if"]["recorded_wall_ns"], {p["engines"]: p["wall_ns"] for p in a["predictions"]}, a["work_ns"],
            a["costs"])


def with_contention(cli, path, contention):
    """`path`'s predictions with its own measured costs but the given contention coefficient (repr: the
    same double reaches the CLI)."""
    return analysed(cli, path, "--contention", repr(contention))[1]


def calibrated(cli, one, two):
    """The contention coefficient with which the 2-engine trace predicts the 1-engine trace's wall time
    (`sparkscope-cli calibrate`; docs/analysis.md, "A coefficient from a pair of traces")."""
    out = subprocess.run([cli, "calibrate", one, two, "--format", "json"], check=True, stdout=subprocess.PIPE).stdout
    return json.loads(out)["coefficient"]


def error(predicted, recorded):
    return 100.0 * (predicted - recorded) / recorded


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--demo", required=True)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scratch")
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    args = ap.parse_args()
    scratch = args.scratch or tempfile.mkdtemp(prefix="whatif-accuracy-")
    os.makedirs(scratch, exist_ok=True)
    print("%-10s %12s %12s %8s   %12s %12s %8s   %14s %9s %7s %8s %9s" % (
        "workload", "1->2 pred", "2 recorded", "error", "2->1 pred", "1 recorded", "error", "self 1, 2", "work 2/1",
        "c of 2", "1->2 c2", "stolen ms"))
    summary = []
    for name in args.workloads.split(","):
        up, down, borrowed, coefficients, pairs = [], [], [], [], []
        for i in range(args.repeat):
            one = os.path.join(scratch, "%s-1-%d.eventlog" % (name, i))
            two = os.path.join(scratch, "%s-2-%d.eventlog" % (name, i))
            stolen = (record(args.demo, name, 1, one), record(args.demo, name, 2, two))
            wall1, from1, work1, _ = analysed(args.cli, one)
            wall2, from2, work2, costs2 = analysed(args.cli, two)
            up.append(error(from1[2], wall2))
            down.append(error(from2[1], wall1))
            coefficients.append(costs2["contention"])
            borrowed.append(error(with_contention(args.cli, one, costs2["contention"])[2], wall2))
            pairs.append((one, two, wall1, wall2, calibrated(args.cli, one, two)))
            print("%-10s %9.3f ms %9.3f ms %+7.1f%%   %9.3f ms %9.3f ms %+7.1f%%   %+5.1f%%,%+5.1f%% %9.3f %7.3f %+7.1f%% "
                  "%4d, %d" % (name, from1[2] / 1e6, wall2 / 1e6, up[-1], from2[1] / 1e6, wall1 / 1e6, down[-1],
                               error(from1[1], wall1), error(from2[2], wall2), work2 / work1, coefficients[-1],
                               borrowed[-1], stolen[0], stolen[1]))
        loo_up, loo_down, loo_c = [], [], []
        for i, (one, two, wall1, wall2, _) in enumerate(pairs):
            others = [p[4] for j, p in enumerate(pairs) if j != i]
            if not others:
                continue
            c = statistics.median(others)
            loo_c.append(c)
            loo_up.append(error(with_contention(args.cli, one, c)[2], wall2))
            loo_down.append(error(with_contention(args.cli, two, c)[1], wall1))
        if loo_c:
            print("%-10s calibrated c per pair: %s; with the other pairs' median c: 1->2 %s, 2->1 %s" % (
                name, ", ".join("%.3f" % p[4] for p in pairs), ", ".join("%+.1f%%" % e for e in loo_up),
                ", ".join("%+.1f%%" % e for e in loo_down)))
        summary.append((name, up, down, borrowed, coefficients, loo_up, loo_down, [p[4] for p in pairs]))
    print("(self: each trace predicting its own engine count; work 2/1: the 2-engine trace's T1 over the\n"
          "1-engine one's, the same program; c of 2: the contention the 2-engine trace measured (the 1-engine\n"
          "trace cannot: 0); 1->2 c2: the 1-engine trace predicting 2 engines with that coefficient given\n"
          "(--contention); stolen: CPU time the hypervisor took during each recording)")
    for name in args.workloads.split(","):
        print("%-10s %s" % (name, WORKLOADS[name]))
    print("median error (range) over %d pairs:" % args.repeat)

    def cell(v):
        return "%+6.1f%% (%+.1f .. %+.1f)" % (statistics.median(v), min(v), max(v))
    for name, up, down, borrowed, coefficients, loo_up, loo_down, fitted in summary:
        print("  %-10s 1 engine predicts 2: %s   2 engines predict 1: %s   1 predicts 2 with c of 2: %s   "
              "c of 2: %.3f (%.3f .. %.3f)" % (name, cell(up), cell(down), cell(borrowed),
                                                statistics.median(coefficients), min(coefficients),
                                                max(coefficients)))
        if loo_up:
            print("  %-10s with c calibrated on the other pairs (leave one out): 1 predicts 2: %s   2 predict 1: %s   "
                  "calibrated c: %.3f (%.3f .. %.3f)" % (name, cell(loo_up), cell(loo_down), statistics.median(fitted),
                                                         min(fitted), max(fitted)))
    if not args.scratch:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
