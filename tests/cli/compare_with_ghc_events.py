#!/usr/bin/env python3
"""Cross-checks sparkscope-cli against the ghc-events library (evdump, ../shared/tools/ghc-events-dump).

For every shared eventlog evdump can parse:
  1. `sparkscope-cli show --format tsv` and `evdump` list the same events (block markers aside, which
     ghc-events does not report): the same number, the same sorted list of times, and the same count
     per type. ghc-events names events by constructor, so names are mapped to numbers by pairing the
     two time-sorted lists; every name must map to exactly one number, and the well-known ones to
     their documented numbers.
  2. `sparkscope-cli rewrite` (core's writeTrace) makes a file evdump parses to exactly the same dump.
Prints NOT RUN and passes when evdump is missing (ghc or libghc-ghc-events-dev not installable).
"""
import argparse
import collections
import os
import shutil
import subprocess
import sys

# A few ghc-events constructor names and the numbers eventlog-format.md gives them.
WELL_KNOWN = {
    "CreateThread": 0, "RunThread": 1, "StopThread": 2, "ThreadRunnable": 3, "MigrateThread": 4,
    "WakeupThread": 8, "StartGC": 9, "EndGC": 10, "RequestSeqGC": 11, "RequestParGC": 12,
    "CreateSparkThread": 15, "GCIdle": 20, "GCWork": 21, "GCDone": 22, "CapsetCreate": 25, "CapsetAssignCap": 27, "SparkCounters": 34,
    "CapsetDelete": 26, "CapsetRemoveCap": 28, "OsProcessPid": 32, "WallClockTime": 43, "CapCreate": 45,
    "CapDelete": 46, "HeapAllocated": 49, "HeapSize": 50, "HeapLive": 51, "GCStatsGHC": 53, "GlobalSyncGC": 54,
    "TaskCreate": 55, "UserMarker": 58, "TickyCounterDef": 210, "TickyCounterSample": 211, "TickyBeginSample": 212,
}
BLOCK_MARKER = 18
# Larger than this (uncompressed) is skipped: the comparison would take minutes, not seconds.
# SPARKSCOPE_COMPARE_ALL=1 compares every file (parfib-4-37 too).
MAX_BYTES = float("inf") if os.environ.get("SPARKSCOPE_COMPARE_ALL") == "1" else 40 * 1024 * 1024


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def evdump_events(evdump, path):
    r = run([evdump, path])
    if r.returncode != 0:
        return None, r.stdout.decode(errors="replace").strip() + r.stderr.decode(errors="replace").strip()
    events = []
    for line in r.stdout.decode(errors="replace").splitlines():
        time, _cap, spec = line.split(" ", 2)
        name = spec.split(" ", 1)[0]
        if name == "UnknownEvent":  # "UnknownEvent {ref = 114}"
            name = "UnknownEvent:" + spec.split("ref = ", 1)[1].split("}", 1)[0]
        events.append((int(time), name))
    return events, r.stdout


def sparkscope_events(cli, path):
    r = run([cli, "show", "--format", "tsv", path])
    if r.returncode != 0:
        raise RuntimeError("sparkscope-cli show failed on %s: %s" % (path, r.stderr.decode(errors="replace")))
    events = []
    for line in r.stdout.decode(errors="replace").splitlines():
        cols = line.split("\t")
        if len(cols) != 5:
            raise RuntimeError("not a 5-column TSV line in the output for %s: %r" % (path, line))
        if int(cols[2]) != BLOCK_MARKER:
            events.append((int(cols[0]), int(cols[2])))
    return events


def compare(cli, evdump, path, scratch):
    """Returns a list of failure messages (empty when all agree) or None when evdump cannot read it."""
    ref, raw = evdump_events(evdump, path)
    if ref is None:
        print("  skipped: evdump cannot read it (%s)" % raw[:200])
        return None
    ours = sparkscope_events(cli, path)
    failures = []
    if len(ours) != len(ref):
        failures.append("event counts differ: sparkscope %d, ghc-events %d" % (len(ours), len(ref)))
    if sorted(t for t, _ in ours) != sorted(t for t, _ in ref):
        failures.append("the sorted event times differ")
    # Pair events with a unique time to learn the name -> number mapping.
    by_time_ours = collections.defaultdict(list)
    by_time_ref = collections.defaultdict(list)
    for t, n in ours:
        by_time_ours[t].append(n)
    for t, n in ref:
        by_time_ref[t].append(n)
    # Events sharing a time are paired by elimination: drop the names already mapped (and their
    # numbers) and pair what is left when one event remains on each side; repeat until stable.
    mapping = collections.defaultdict(set)
    known = dict(WELL_KNOWN)  # name -> number: the documented numbers, then what unique pairings teach
    changed = True
    while changed:
        changed = False
        for t, names in by_time_ref.items():
            left_ref = list(names)
            left_ours = list(by_time_ours.get(t, []))
            for name in list(left_ref):
                if name in known and known[name] in left_ours:
                    left_ref.remove(name)
                    left_ours.remove(known[name])
            if len(left_ref) == 1 and len(left_ours) == 1:
                name, number = left_ref[0], left_ours[0]
                if number not in mapping[name]:
                    mapping[name].add(number)
                    changed = True
                known.setdefault(name, number)
    for name, numbers in mapping.items():
        if len(numbers) != 1:
            failures.append("ghc-events' %s pairs with several sparkscope types: %s" % (name, sorted(numbers)))
        elif name in WELL_KNOWN and WELL_KNOWN[name] not in numbers:
            failures.append("ghc-events' %s pairs with type %s, not %d" % (name, sorted(numbers), WELL_KNOWN[name]))
        elif name.startswith("UnknownEvent:") and int(name.split(":")[1]) not in numbers:
            failures.append("ghc-events' %s pairs with type %s" % (name, sorted(numbers)))
    ref_counts = collections.Counter(n for _, n in ref)
    our_counts = collections.Counter(n for _, n in ours)
    for name, count in sorted(ref_counts.items()):
        numbers = mapping.get(name) or ({WELL_KNOWN[name]} if name in WELL_KNOWN else None)
        if not numbers or len(numbers) != 1:
            if not numbers:
                failures.append("no event of ghc-events' kind %s could be paired by time" % name)
            continue
        number = next(iter(numbers))
        if our_counts[number] != count:
            failures.append("%s: ghc-events counts %d, sparkscope counts %d of type %d"
                            % (name, count, our_counts[number], number))
    # The writer's output must parse with ghc-events to the very same dump.
    rewritten = os.path.join(scratch, os.path.basename(path) + ".rewritten")
    r = run([cli, "rewrite", path, rewritten])
    if r.returncode != 0:
        failures.append("sparkscope-cli rewrite failed: %s" % r.stderr.decode(errors="replace"))
    else:
        again = run([evdump, rewritten])
        if again.returncode != 0:
            failures.append("evdump cannot read the rewritten file: %s" % again.stdout.decode(errors="replace")[:300])
        elif again.stdout != raw:
            failures.append("evdump reads the rewritten file differently from the original")
    print("  %d events, %d kinds: %s" % (len(ref), len(ref_counts), "ok" if not failures else "DIFFERENT"))
    return failures


def parse_args(more=lambda ap: None):
    """The arguments of the checks against ghc-events (`more` adds a script's own); None, having
    said NOT RUN, when evdump was not built."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--evdump", required=True)
    ap.add_argument("--testdata", required=True)
    ap.add_argument("--scratch", required=True)
    more(ap)
    a = ap.parse_args()
    if not (os.path.isfile(a.evdump) and os.access(a.evdump, os.X_OK)):
        print("NOT RUN: %s was not built (needs ghc and libghc-ghc-events-dev)" % a.evdump)
        return None
    return a


def main():
    a = parse_args()
    if a is None:
        return 0
    if not os.path.isdir(a.testdata):
        print("NOT RUN: %s is missing (the shared test data is not beside this clone)" % a.testdata)
        return 0
    os.makedirs(a.scratch, exist_ok=True)
    files = []
    for sub in ("ghc-events", "ghc"):
        d = os.path.join(a.testdata, sub)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if name.endswith(".eventlog") or name.endswith(".eventlog.zst"):
                files.append(os.path.join(d, name))
    failed = 0
    compared = 0
    for path in files:
        print(os.path.relpath(path, a.testdata))
        if path.endswith(".zst"):
            if not shutil.which("zstd"):
                print("  skipped: zstd is not installed to decompress it for evdump")
                continue
            plain = os.path.join(a.scratch, os.path.basename(path)[:-4])
            r = run(["zstd", "-d", "-q", "-f", path, "-o", plain])
            if r.returncode != 0:
                print("  skipped: zstd failed")
                continue
            path = plain
        if os.path.getsize(path) > MAX_BYTES:
            print("  skipped: larger than %d MB (too slow for a test; SPARKSCOPE_COMPARE_ALL=1 compares it)"
                  % (MAX_BYTES // (1 << 20)))
            continue
        failures = compare(a.cli, a.evdump, path, a.scratch)
        if failures is None:
            continue
        compared += 1
        for f in failures:
            print("  FAIL: " + f)
        failed += bool(failures)
    print("%d file(s) compared with ghc-events, %d differ" % (compared, failed))
    return 1 if failed or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
