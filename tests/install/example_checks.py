"""What the install and package tests check about examples/primes, built against an installed
SparkScope: that it links the runtime and nothing of Boost or TBB, that it runs, and that its trace
holds what the program does (worked out from examples/primes/main.cpp, not from a run):

- one conjunction at the future's call site (sieve & count) and 31 at the divide-and-conquer site
  (1,000,000 numbers halved down to 32 leaves of 31,250: a binary tree with 32 leaves has 31 inner
  nodes), so 32 MER_START_PAR_CONJ and 32 MER_END_PAR_CONJ; 64 conjuncts (two per conjunction);
- one future, "small_primes": one MER_FUT_CREATE, one MER_FUT_SIGNAL and one wait (suspended or
  not, whichever the schedule gave);
- one USER_MARKER ("counting").
"""
import json
import os
import re
import subprocess

CONJUNCTIONS = 32
SPLIT_SITE_INSTANCES = 31
FUTURE_SITE_INSTANCES = 1


class Failure(Exception):
    pass


def expect(cond, message):
    if not cond:
        raise Failure(message)


def run(args, env=None, cwd=None, timeout=300):
    """Runs a command; returns (exit code, stdout, stderr) as text."""
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd, timeout=timeout)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def run_ok(args, what, **kw):
    rc, out, err = run(args, **kw)
    expect(rc == 0, "%s failed (exit %d): %s\nstdout: %s\nstderr: %s" % (what, rc, " ".join(args), out[-2000:], err[-2000:]))
    return out


def parconj_lines(source):
    """The line numbers of the two parConj calls in main.cpp: the future's and the split's."""
    lines = open(source).read().splitlines()
    calls = [i + 1 for i, line in enumerate(lines) if "rt::parConj(" in line]
    expect(len(calls) == 2, "main.cpp should hold two rt::parConj calls, found lines %s" % calls)
    split = [n for n in calls if "countRange" in lines[n - 1]]
    expect(len(split) == 1, "no rt::parConj line calls countRange in %s" % source)
    return [n for n in calls if n != split[0]][0], split[0]


def check_needed_libraries(binary):
    """The example's ELF needs libsparkscope-runtime and none of the runtime's own dependencies."""
    out = run_ok(["readelf", "-d", binary], "readelf")
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    expect(any(n.startswith("libsparkscope-runtime.so") for n in needed),
           "%s does not need libsparkscope-runtime: %s" % (binary, needed))
    leaked = [n for n in needed if re.match(r"lib(boost|tbb|zstd)", n)]
    expect(not leaked, "%s links %s itself; the runtime should carry them" % (binary, leaked))
    print("ok: %s needs %s" % (os.path.basename(binary), ", ".join(needed)))


def run_example(binary, trace, lib_dir):
    """Runs the example on two engines, tracing to `trace`."""
    env = dict(os.environ)
    if lib_dir:
        env["LD_LIBRARY_PATH"] = lib_dir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    env.pop("SPARKSCOPE_TRACE", None)
    if os.path.exists(trace):
        os.remove(trace)
    out = run_ok([binary, trace, "--engines", "2"], "the example", env=env)
    expect("78498 primes below 1000000 on 2 engines" in out, "unexpected output: %r" % out)
    expect(os.path.getsize(trace) > 0, "the example wrote no trace to %s" % trace)
    print("ok: " + out.strip())


def check_trace(cli, trace, source):
    """Reads the example's trace with `cli` (an installed sparkscope-cli): check, info, metrics."""
    run_ok([cli, "check", trace], "sparkscope-cli check")

    info = json.loads(run_ok([cli, "info", trace, "--json"], "sparkscope-cli info"))
    counts = {t["name"]: t["count"] for t in info["types"]}
    want = {"MER_START_PAR_CONJ": CONJUNCTIONS, "MER_END_PAR_CONJ": CONJUNCTIONS, "MER_FUT_CREATE": 1,
            "MER_FUT_SIGNAL": 1, "USER_MARKER": 1}
    for name, n in want.items():
        expect(counts.get(name, 0) == n, "%s: %d %s events, expected %d" % (trace, counts.get(name, 0), name, n))
    waits = counts.get("MER_FUT_WAIT_NOSUSPEND", 0) + counts.get("MER_FUT_WAIT_SUSPENDED", 0)
    expect(waits == 1, "%s: %d waits on the future, expected 1" % (trace, waits))
    engines = [e for e in info["engines"] if e["engine"] != "-"]
    expect(len(engines) == 2, "%s: %d engines, expected 2: %s" % (trace, len(engines), info["engines"]))

    metrics = json.loads(run_ok([cli, "metrics", trace], "sparkscope-cli metrics"))
    future_line, split_line = parconj_lines(source)
    by_line = {}
    for site, c in metrics["conjunctions"].items():  # keyed by static id, "main.cpp:LINE:COLUMN"
        m = re.search(r"main\.cpp:(\d+):\d+$", site)
        expect(m, "conjunction site %r is not in main.cpp" % site)
        by_line[int(m.group(1))] = c
    expect(set(by_line) == {future_line, split_line},
           "conjunction sites at main.cpp lines %s, expected %s" % (sorted(by_line), [future_line, split_line]))
    for line, instances in ((future_line, FUTURE_SITE_INSTANCES), (split_line, SPLIT_SITE_INSTANCES)):
        got = by_line[line]["INSTANCES"]
        expect(got == {"complete": instances, "incomplete": 0},
               "main.cpp:%d: instances %s, expected %d complete" % (line, got, instances))
    futures = list(metrics["futures"])  # keyed by "<static id>/<variable>"
    expect(len(futures) == 1 and futures[0].endswith("/small_primes"),
           "expected the one future small_primes in the metrics, got %s" % futures)
    print("ok: %s: check passes; %d conjunctions (main.cpp:%d x%d, main.cpp:%d x%d), future small_primes"
          % (os.path.basename(trace), CONJUNCTIONS, future_line, FUTURE_SITE_INSTANCES, split_line,
             SPLIT_SITE_INSTANCES))
