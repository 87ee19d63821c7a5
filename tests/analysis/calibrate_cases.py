#!/usr/bin/env python3
"""sparkscope-cli calibrate test cases, one per CTest test (`--case NAME`).

Runs through tests/cli/cli_cases.py (its main and helpers). The case `record` is the fixture step: it
records the demo's quicksort on 1 engine (pinned with taskset when there is one) and on 2 engines into
--pair DIR, which the other cases read. What is checked is what calibrate promises (docs/analysis.md,
"A coefficient from a pair of traces"): its predictions are analyze's, without the coefficient and
with it given by --contention; the coefficient is the bisection's (the 2-engine trace at P = 1
predicts more than the 1-engine wall at 0, and no more at twice the coefficient); the text report is a
costs file that analyze --costs reads; bad input says what is wrong.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cli_cases as cc  # noqa: E402
from cli_cases import expect, expect_exit, scratch, shared  # noqa: E402

PAIR = None
QUICKSORT = ("quicksort", "--n", "300000", "--cutoff", "10000")


def pair_path(engines):
    return os.path.join(PAIR, "quicksort-%d.eventlog" % engines)


def pair():
    one, two = pair_path(1), pair_path(2)
    expect(os.path.exists(one) and os.path.exists(two), "the fixture step 'record' did not record %s and %s"
           % (one, two))
    return one, two


def case_record():
    os.makedirs(PAIR, exist_ok=True)
    for engines in (1, 2):
        pin = ["taskset", "-c", "0"] if engines == 1 and shutil.which("taskset") else []
        r = subprocess.run(pin + [DEMO, *QUICKSORT, "--engines", str(engines), "--trace", pair_path(engines)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        expect(r.returncode == 0, "sparkscope-demo failed: %s" % r.stderr.decode(errors="replace"))


def analyzed(path, engines, *extra):
    out, _ = expect_exit(0, ["analyze", path, "--engines", str(engines), "--format", "json", *extra], stream="stdout")
    a = json.loads(out)["analysis"]
    return a["predictions"][0]["wall_ns"], a


def case_help():
    out, _ = expect_exit(0, ["--help"], stream="stdout")
    expect("  calibrate" in out, "--help does not list calibrate")
    expect_exit(0, ["calibrate", "--help"], "usage: sparkscope-cli calibrate", "stdout")
    out, _ = expect_exit(0, ["analyze", "--help"], stream="stdout")
    expect("--contention" in out, "analyze --help does not list --contention")


def case_usage_errors():
    expect_exit(2, ["calibrate"], "calibrate takes two traces")
    expect_exit(2, ["calibrate", "a"], "calibrate takes two traces")
    expect_exit(2, ["calibrate", "a", "b", "c"], "calibrate takes two traces")
    expect_exit(2, ["calibrate", "a", "b", "--format", "csv"], "--format must be text or json")
    one, _ = pair()
    for bad in ("-1", "x", "nan", "inf", "", "1000.5", "1e20"):
        expect_exit(2, ["analyze", one, "--contention", bad], "--contention takes a number from 0 to 1000")


def case_demo():
    one, two = pair()
    out, _ = expect_exit(0, ["calibrate", two, one, "--format", "json"], stream="stdout")
    doc = json.loads(out)
    expect(list(doc) == ["format_version", "coefficient", "reached", "one", "many", "notes"], "keys %r" % list(doc))
    c = doc["coefficient"]
    expect(c >= 0, "coefficient %r" % c)
    runs = {"one": (one, 1, 2), "many": (two, 2, 1)}
    for key, (path, engines, predicts) in runs.items():
        r = doc[key]
        expect(r["path"] == path and r["engines"] == engines and r["predicts"]["engines"] == predicts, "%s: %r"
               % (key, r))
        other = doc["many" if key == "one" else "one"]
        expect(r["predicts"]["recorded_wall_ns"] == other["recorded_wall_ns"], "%s: the wall it predicts" % key)
        # Without: analyze's default; with: analyze --contention C (C as the JSON wrote it: the same double).
        plain, a = analyzed(path, predicts)
        expect(a["what_if"]["recorded_wall_ns"] == r["recorded_wall_ns"] and a["work_ns"] == r["work_ns"],
               "%s: the recorded wall or work differs from analyze's" % key)
        expect(r["predicts"]["without"]["wall_ns"] == plain, "%s without: %d, analyze says %d"
               % (key, r["predicts"]["without"]["wall_ns"], plain))
        given, a = analyzed(path, predicts, "--contention", repr(c))
        expect(r["predicts"]["with"]["wall_ns"] == given, "%s with: %d, analyze --contention %r says %d"
               % (key, r["predicts"]["with"]["wall_ns"], c, given))
        expect(a["costs"]["source"] == "measured, contention given" and a["costs"]["contention"] == c,
               "costs %r" % a["costs"])
        recorded = other["recorded_wall_ns"]
        for which in ("without", "with"):
            p = r["predicts"][which]
            expect(abs(p["error"] - (p["wall_ns"] - recorded) / recorded) < 1e-12, "%s %s: error %r" % (key, which, p))
    # The coefficient is where the 2-engine trace's prediction of 1 engine crosses the 1-engine wall.
    wall1 = doc["one"]["recorded_wall_ns"]
    at_zero, _ = analyzed(two, 1, "--contention", "0")
    if c == 0:
        expect(at_zero <= wall1, "c = 0 but the 2-engine trace predicts %d > %d at 0" % (at_zero, wall1))
        expect(any("the coefficient is 0" in n for n in doc["notes"]), "no note for c = 0: %r" % doc["notes"])
    else:
        expect(at_zero > wall1, "c = %r, yet the 2-engine trace predicts %d <= %d at 0" % (c, at_zero, wall1))
        beyond, _ = analyzed(two, 1, "--contention", repr(2 * c))
        if doc["reached"]:
            expect(beyond <= wall1, "at twice c the 2-engine trace still predicts %d > %d" % (beyond, wall1))
        else:
            expect(beyond > wall1 and any("no coefficient up to 64" in n for n in doc["notes"]), "not reached: %r" % doc)
    # The text report is a costs file: analyze --costs FILE reads the 2-engine trace's costs and c.
    costs_file = scratch("quicksort.costs")
    out, _ = expect_exit(0, ["calibrate", one, two, "-o", costs_file], stream="stdout")
    expect(out == "", "-o still printed %r" % out[:200])
    with open(costs_file) as f:
        text = f.read()
    for part in ("1 -> 2 engines", "2 -> 1 engines"):
        expect(part in text, "the report lacks %r:\n%s" % (part, text))
    # The coefficient as a number, not as Python spells it: the report writes the shortest form that reads
    # back to the same double ("0" where repr says "0.0"; c is 0 whenever the pair's timing makes it so).
    for label in ("contention = ", "analyze TRACE --contention "):
        m = re.search(re.escape(label) + r"([-+0-9.eE]+)", text)
        expect(m is not None and float(m.group(1)) == c, "the report's %r is not %r:\n%s" % (label, c, text))
    _, a = analyzed(one, 2, "--costs", costs_file)
    many_costs = doc["many"]["costs"]
    expect(a["costs"]["contention"] == c and all(a["costs"][k] == many_costs[k] for k in
           ("spark_ns", "steal_ns", "context_ns", "switch_ns", "wake_ns", "spin_ns")),
           "the costs file gave %r, not the 2-engine trace's costs and c" % a["costs"])


def case_bad_input():
    one, two = pair()
    missing = scratch("missing.eventlog")
    expect_exit(2, ["calibrate", one, missing], missing + ": cannot open")
    junk = scratch("junk.eventlog")
    with open(junk, "wb") as f:
        f.write(b"not an eventlog at all")
    expect_exit(2, ["calibrate", junk, two], junk + ": ")
    expect_exit(2, ["calibrate", two, two], "both traces were recorded on 2 engine(s)")
    other = scratch("sumeuler-1.eventlog")
    r = subprocess.run([DEMO, "sumeuler", "--n", "300", "--chunk", "30", "--engines", "1", "--trace", other],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    expect(r.returncode == 0, "sparkscope-demo failed: %s" % r.stderr.decode(errors="replace"))
    _, err = expect_exit(2, ["calibrate", other, two], "the traces look like runs of different programs")
    expect("only in " + other in err and "only in " + two in err, "the sites are not named: %r" % err)
    expect_exit(2, ["calibrate", shared("ghc/parfib-12-30.eventlog"), one], "records no parallel conjunctions")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--pair", required=True)
    known, rest = ap.parse_known_args()
    PAIR = known.pair
    sys.argv = sys.argv[:1] + rest
    sys.exit(cc.main_with_demo(globals()))
