#!/usr/bin/env python3
"""`sparkscope-cli cut` read by the ghc-events library (evdump, ../shared/tools/ghc-events-dump).

For each shared GHC eventlog (and a trace of SparkScope's own runtime when --demo is given), cuts
the middle third of its events and checks with evdump that:
  - evdump reads the cut without an error;
  - every event evdump lists for the original inside the range is in the cut's dump, with the same
    time, capability and fields (the lines are compared whole, as multisets);
  - the cut's dump has exactly as many more events as `cut` said it wrote state events, all at
    the range's start.
Prints NOT RUN and passes when evdump is missing (ghc or libghc-ghc-events-dev not installable).
"""
import collections
import os
import re
import subprocess
import sys

import compare_with_ghc_events  # for parse_args: the arguments both checks against ghc-events take

FILES = ["ghc/sumfib-30-3000.eventlog", "ghc/parfib-12-30.eventlog", "ghc/parfib-8-32.eventlog",
         "ghc-events/hello-ghc-8.6.5.eventlog"]


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def dump(evdump, path):
    r = run([evdump, path])
    if r.returncode != 0:
        raise RuntimeError("evdump cannot read %s: %s" % (path, (r.stdout + r.stderr).decode(errors="replace")[:400]))
    return r.stdout.decode(errors="replace").splitlines()


def check_file(a, path, name):
    try:
        original = dump(a.evdump, path)
    except RuntimeError as e:
        return [str(e)]
    # The middle third of the events (by count, so the range is never empty, whatever the timing).
    times = sorted(int(l.split(" ", 1)[0]) for l in original)
    start, end = times[len(times) // 3], times[2 * len(times) // 3]
    out = os.path.join(a.scratch, name + ".cut.eventlog")
    r = run([a.cli, "cut", path, "--from", str(start), "--to", str(end), "-o", out])
    if r.returncode != 0:
        return ["cut failed: %s" % r.stderr.decode(errors="replace")]
    m = re.match(r"(\d+) events of .* and (\d+) state events", r.stdout.decode())
    if not m:
        return ["cut printed %r" % r.stdout.decode()]
    range_count, state_count = int(m.group(1)), int(m.group(2))
    try:
        cut = dump(a.evdump, out)
    except RuntimeError as e:
        return [str(e)]
    inside = collections.Counter(l for l in original if start <= int(l.split(" ", 1)[0]) <= end)
    got = collections.Counter(cut)
    failures = []
    if not inside:
        failures.append("no event lies in [%d, %d]: the check would prove nothing" % (start, end))
    missing = inside - got
    if missing:
        failures.append("%d events of the range are not in the cut, e.g. %r" % (sum(missing.values()), next(iter(missing))))
    extra = got - inside
    if sum(extra.values()) != state_count:
        failures.append("the cut has %d events beyond the range, cut reported %d state events"
                        % (sum(extra.values()), state_count))
    if any(int(l.split(" ", 1)[0]) != start for l in extra):
        failures.append("state events not at the range's start: %r" % [l for l in extra][:3])
    print("  [%d, %d]: %d range events (cut says %d), %d state events: %s"
          % (start, end, sum(inside.values()), range_count, state_count, "ok" if not failures else "DIFFERENT"))
    return failures


def main():
    a = compare_with_ghc_events.parse_args(lambda ap: ap.add_argument(
        "--demo", help="sparkscope-demo, to cut a trace of SparkScope's runtime too"))
    if a is None:
        return 0
    os.makedirs(a.scratch, exist_ok=True)
    paths = []
    for rel in FILES:
        p = os.path.join(a.testdata, rel)
        if os.path.exists(p):
            paths.append((p, os.path.basename(rel)))
        else:
            print("NOT RUN for %s: the shared test data is missing" % p)
    if a.demo and os.path.exists(a.demo):
        demo = os.path.join(a.scratch, "parfib.eventlog")
        r = run([a.demo, "parfib", "--n", "26", "--cutoff", "14", "--engines", "2", "--trace", demo])
        if r.returncode != 0:
            print("FAIL: the demo failed: %s" % r.stderr.decode(errors="replace"))
            return 1
        paths.append((demo, "demo-parfib"))
    failed = 0
    for path, name in paths:
        print(name)
        failures = check_file(a, path, name)
        for f in failures:
            print("  FAIL: " + f)
        failed += bool(failures)
    print("%d file(s) cut and read by ghc-events, %d differ" % (len(paths), failed))
    return 1 if failed or not paths else 0


if __name__ == "__main__":
    sys.exit(main())
