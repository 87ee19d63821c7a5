#!/usr/bin/env python3
"""sparkscope-cli test cases, one per CTest test (`--case NAME`).

Exit codes under test: 0 ok, 1 problems found, 2 unreadable input or bad usage. Cases that need the
shared eventlogs print NOT RUN and pass when ../shared/testdata is absent. Expected numbers come from
../shared/testdata/ghc/sumfib-30-3000.eventlog.counts.txt (ghc-events: 142 events, 31 RunThread, ...)
plus the 3 block markers ghc-events does not list (sparkscope-cli info shows 3 BLOCK_MARKER).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

A = None
SUMFIB = "ghc/sumfib-30-3000.eventlog"


class Failure(Exception):
    pass


def cli(*args, env=None):
    r = subprocess.run([A.cli, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=None if env is None else {**os.environ, **env})
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def expect(cond, message):
    if not cond:
        raise Failure(message)


def expect_exit(code, args, contains=None, stream="stderr", env=None):
    rc, out, err = cli(*args, env=env)
    expect(rc == code, "sparkscope-cli %s: exit %d, expected %d\nstdout: %s\nstderr: %s"
           % (" ".join(args), rc, code, out[:500], err[:500]))
    if contains is not None:
        text = err if stream == "stderr" else out
        expect(contains in text, "sparkscope-cli %s: %s lacks %r: %s" % (" ".join(args), stream, contains, text[:500]))
    return out, err


def shared(rel):
    p = os.path.join(A.testdata, rel)
    if not os.path.exists(p):
        print("NOT RUN: %s is missing (the shared test data is not beside this clone)" % p)
        sys.exit(0)
    return p


def scratch(name):
    os.makedirs(A.scratch, exist_ok=True)
    return os.path.join(A.scratch, name)


def writer_made(name="sumfib.written.eventlog"):
    """sumfib re-encoded by core's writer (sparkscope-cli rewrite)."""
    out = scratch(name)
    expect_exit(0, ["rewrite", shared(SUMFIB), out])
    return out


def tsv_lines(text):
    lines = text.splitlines()
    for line in lines:
        cols = line.split("\t")
        expect(len(cols) == 5, "not 5 TSV columns: %r" % line)
        expect(cols[0].isdigit() and cols[2].isdigit(), "bad time or type column: %r" % line)
        expect(cols[1] == "-" or cols[1].isdigit(), "bad engine column: %r" % line)
    return [line.split("\t") for line in lines]


def case_help():
    out, _ = expect_exit(0, ["--help"], "usage: sparkscope-cli", "stdout")
    for command in ("show", "info", "check"):
        expect("  " + command in out, "--help does not list %s" % command)
    for command in ("show", "info", "check", "rewrite"):
        expect_exit(0, [command, "--help"], "usage: sparkscope-cli " + command, "stdout")


def case_version():
    out, _ = expect_exit(0, ["--version"], "sparkscope-cli ", "stdout")
    expect(out.strip().split(" ")[1][0].isdigit(), "no version number: %r" % out)


def case_usage_errors():
    expect_exit(2, [], "no command given")
    expect_exit(2, ["frobnicate"], "unknown command")
    expect_exit(2, ["show"], "show needs a TRACE")
    expect_exit(2, ["show", "a", "b"], "show takes one TRACE")
    expect_exit(2, ["show", "x.eventlog", "--bogus"], "unknown option --bogus")
    expect_exit(2, ["show", "x.eventlog", "--format"], "needs a value")
    expect_exit(2, ["show", "x.eventlog", "--format", "xml"], "--format must be text or tsv")
    expect_exit(2, ["show", "x.eventlog", "--engine", "two"], "--engine")
    expect_exit(2, ["show", "x.eventlog", "--type", "1,NOT_AN_EVENT"], "NOT_AN_EVENT")
    expect_exit(2, ["show", "x.eventlog", "--from", "-5"], "--from")
    expect_exit(2, ["info"], "info needs a TRACE")
    expect_exit(2, ["check"], "check needs a TRACE")
    expect_exit(2, ["info", "x", "--json=yes"], "unknown option")


def case_missing_file():
    missing = scratch("does-not-exist.eventlog")
    for command in ("show", "info", "check"):
        expect_exit(2, [command, missing], "does-not-exist.eventlog")


def case_wrong_magic():
    bad = scratch("wrong-magic.eventlog")
    with open(bad, "wb") as f:
        f.write(b"this is not an eventlog, just some text\n" * 4)
    for command in ("show", "info", "check"):
        _, err = expect_exit(2, [command, bad], "wrong-magic.eventlog")
        expect("byte" in err, "the error does not say where: %r" % err)
    empty = scratch("empty.eventlog")
    open(empty, "wb").close()
    expect_exit(2, ["show", empty], "empty.eventlog")


def case_truncated():
    whole = writer_made()
    data = open(whole, "rb").read()
    cut = scratch("sumfib.cut.eventlog")
    with open(cut, "wb") as f:
        f.write(data[: len(data) * 2 // 3])
    out, err = expect_exit(0, ["show", "--format", "tsv", cut], "warning")
    rows = tsv_lines(out)
    expect(0 < len(rows) < 145, "a cut file shows %d events" % len(rows))
    out, _ = expect_exit(1, ["check", cut])
    expect("1 problem(s)" in out, "check on a cut file: %r" % out[-300:])
    out, _ = expect_exit(0, ["info", "--json", cut])
    j = json.loads(out)
    expect(j["truncated"] is True and len(j["warnings"]) == 1, "info --json on a cut file: %r" % j)
    expect(j["events"] == len(rows), "info and show disagree on a cut file: %d vs %d" % (j["events"], len(rows)))
    # The commands whose output cannot carry the warning (a rewritten or cut eventlog ends with
    # DATA_END; Chrome JSON) say it on stderr.
    for args in (["rewrite", cut, scratch("rewritten.eventlog")],
                 ["cut", cut, "--from", "0", "--to", "100000000000", "-o", scratch("recut.eventlog")],
                 ["export", cut, "-o", scratch("cut.json")]):
        _, err = expect_exit(0, args, "warning: ")
        expect("cut short" in err or "stopped" in err, "%s says nothing of the cut: %r" % (args[0], err))


def case_show_tsv():
    for path in (shared(SUMFIB), writer_made()):
        out, _ = expect_exit(0, ["show", "--format", "tsv", path])
        rows = tsv_lines(out)
        expect(len(rows) == 145, "%s: %d rows, expected 142 events + 3 block markers" % (path, len(rows)))
        times = [int(r[0]) for r in rows]
        expect(times == sorted(times), "show is not in time order")
        expect(sum(1 for r in rows if r[3] == "RUN_THREAD" and r[2] == "1") == 31, "RUN_THREAD count")
        expect(sum(1 for r in rows if r[3] == "BLOCK_MARKER") == 3, "block markers")
        first = rows[0]
        expect(first[3] == "BLOCK_MARKER" and first[1] == "-" and first[4] == "size=830 end_time=110329248 cap=65535",
               "first row: %r" % first)
        args = [r for r in rows if r[3] == "PROGRAM_ARGS"][0]
        expect(args[4] == "capset=0 arg=./sumfib arg=sumfib arg=30 arg=3000 arg=+RTS arg=-N2 arg=-l arg=-RTS",
               "PROGRAM_ARGS fields: %r" % args[4])


def case_show_filters():
    path = shared(SUMFIB)
    out, _ = expect_exit(0, ["show", "--format", "tsv", "--engine", "0", path])
    rows = tsv_lines(out)
    expect(len(rows) == 60 and all(r[1] == "0" for r in rows), "--engine 0 gave %d rows" % len(rows))
    out, _ = expect_exit(0, ["show", "--format=tsv", "--engine", "-", path])
    rows = tsv_lines(out)
    expect(len(rows) == 39 and all(r[1] == "-" for r in rows), "--engine - gave %d rows" % len(rows))
    out, _ = expect_exit(0, ["show", "--format", "tsv", "--type", "1,STOP_THREAD", path])
    rows = tsv_lines(out)
    expect(len(rows) == 62 and {r[2] for r in rows} == {"1", "2"}, "--type 1,STOP_THREAD gave %d rows" % len(rows))
    out, _ = expect_exit(0, ["show", "--format", "tsv", "--from", "141008", "--to", "144383", path])
    rows = tsv_lines(out)
    # 141008 CAPSET_CREATE, 141195 CAPSET_CREATE, 144230 CAP_CREATE, 144313 and 144383 CAPSET_ASSIGN_CAP
    expect([int(r[0]) for r in rows] == [141008, 141195, 144230, 144313, 144383], "--from/--to: %r" % rows)
    out, _ = expect_exit(0, ["show", "--format", "tsv", "--engine", "7", path])
    expect(out == "", "an engine with no events shows nothing")


def case_show_text():
    out, _ = expect_exit(0, ["show", shared(SUMFIB)])
    lines = out.splitlines()
    expect(len(lines) == 145, "text show: %d lines" % len(lines))
    expect("\t" not in out, "text output contains tabs")
    line = [l for l in lines if " RUN_THREAD " in l][0]
    expect(line.split()[2:] == ["1", "RUN_THREAD", "thread=1"], "text line: %r" % line)
    # Columns line up: the name starts at the same place on every line.
    starts = {l.index(l.split()[3]) for l in lines}
    expect(len(starts) == 1, "names start at columns %r" % starts)


def case_info_json():
    out, _ = expect_exit(0, ["info", "--json", shared(SUMFIB)])
    j = json.loads(out)
    expect(j["events"] == 145 and j["truncated"] is False and j["warnings"] == [], "info: %r" % j)
    counts = {t["name"]: t["count"] for t in j["types"]}
    # From sumfib-30-3000.eventlog.counts.txt (ghc-events), plus the block markers.
    want = {"RUN_THREAD": 31, "STOP_THREAD": 31, "CREATE_THREAD": 8, "TASK_CREATE": 8, "SPARK_COUNTERS": 5,
            "THREAD_LABEL": 5, "HEAP_ALLOCATED": 4, "BLOCK_MARKER": 3, "GC_STATS_GHC": 1}
    for name, count in want.items():
        expect(counts.get(name) == count, "%s: %r, expected %d" % (name, counts.get(name), count))
    expect([e["engine"] for e in j["engines"]] == [0, 1], "engines: %r" % j["engines"])
    expect(j["time_span"]["first_ns"] == 91549 and j["time_span"]["last_ns"] == 110329248, "span %r" % j["time_span"])
    out, _ = expect_exit(0, ["info", shared(SUMFIB)])
    expect("RUN_THREAD" in out and "engines     2" in out, "info text: %r" % out[:400])


def case_check_ok():
    for path in (shared(SUMFIB), writer_made(), shared("ghc-events/testlog.eventlog")):
        out, _ = expect_exit(0, ["check", path])
        expect(" 0 problem(s)" in out, "check %s: %r" % (path, out[-300:]))


def case_check_problems():
    out, _ = expect_exit(1, ["check", shared("ghc-events/testlog-part.eventlog")])
    first = out.splitlines()[0].split(" ", 3)
    expect(first[0].isdigit() and first[1] == "-" and first[2] == "structure:", "problem line: %r" % out)
    expect("1 problem(s)" in out, "summary: %r" % out[-200:])
    # A block marker whose size lies: sumfib's first block (global, 830 bytes) claims 5000, running
    # over the next block marker.
    data = bytearray(open(writer_made(), "rb").read())
    at = data.index(bytes.fromhex("0012") + (91549).to_bytes(8, "big"))
    expect(int.from_bytes(data[at + 10:at + 14], "big") == 830, "did not find the first block marker")
    data[at + 10:at + 14] = (5000).to_bytes(4, "big")
    lie = scratch("lying-block.eventlog")
    open(lie, "wb").write(data)
    out, _ = expect_exit(1, ["check", lie])
    expect("structure:" in out and "problem(s)" in out, "check on a lying block: %r" % out)


def case_rewrite_roundtrip():
    path = shared(SUMFIB)
    written = writer_made()
    expect(open(written, "rb").read() == open(path, "rb").read(), "rewrite of a complete GHC log is not byte-exact")
    a, _ = expect_exit(0, ["show", "--format", "tsv", path])
    b, _ = expect_exit(0, ["show", "--format", "tsv", written])
    expect(a == b, "show differs after rewrite")
    zst = shared("ghc/parfib-5-34.eventlog.zst")
    plain = scratch("parfib-5-34.rewritten.eventlog")
    expect_exit(0, ["rewrite", zst, plain])
    ia, _ = expect_exit(0, ["info", "--json", zst])
    ib, _ = expect_exit(0, ["info", "--json", plain])
    ja, jb = json.loads(ia), json.loads(ib)
    expect(ja["types"] == jb["types"] and ja["engines"] == jb["engines"], "info differs after rewriting a .zst log")
    expect(jb["compression"] == "none" and ja["compression"] == "zstd", "compression: %r %r"
           % (ja["compression"], jb["compression"]))


def case_export_chrome():
    path = shared("ghc/parfib-12-30.eventlog")
    out = scratch("parfib.json")
    expect_exit(0, ["export", "--format", "chrome", path, "-o", out])
    doc = json.load(open(out, encoding="utf-8"))
    events = doc["traceEvents"]
    names = sorted(e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name")
    expect("Engine 0" in names and "Engine 1" in names, "thread names: %r" % names[:6])
    expect(any(n.startswith("Context ") for n in names), "no context tracks: %r" % names)
    expect(any(e["ph"] == "X" and e["name"] == "GC" for e in events), "no GC slice")
    expect(any(e["ph"] == "C" and e["name"] == "CPUs" for e in events), "no CPUs counter")
    # stdout gives the same document; --no-contexts drops the Contexts process.
    text, _ = expect_exit(0, ["export", path])
    expect(text == open(out, encoding="utf-8").read(), "stdout differs from -o FILE")
    text, _ = expect_exit(0, ["export", path, "--no-contexts"])
    expect(all(e["pid"] == 1 for e in json.loads(text)["traceEvents"]), "--no-contexts kept context events")
    expect_exit(2, ["export", "--format", "svg", path], contains="--format must be chrome")
    expect_exit(2, ["export"], contains="export needs a TRACE")
    expect_exit(2, ["export", path, "-o", scratch("no/such/dir/x.json")], contains="cannot")


def case_cut():
    path = shared(SUMFIB)
    out = scratch("sumfib.cut.eventlog")
    expect_exit(2, ["cut", path, "--from", "20", "--to", "10", "-o", out], "--from is after --to")
    expect_exit(2, ["cut", path, "--from", "10", "--to", "20"], "needs -o")
    expect_exit(2, ["cut", path, "--from", "x", "--to", "20", "-o", out], "whole number")
    info = json.loads(expect_exit(0, ["info", "--json", path], stream="stdout")[0])
    first, last = info["time_span"]["first_ns"], info["time_span"]["last_ns"]
    middle = first + (last - first) // 2
    out_text, _ = expect_exit(0, ["cut", path, "--from", str(middle), "--to", str(last), "-o", out])
    expect("state events written to" in out_text, "cut printed %r" % out_text)
    # The cut reads without warnings, keeps the engines, and spans [middle, last].
    cut = json.loads(expect_exit(0, ["info", "--json", out], stream="stdout")[0])
    expect(not cut.get("warnings"), "the cut reads with warnings: %r" % cut.get("warnings"))
    expect(cut["time_span"]["first_ns"] == middle and cut["time_span"]["last_ns"] <= last,
           "the cut spans %r, not [%d, %d]" % (cut["time_span"], middle, last))
    expect(len(cut["engines"]) == len(info["engines"]), "engines: %r vs %r" % (cut["engines"], info["engines"]))
    # Every event of the range is there: `show` of the cut from `middle` on equals the original's.
    a, _ = expect_exit(0, ["show", "--format", "tsv", path])
    b, _ = expect_exit(0, ["show", "--format", "tsv", out])
    inside = sorted(l for l in a.splitlines() if int(l.split("\t")[0]) >= middle and l.split("\t")[2] != "18")
    got = sorted(l for l in b.splitlines() if l.split("\t")[2] != "18")
    missing = [l for l in inside if l not in set(got)]
    expect(not missing, "events of the range missing from the cut: %r" % missing[:3])
    # A range after the last event: a valid cut with no range events, and a note of where the events
    # lie (block markers aside, as the count of range events).
    times = [int(l.split("\t")[0]) for l in a.splitlines() if l.split("\t")[2] != "18"]
    text, err = expect_exit(0, ["cut", path, "--from", str(last + 1000), "--to", str(last + 2000), "-o", out])
    expect(text.startswith("0 events of"), "cut after the end printed %r" % text)
    expect("its events lie in [%d, %d] ns" % (min(times), max(times)) in err, "cut after the end said %r" % err)
    text, err = expect_exit(0, ["cut", path, "--from", str(middle), "--to", str(last), "-o", out])
    expect("note:" not in err, "a cut with events in its range noted %r" % err)
    # The whole trace cut again is read like the original by `check`.
    whole = scratch("sumfib.whole.eventlog")
    expect_exit(0, ["cut", path, "-o", whole])
    expect_exit(0, ["check", whole])


def case_memory_check():
    # sumfib's 145 events, none of them a spark mark, at ~165 bytes each (compactMetricsBytes): 23,925
    # bytes, ~24 kB.
    path = shared(SUMFIB)
    tight = {"SPARKSCOPE_MEMORY_BYTES": "1000"}
    for command in ("metrics", "analyze"):
        _, err = expect_exit(2, [command, path, "-o", os.devnull], "would take about 24 kB of memory", env=tight)
        expect("more than the 1 kB available" in err and "--force" in err and "cut " + path in err,
               "%s's refusal does not say what is available and what to do: %r" % (command, err))
        expect_exit(0, [command, path, "--force", "-o", os.devnull], env=tight)
        # Enough memory: no refusal, no flag needed.
        expect_exit(0, [command, path, "-o", os.devnull], env={"SPARKSCOPE_MEMORY_BYTES": "30000"})
        # A figure that is not a number of bytes is refused, not ignored.
        expect_exit(2, [command, path, "-o", os.devnull], "must be a whole number of bytes, not '4G'",
                    env={"SPARKSCOPE_MEMORY_BYTES": "4G"})


def case_range_outside():
    # sumfib spans 91,549 .. 110,329,248 ns (info): a range after it, or one ending before it starts,
    # has no figures to give and is refused with the trace's span; one that overlaps it is measured.
    path = shared(SUMFIB)
    for command in ("metrics", "analyze"):
        for frm, to in (("200000000", "300000000"), ("0", "91549")):
            _, err = expect_exit(2, [command, path, "--from", frm, "--to", to, "-o", os.devnull], "is outside the trace")
            expect("spans" in err, "%s's refusal does not give the trace's span: %r" % (command, err))
        expect_exit(0, [command, path, "--from", "100000000", "--to", "200000000", "-o", os.devnull])
    # A trace with no events has no span; without a range it is measured (empty figures), not refused.
    empty = scratch("empty.eventlog")
    with open(path, "rb") as f:
        data = f.read()
    datb = data.index(b"datb") + 4
    with open(empty, "wb") as f:
        f.write(data[:datb] + b"\xff\xff")
    for command in ("metrics", "analyze"):
        expect_exit(0, [command, empty, "-o", os.devnull])


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--testdata", required=True)
    ap.add_argument("--scratch", required=True)
    A = ap.parse_args()
    shutil.rmtree(A.scratch, ignore_errors=True)
    try:
        globals()["case_" + A.case]()
    except Failure as f:
        print("FAIL: %s" % f)
        return 1
    print("ok")
    return 0


def main_with_demo(cases):
    """main() for another module's case_<NAME> functions (`cases`: its globals()) that also need
    sparkscope-demo: takes --demo, which main() does not know, into cases["DEMO"] first."""
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--demo", required=True)
    known, rest = ap.parse_known_args()
    cases["DEMO"] = known.demo
    sys.argv = sys.argv[:1] + rest
    for name, case in list(cases.items()):
        if name.startswith("case_"):
            globals()[name] = case
    return main()


if __name__ == "__main__":
    sys.exit(main())
