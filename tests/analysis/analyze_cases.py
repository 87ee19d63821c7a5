#!/usr/bin/env python3
"""sparkscope-cli analyze test cases, one per CTest test (`--case NAME`).

Runs through tests/cli/cli_cases.py (its main and helpers: running the CLI, expected exit codes,
shared data that may be absent, a scratch directory). A demo trace is made with sparkscope-demo
(--demo).
The JSON checks are the invariants of docs/analysis.md: the ledger sums exactly to engines x range,
each engine to the range; work = running; span <= work; the critical path's length = running +
waiting; GHC eventlogs have no span, no critical path and no predictions; each prediction's ledger
sums to P x its wall, runs exactly the work, and no prediction beats the bounds. The findings:
ranked, with their keys, in the text report, in the JSON and in the metrics file's analysis
section (JSON and CSV), the same in both for the same range.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cli_cases as cc  # noqa: E402
from cli_cases import Failure, expect, expect_exit, scratch, shared  # noqa: E402

SUMFIB = "ghc/sumfib-30-3000.eventlog"
KEYS = ["running_in_conjunct", "running_outside_conjunct", "gc", "searching", "idle_work_available",
        "idle_blocked_future", "idle_blocked_barrier", "idle_blocked_other", "idle_no_work"]


def demo_trace(workload=("parfib", "--n", "22", "--cutoff", "10")):
    path = scratch(workload[0] + ".eventlog")
    r = subprocess.run([DEMO, *workload, "--engines", "2", "--trace", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    expect(r.returncode == 0, "sparkscope-demo failed: %s" % r.stderr.decode(errors="replace"))
    return path


def analysed(*args):
    out, _ = expect_exit(0, ["analyze", "--format", "json", *args], stream="stdout")
    return json.loads(out)


def check_ledger(doc):
    a, r = doc["analysis"], doc["range"]
    span = r["to_ns"] - r["from_ns"]
    ledger = a["ledger"]
    expect(ledger["total_ns"] == a["engines"] * span, "ledger total %d != %d x %d" % (ledger["total_ns"], a["engines"], span))
    expect(sum(ledger[k + "_ns"] for k in KEYS) == ledger["total_ns"], "categories do not sum to the total")
    for engine, l in ledger["per_engine"].items():
        expect(sum(l[k + "_ns"] for k in KEYS) == span, "engine %s does not sum to the range" % engine)
    for site, l in ledger["per_conjunction"].items():
        expect(sum(l[k + "_ns"] for k in KEYS) == a["engines"] * l["covered_ns"], "site %s does not sum" % site)
    expect(a["work_ns"] == ledger["running_ns"], "work %d != running %d" % (a["work_ns"], ledger["running_ns"]))


FINDING_KEYS = ["rule", "text", "site", "ranges", "recoverable_ns"]


def check_findings(doc):
    findings = doc["analysis"]["findings"]
    r = doc["range"]
    for f in findings:
        expect(list(f) == FINDING_KEYS, "finding keys %r" % list(f))
        expect(f["text"] and f["recoverable_ns"] > 0, "finding %r" % f)
        for x in f["ranges"]:
            expect(r["from_ns"] <= x["from_ns"] < x["to_ns"] <= r["to_ns"], "range %r outside %r" % (x, r))
    recoverable = [f["recoverable_ns"] for f in findings]
    expect(recoverable == sorted(recoverable, reverse=True), "findings not ranked: %r" % recoverable)
    return findings


def case_help():
    out, _ = expect_exit(0, ["--help"], stream="stdout")
    expect("  analyze" in out, "--help does not list analyze")
    expect_exit(0, ["analyze", "--help"], "usage: sparkscope-cli analyze", "stdout")


def case_usage_errors():
    expect_exit(2, ["analyze"], "analyze needs a TRACE")
    expect_exit(2, ["analyze", "a", "b"], "analyze takes one TRACE")
    expect_exit(2, ["analyze", "x.eventlog", "--format", "csv"], "--format must be text or json")
    expect_exit(2, ["analyze", "x.eventlog", "--from", "soon"], "--from")
    expect_exit(2, ["analyze", "x.eventlog", "--from", "10", "--to", "5"], "--to must be after --from")
    expect_exit(2, ["analyze", "x.eventlog", "--bogus"], "unknown option --bogus")
    expect_exit(2, ["analyze", scratch("does-not-exist.eventlog")], "does-not-exist.eventlog")


def case_ghc_text():
    out, _ = expect_exit(0, ["analyze", shared(SUMFIB)], stream="stdout")
    for text in ("Findings", "Loss ledger: 2 engines", "running_outside_conjunct", "idle_blocked_other", "work (T1)",
                 "Critical path: absent (no joins)", "Notes:"):
        expect(text in out, "the report lacks %r:\n%s" % (text, out))
    span = [line for line in out.splitlines() if "span (T-infinity)" in line]
    expect(len(span) == 1 and span[0].split()[-1] == "absent", "the span is not said to be absent: %r" % span)


def case_ghc_json():
    doc = analysed(shared(SUMFIB))
    check_ledger(doc)
    a = doc["analysis"]
    expect(a["span_ns"] is None and a["parallelism"] is None, "a GHC eventlog has a span: %r" % a["span_ns"])
    expect(a["critical_path"] is None and a["speedup_bounds"] == [], "a GHC eventlog has a critical path")
    expect("no joins" in a["span_note"], "no note on the missing span: %r" % a.get("span_note"))
    expect(a["ledger"]["running_in_conjunct_ns"] == 0, "GHC time counted inside conjuncts")
    check_findings(doc)
    expect(all(f["site"] is None for f in a["findings"]), "a GHC finding names a conjunction")


def case_demo_json():
    path = demo_trace()
    doc = analysed(path, "--instances")
    check_ledger(doc)
    a = doc["analysis"]
    expect(0 < a["span_ns"] <= a["work_ns"], "span %r, work %r" % (a["span_ns"], a["work_ns"]))
    expect(a["span_ns"] <= doc["range"]["to_ns"] - doc["range"]["from_ns"], "span longer than the run")
    expect([b["engines"] for b in a["speedup_bounds"]] == [1, 2, 4, 8, 16, 32, 64], "bounds: %r" % a["speedup_bounds"])
    for b in a["speedup_bounds"]:
        expect(b["lower"] <= b["upper"] <= b["engines"], "bound %r" % b)
    p = a["critical_path"]
    expect(p["length_ns"] == p["running_ns"] + p["waiting_ns"] == p["to_ns"] - p["from_ns"], "path length %r" % p)
    expect(p["running_ns"] <= a["span_ns"], "path running %d > span %d" % (p["running_ns"], a["span_ns"]))
    segments = p["segments"]
    expect(segments and segments[0]["from_ns"] == p["from_ns"] and segments[-1]["to_ns"] == p["to_ns"], "segments")
    expect(all(x["to_ns"] == y["from_ns"] for x, y in zip(segments, segments[1:])), "segments are not contiguous")
    sites = a["work_span_per_conjunction"]
    expect(len(sites) == 1, "parfib has one static id: %r" % list(sites))
    site = next(iter(sites.values()))
    expect(site["complete"] == len(site["instances"]) > 0, "instances listed: %r" % site["complete"])
    expect([p["engines"] for p in a["predictions"]] == [1, 2, 4, 8, 16, 32, 64], "default engine counts")
    check_predictions(doc)
    check_findings(doc)
    # Without --instances, neither instances nor segments.
    plain = analysed(path)["analysis"]
    expect("segments" not in plain["critical_path"], "segments without --instances")
    expect("instances" not in next(iter(plain["work_span_per_conjunction"].values())), "instances without --instances")


def case_demo_text_range_and_file():
    path = demo_trace()
    out, _ = expect_exit(0, ["analyze", path], stream="stdout")
    for text in ("Per engine", "Per conjunction static id", "Speed-up bounds", "Critical path: "):
        expect(text in out, "the report lacks %r" % text)
    whole = analysed(path)
    first, last = whole["range"]["from_ns"], whole["range"]["to_ns"]
    lo, hi = first + (last - first) // 4, first + (last - first) // 2
    part = analysed(path, "--from", str(lo), "--to", str(hi))
    expect(part["range"] == {"from_ns": lo, "to_ns": hi}, "range: %r" % part["range"])
    check_ledger(part)
    expect(part["analysis"]["work_ns"] <= whole["analysis"]["work_ns"], "a part has more work than the whole")
    target = scratch("report.json")
    expect_exit(0, ["analyze", path, "--format", "json", "-o", target])
    expect(json.load(open(target)) == whole, "-o wrote something else than stdout")


def case_findings():
    # An unbalanced conjunction of three conjuncts of 1, 2 and 4 units: the last is larger than the two
    # others together, so however two engines share them, one idles for at least an eighth of the
    # conjunction and the first conjunct ends long before the last: the imbalance rule fires on any
    # schedule. (With ten conjuncts, 512 units against 511, an even split could leave no idle time.)
    path = demo_trace(("imbalanced", "--conjuncts", "3", "--unit", "50000"))
    out, _ = expect_exit(0, ["analyze", path], stream="stdout")
    expect("Findings, ranked by the time they could win back" in out, "no findings in the report:\n%s" % out)
    expect(" imbalance at imbalanced.cpp:" in out, "no imbalance finding in the report:\n%s" % out)
    expect(out.index("Findings") < out.index("Loss ledger"), "the findings do not come first")
    doc = analysed(path)
    findings = check_findings(doc)
    expect(any(f["rule"] == "imbalance" and f["site"].startswith("imbalanced.cpp:") for f in findings),
           "no imbalance finding: %r" % [f["rule"] for f in findings])
    # The metrics file has the same analysis, with its findings, as its last section (version 2).
    metrics, _ = expect_exit(0, ["metrics", path], stream="stdout")
    m = json.loads(metrics)
    expect(m["format_version"] == 2, "metrics format_version %r" % m["format_version"])
    expect(list(m)[-1] == "analysis", "the analysis is not the last section: %r" % list(m))
    check_ledger(m)
    expect(m["analysis"]["findings"] == findings, "the metrics file's findings differ from analyze's")
    # The run the findings' shares are of: inside the range. A demo trace starts its engines before
    # any context runs, so it usually begins later; the text report then says which part it is.
    run = doc["analysis"]["findings_run"]
    expect(doc["range"]["from_ns"] <= run["from_ns"] < run["to_ns"] <= doc["range"]["to_ns"],
           "findings_run %r in the range %r" % (run, doc["range"]))
    said = '("of the run" below: %d .. %d ns (' % (run["from_ns"], run["to_ns"]) in out
    expect(said == (run != doc["range"]), "the report says the run %r in the range %r: %s\n%s"
           % (run, doc["range"], said, out))
    expect(m["analysis"]["findings_run"] == run, "the metrics file's run differs from analyze's")
    expect(m["analysis"]["predictions"] == [], "predictions: %r" % m["analysis"]["predictions"])
    csv, _ = expect_exit(0, ["metrics", path, "--format", "csv"], stream="stdout")
    rows = [line.split(",", 4) for line in csv.splitlines() if line.startswith("analysis,")]
    rules = [r[4] for r in rows if r[2] == "finding" and r[3] == "rule"]
    expect(rules == [f["rule"] for f in findings], "CSV finding rows %r" % rules)
    csv_run = {r[3]: int(r[4]) for r in rows if r[1:3] == ["all", "findings_run"]}
    expect(csv_run == run, "CSV findings_run rows %r" % csv_run)
    total = [r[4] for r in rows if r[1:4] == ["all", "ledger", "total_ns"]]
    expect(total == [str(m["analysis"]["ledger"]["total_ns"])], "CSV ledger total %r" % total)


def check_predictions(doc):
    a = doc["analysis"]
    for p in a["predictions"]:
        ledger = p["ledger"]
        expect(ledger["total_ns"] == p["engines"] * p["wall_ns"], "prediction %r does not sum" % p["engines"])
        expect(sum(ledger[k + "_ns"] for k in KEYS) == ledger["total_ns"], "categories do not sum (P=%d)" % p["engines"])
        # Running time is the work, unless the trace measured a contention (docs/analysis.md
        # "Contention"): then the recorded load is divided out (a rate r, 1/(1 + c(E - 1)) <= r <= 1 for
        # a trace on E engines) and k running engines stretch it by 1 + c(k - 1) again, each node's end
        # rounded up to the ns; the bounds, of recorded times, shrink by r at most.
        c = a["costs"]["contention"]
        if c == 0:
            expect(ledger["running_ns"] == a["work_ns"], "P=%d runs %d, not the work" % (p["engines"], ledger["running_ns"]))
            least = 1.0
        else:
            least = 1 / (1 + c * (a["engines"] - 1))
            most = 1 + c * (p["engines"] - 1)
            expect(a["work_ns"] * least * 0.999 <= ledger["running_ns"] <= a["work_ns"] * most * 1.001,
                   "P=%d runs %d: not the work %d stretched by contention %g" % (p["engines"], ledger["running_ns"], a["work_ns"], c))
        expect(p["wall_ns"] >= a["span_ns"] * least * 0.999 and p["wall_ns"] * p["engines"] >= a["work_ns"] * least * 0.999,
               "P=%d beats a bound" % p["engines"])


def case_whatif():
    path = demo_trace()
    expect_exit(2, ["analyze", path, "--engines", "0"], "--engines takes engine counts")
    expect_exit(2, ["analyze", path, "--engines", "2,x"], "--engines takes engine counts")
    expect_exit(2, ["analyze", path, "--costs", scratch("none.costs")], "cannot read")
    bad = scratch("bad.costs")
    with open(bad, "w") as f:
        f.write("steal=3\n")
    expect_exit(2, ["analyze", path, "--costs", bad], "unknown key")
    expect_exit(2, ["analyze", path, "--scale", "nowhere.cpp:1=2"], "no conjunction site")
    expect_exit(2, ["analyze", path, "--scale", "demo_main.cpp=0"], "FACTOR above 0")
    # Beyond 1e-6 .. 1e6 the predicted run would outlast 64 bits of nanoseconds: refused, not saturated.
    expect_exit(2, ["analyze", path, "--scale", "demo_main.cpp=1e-12"], "FACTOR must lie between 1e-06 and 1e+06")
    expect_exit(2, ["analyze", path, "--scale", "demo_main.cpp=2e6"], "FACTOR must lie between 1e-06 and 1e+06")
    with open(bad, "w") as f:
        f.write("contention=1e20\n")
    expect_exit(2, ["analyze", path, "--costs", bad], "from 0 to 1000")
    # Zero costs: P = 1 is exactly the work; nothing beats the bounds; every ledger sums.
    zero = analysed(path, "--costs", "zero", "--engines", "1,2,64")
    a = zero["analysis"]
    expect([p["engines"] for p in a["predictions"]] == [1, 2, 64], "engines: %r" % a["predictions"])
    expect(a["predictions"][0]["wall_ns"] == a["work_ns"], "zero costs at P = 1 is not the work")
    expect(a["costs"]["source"] == "zero" and "samples" not in a["costs"], "costs: %r" % a["costs"])
    check_predictions(zero)
    # The default: the trace's own costs, for 1, 2, 4, ..., 64 engines.
    measured = analysed(path)["analysis"]
    expect([p["engines"] for p in measured["predictions"]] == [1, 2, 4, 8, 16, 32, 64], "default engines")
    expect(measured["costs"]["source"] == "measured" and "samples" in measured["costs"], "measured costs")
    expect(measured["what_if"]["recorded_wall_ns"] > 0, "no recorded wall time")
    given = scratch("given.costs")
    with open(given, "w") as f:
        f.write("# from another trace\nsteal_ns=100\nswitch_ns=200\n")
    costs = analysed(path, "--costs", given, "--engines", "2")["analysis"]["costs"]
    expect(costs["source"] == "file " + given and costs["steal_ns"] == 100 and costs["spark_ns"] == 0, "%r" % costs)
    # A contention given: running time is no longer the work but stays within what the coefficient
    # allows (check_predictions); on one engine nothing contends, so the recorded load divided out
    # can only make it shorter.
    contended = analysed(path, "--contention", "0.25", "--engines", "1,2")
    expect(contended["analysis"]["costs"]["contention"] == 0.25, "costs: %r" % contended["analysis"]["costs"])
    check_predictions(contended)
    one = contended["analysis"]["predictions"][0]["ledger"]["running_ns"]
    expect(one <= contended["analysis"]["work_ns"], "P=1 runs %d under contention, more than the work" % one)
    # SITE=FACTOR, the site named as file:line: its conjuncts twice as fast.
    site = next(iter(a["work_span_per_conjunction"]))
    scaled = analysed(path, "--costs", "zero", "--engines", "1", "--scale", site.rsplit(":", 1)[0] + "=2")["analysis"]
    expect(scaled["what_if"]["scales"] == [{"site": site, "static_id": scaled["what_if"]["scales"][0]["static_id"],
                                            "factor": 2.0}], "scales: %r" % scaled["what_if"]["scales"])
    expect(scaled["predictions"][0]["ledger"]["running_in_conjunct_ns"]
           < a["predictions"][0]["ledger"]["running_in_conjunct_ns"], "the scaled site runs no faster")
    # One factor per site: a second --scale naming it (by its full name this time) is refused.
    expect_exit(2, ["analyze", path, "--scale", site.rsplit(":", 1)[0] + "=2", "--scale", site + "=4"],
                "names a site an earlier --scale names")
    out, _ = expect_exit(0, ["analyze", path, "--engines", "1,2"], stream="stdout")
    for text in ("What-if:", "costs measured:", "speed-up", "recorded: 2 engines"):
        expect(text in out, "the report lacks %r" % text)
    curves = analysed(path, "--costs", "zero", "--engines", "2", "--curves")["analysis"]["predictions"][0]
    steps = curves["cpus"]
    area = sum(v * (t2 - t1) for (t1, v), (t2, _) in zip(steps, steps[1:] + [[curves["wall_ns"], 0]]))
    expect(area == a["work_ns"], "the CPUs curve's area %d is not the work %d" % (area, a["work_ns"]))
    expect("cpus" not in analysed(path, "--engines", "2")["analysis"]["predictions"][0], "a curve without --curves")
    none = analysed(path, "--engines", "none")["analysis"]
    expect(none["predictions"] == [] and "costs" not in none, "--engines none still predicts")


def case_ghc_whatif():
    doc = analysed(shared(SUMFIB))
    a = doc["analysis"]
    expect(a["predictions"] == [] and "no joins" in a["what_if"]["note"], "GHC predictions: %r" % a["what_if"])


if __name__ == "__main__":
    sys.exit(cc.main_with_demo(globals()))
