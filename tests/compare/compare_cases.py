#!/usr/bin/env python3
"""sparkscope-cli compare and scaling test cases, one per CTest test (`--case NAME`).

Runs through tests/cli/cli_cases.py (its main and helpers). Demo traces are recorded with
sparkscope-demo (--demo) at 1 and 2 engines. The JSON checks are the definitions of docs/compare.md:
difference = b - a and ratio = b / a wherever both exist, null otherwise; each run's ledger sums to its
engines x its range; sites sorted by their time difference; a trace compared with itself gives zero
differences; the CSV holds the JSON's numbers; scaling points by engine count with speed-up,
efficiency and Karp-Flatt as defined, and each prediction's error against the measured wall time.
"""
import csv
import io
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cli_cases as cc  # noqa: E402
from cli_cases import Failure, expect, expect_exit, scratch, shared  # noqa: E402

DEMO = None
PARFIB = ("parfib", "--n", "22", "--cutoff", "12")


def demo_trace(engines, workload=PARFIB):
    path = scratch("%s-%d.eventlog" % (workload[0], engines))
    if not os.path.exists(path):
        r = subprocess.run([DEMO, *workload, "--engines", str(engines), "--trace", path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        expect(r.returncode == 0, "sparkscope-demo failed: %s" % r.stderr.decode(errors="replace"))
    return path


def json_of(command, *args, code=0):
    out, err = expect_exit(code, [command, *args, "--format", "json"], stream="stdout")
    return json.loads(out), err


def close(x, y):
    return abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))


def check_figures(figures, where):
    for key, f in figures.items():
        expect(list(f) == ["a", "b", "difference", "ratio"], "%s %s: keys %r" % (where, key, list(f)))
        if f["a"] is None or f["b"] is None:
            expect(f["difference"] is None and f["ratio"] is None, "%s %s: a difference without both" % (where, key))
            continue
        expect(close(f["difference"], f["b"] - f["a"]), "%s %s: difference %r" % (where, key, f))
        if f["a"] == 0:
            expect(f["ratio"] is None, "%s %s: a ratio over 0" % (where, key))
        else:
            expect(close(f["ratio"], f["b"] / f["a"]), "%s %s: ratio %r" % (where, key, f))


def check_comparison(doc):
    expect(list(doc) == ["format_version", "a", "b", "warnings", "program", "ledger", "sites"], "keys %r" % list(doc))
    check_figures(doc["program"], "program")
    check_figures(doc["ledger"], "ledger")
    p, l = doc["program"], doc["ledger"]
    for side in ("a", "b"):
        if not doc[side]["read"]:
            continue
        expect(l["total_ns"][side] == p["engines"][side] * p["range_ns"][side], "%s: ledger total" % side)
        expect(l["running_ns"][side] == p["work_ns"][side], "%s: running != work" % side)
    times = [s["time_difference_ns"] for s in doc["sites"]]
    expect(times == sorted(times, reverse=True), "sites not sorted: %r" % times)
    for s in doc["sites"]:
        check_figures(s["figures"], s["site"])
        covered = s["figures"]["covered_ns"]
        expect(s["time_difference_ns"] == abs((covered["b"] or 0) - (covered["a"] or 0)), "%s: time" % s["site"])
        for k in s["conjuncts"]:
            check_figures(k["figures"], "%s/%d" % (s["site"], k["position"]))


def all_zero(doc):
    for section in ("program", "ledger"):
        for key, f in doc[section].items():
            expect(f["a"] == f["b"] and (f["a"] is None or f["difference"] == 0), "%s %s: %r" % (section, key, f))
    for s in doc["sites"]:
        expect(s["presence"] == "both" and s["time_difference_ns"] == 0, "site %r" % s["site"])
        for f in s["figures"].values():
            expect(f["a"] == f["b"] and f["difference"] == 0, "site %s: %r" % (s["site"], f))


def csv_rows(text, header):
    rows = list(csv.reader(io.StringIO(text)))
    expect(rows[0] == header, "CSV header %r" % rows[0])
    return rows[1:]


def num(cell):
    return None if cell == "" else float(cell)


def case_help():
    out, _ = expect_exit(0, ["--help"], stream="stdout")
    expect("  compare" in out and "  scaling" in out, "--help does not list compare and scaling")
    expect_exit(0, ["compare", "--help"], "usage: sparkscope-cli compare", "stdout")
    expect_exit(0, ["scaling", "--help"], "usage: sparkscope-cli scaling", "stdout")


def case_usage_errors():
    expect_exit(2, ["compare"], "compare takes two traces")
    expect_exit(2, ["compare", "a"], "compare takes two traces")
    expect_exit(2, ["compare", "a", "b", "c"], "compare takes two traces")
    expect_exit(2, ["compare", "a", "b", "--format", "xml"], "--format must be text, json or csv")
    expect_exit(2, ["scaling"], "scaling needs at least one TRACE")
    expect_exit(2, ["scaling", "a", "--format", "tsv"], "--format must be text, json or csv")
    expect_exit(2, ["compare", "a", "b", "--bogus"], "unknown option --bogus")


def case_demo_json():
    one, two = demo_trace(1), demo_trace(2)
    doc, _ = json_of("compare", one, two)
    check_comparison(doc)
    expect(doc["warnings"] == [], "warnings %r" % doc["warnings"])
    expect(doc["a"]["engines"] == 1 and doc["b"]["engines"] == 2, "engines %r %r" % (doc["a"], doc["b"]))
    p = doc["program"]
    for key in ("conjunction_instances", "sparks_created"):
        expect(p[key]["difference"] == 0 and p[key]["a"] > 0, "%s differs: %r" % (key, p[key]))
    expect(doc["sites"] and all(s["presence"] == "both" for s in doc["sites"]), "sites %r" % doc["sites"])
    # A trace compared with itself: every difference 0.
    same, _ = json_of("compare", two, two)
    check_comparison(same)
    all_zero(same)
    # The CSV has the JSON's numbers, row for row.
    out, _ = expect_exit(0, ["compare", one, two, "--format", "csv"], stream="stdout")
    rows = csv_rows(out, ["section", "id", "presence", "figure", "a", "b", "difference", "ratio"])
    expect(rows[0][:4] == ["run", "path", "both", "path"] and rows[0][4:6] == [one, two], "run row %r" % rows[0])
    seen = 0
    for section, ident, presence, figure, a, b, d, r in rows[1:]:
        if section in ("program", "ledger"):
            f = doc[section][figure]
        elif section == "site":
            f = next(s for s in doc["sites"] if s["site"] == ident)["figures"][figure]
        else:
            site, position = ident.rsplit("/", 1)
            s = next(s for s in doc["sites"] if s["site"] == site)
            f = next(k for k in s["conjuncts"] if k["position"] == int(position))["figures"][figure]
        expect([num(a), num(b), num(d), num(r)] == [f["a"], f["b"], f["difference"], f["ratio"]],
               "CSV %s %s %s: %r against %r" % (section, ident, figure, (a, b, d, r), f))
        seen += 1
    expect(seen == len(doc["program"]) + len(doc["ledger"])
           + sum(len(s["figures"]) + sum(len(k["figures"]) for k in s["conjuncts"]) for s in doc["sites"]),
           "the CSV lacks rows")


def case_demo_text_and_file():
    one, two = demo_trace(1), demo_trace(2)
    out, _ = expect_exit(0, ["compare", one, two], stream="stdout")
    # Durations in the largest unit the longer run lasts at least one of (a demo run: ms), to the ns.
    doc, _ = json_of("compare", one, two)
    longest = max(doc["program"]["range_ns"]["a"], doc["program"]["range_ns"]["b"])
    unit, per, decimals = next(u for u in (("s", 1e9, 6), ("ms", 1e6, 6), ("us", 1e3, 3), ("ns", 1, 0))
                               if longest >= u[1])
    for text in ("A  " + one + ": 1 engine", "B  " + two + ": 2 engines", "Program", "Loss ledger",
                 "Conjunction sites", "Conjuncts", "B - A", "B / A", "wall (%s)" % unit, "span (%s)" % unit,
                 "parfib.cpp:", "engine-" + ("seconds" if unit == "s" else unit)):
        expect(text in out, "the report lacks %r:\n%s" % (text, out[:2000]))
    wall = next(line.split() for line in out.splitlines() if line.startswith("  wall ("))
    expect(wall[2] == "%.*f" % (decimals, doc["program"]["wall_ns"]["a"] / per), "wall A %r, JSON %r"
           % (wall, doc["program"]["wall_ns"]))
    # Aligned: the lines of one table are all as wide.
    tables = [block.splitlines()[1:] for block in out.split("\n\n")[1:]]
    for lines in tables:
        rows = [x for x in lines if x.startswith("  ")]
        expect(len({len(x) for x in rows}) == 1, "a table is not aligned:\n%s" % "\n".join(rows))
    path = scratch("compare.json")
    expect_exit(0, ["compare", one, two, "--format", "json", "-o", path], stream="stdout")
    with open(path) as f:
        check_comparison(json.load(f))


def case_bad_input():
    two = demo_trace(2)
    missing = scratch("missing.eventlog")
    doc, err = json_of("compare", two, missing, code=2)
    expect(missing in err and "cannot open" in err, "stderr does not name the missing trace: %r" % err)
    expect(doc["a"]["read"] and not doc["b"]["read"] and "cannot open" in doc["b"]["error"], "runs %r" % doc["b"])
    expect(doc["program"]["work_ns"]["a"] > 0 and doc["program"]["work_ns"]["b"] is None, "A's figures are gone")
    check_comparison(doc)
    junk = scratch("junk.eventlog")
    with open(junk, "wb") as f:
        f.write(b"not an eventlog at all")
    out, err = expect_exit(2, ["compare", junk, two], stream="stdout")
    expect(junk in err and "NOT READ" in out and "B  " + two in out and "Program" in out, "text: %s" % out[:800])
    # scaling: the traces that read still make the series.
    doc, err = json_of("scaling", two, junk, code=2)
    expect(len(doc["failed"]) == 1 and doc["failed"][0].startswith(junk + ": "), "failed %r" % doc["failed"])
    expect(len(doc["points"]) == 1, "points %r" % doc["points"])
    # A trace with no events (a header and DATA_END) is named, not made the base of the series.
    empty = scratch("empty.eventlog")
    with open(two, "rb") as f:
        data = f.read()
    with open(empty, "wb") as f:
        f.write(data[: data.index(b"datb") + 4] + b"\xff\xff")
    doc, err = json_of("scaling", empty, two, code=2)
    expect(len(doc["failed"]) == 1 and "has no events" in doc["failed"][0], "failed %r" % doc["failed"])
    expect(len(doc["points"]) == 1, "points %r" % doc["points"])


def case_cut_trace_warns():
    # B cut inside an event two thirds of the way in: it reads (exit 0), and every format says the
    # figures are of a cut trace: a warning in the text, on stderr for JSON and CSV, in the JSON's
    # warnings; the same for scaling.
    two = demo_trace(2)
    cut = scratch("cut.eventlog")
    with open(two, "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:
        f.write(data[: len(data) * 2 // 3])
    out, err = expect_exit(0, ["compare", two, cut], stream="stdout")
    expect("warning: B, " + cut + ": reading stopped at byte" in out, "text: %s" % out[:800])
    doc, err = json_of("compare", two, cut)
    expect(any(w.startswith("B, " + cut + ": reading stopped") for w in doc["warnings"]), "warnings %r" % doc["warnings"])
    expect("warning: B, " + cut + ": reading stopped" in err, "stderr: %r" % err)
    out, err = expect_exit(0, ["compare", two, two], stream="stdout")
    expect("warning" not in out and err == "", "a whole trace warns: %s %s" % (out[:400], err))
    doc, err = json_of("scaling", demo_trace(1), cut)
    expect(any(w.startswith(cut + ": reading stopped") for w in doc["warnings"]), "warnings %r" % doc["warnings"])
    expect("warning: " + cut + ": reading stopped" in err, "stderr: %r" % err)


def case_different_programs():
    a = demo_trace(2)
    b = demo_trace(2, ("sumeuler", "--n", "300", "--chunk", "30"))
    out, _ = expect_exit(0, ["compare", a, b], stream="stdout")
    expect("warning: no conjunction site of A matches one of B" in out, "no warning:\n%s" % out[:1500])
    expect("A only" in out and "B only" in out, "sites not marked as one run's:\n%s" % out)
    doc, err = json_of("compare", a, b)
    expect("no conjunction site of A matches" in err, "no warning on stderr: %r" % err)
    check_comparison(doc)
    expect({s["presence"] for s in doc["sites"]} == {"only_a", "only_b"}, "presence %r" % doc["sites"])


def case_scaling_demo():
    one, two = demo_trace(1), demo_trace(2)
    doc, _ = json_of("scaling", two, one)
    expect(list(doc) == ["format_version", "base", "failed", "warnings", "points", "sites"], "keys %r" % list(doc))
    expect(doc["base"] == {"path": one, "engines": 1}, "base %r" % doc["base"])
    points = doc["points"]
    expect([p["engines"] for p in points] == [1, 2], "points %r" % [p["engines"] for p in points])
    base = points[0]
    expect(base["speedup"] == 1 and base["efficiency"] == 1 and base["serial_fraction"] is None, "base %r" % base)
    p = points[1]
    s = base["wall_ns"] / p["wall_ns"]
    expect(close(p["speedup"], s) and close(p["efficiency"], s / 2), "speed-up %r" % p)
    expect(close(p["serial_fraction"], (1 / s - 0.5) / 0.5), "Karp-Flatt %r" % p)
    expect(close(p["work_growth"], p["work_ns"] / base["work_ns"]), "work growth %r" % p)
    for i, point in enumerate(points):
        ledger = point["ledger"]
        expect(ledger["running_ns"] == point["work_ns"], "ledger running != work")
        expect(len(point["predictions"]) == 1, "predictions %r" % point["predictions"])
        pr = point["predictions"][0]
        expect(pr["from"] == points[1 - i]["path"] and pr["from_engines"] == points[1 - i]["engines"], "from %r" % pr)
        expect(close(pr["error"], (pr["wall_ns"] - point["wall_ns"]) / point["wall_ns"]), "error %r" % pr)
    expect(doc["sites"], "no site in both traces")
    for site in doc["sites"]:
        expect([x["engines"] for x in site["points"]] == [1, 2], "site points %r" % site)
        expect(site["points"][0]["speedup"] == 1, "site base %r" % site["points"][0])
    out, _ = expect_exit(0, ["scaling", one, two], stream="stdout")
    for text in ("base parfib-1.eventlog (1 engine)", "speed-up", "serial fr.", "What-if predictions",
                 "Per conjunction site"):
        expect(text in out, "the report lacks %r:\n%s" % (text, out[:2000]))
    out, _ = expect_exit(0, ["scaling", one, two, "--format", "csv"], stream="stdout")
    rows = csv_rows(out, ["section", "id", "engines", "path", "figure", "value"])
    speedups = [num(r[5]) for r in rows if r[0] == "point" and r[4] == "speedup"]
    expect(speedups == [1, p["speedup"]], "CSV speed-ups %r" % speedups)


def case_ghc():
    a = shared("ghc/parfib-12-30.eventlog")
    b = shared("ghc/parfib-8-32.eventlog")
    doc, _ = json_of("compare", a, b)
    check_comparison(doc)
    for key in ("span_ns", "parallelism", "critical_path_ns", "conjunction_instances"):
        expect(doc["program"][key] == {"a": None, "b": None, "difference": None, "ratio": None}, "%s %r"
               % (key, doc["program"][key]))
    expect(doc["sites"] == [] and doc["warnings"] == [], "GHC sites or warnings: %r" % doc)
    expect(doc["program"]["work_ns"]["a"] > 0 and doc["program"]["wall_ns"]["b"] > 0, "GHC work or wall missing")
    doc, err = json_of("scaling", a, b)
    expect(all(p["predictions"] == [] and p["span_ns"] is None for p in doc["points"]), "GHC points %r" % doc)
    expect(any("no span and no predictions" in w for w in doc["warnings"]), "warnings %r" % doc["warnings"])


if __name__ == "__main__":
    sys.exit(cc.main_with_demo(globals()))
