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


def parconj_spans(source):
    """The line spans [first, last] of the two parConj calls in main.cpp: the future's and the
    split's. A conjunction's site is the call's std::source_location, which GCC puts at the call's
    closing parenthesis: the last line of a call written over several lines."""
    lines = open(source).read().splitlines()
    spans = []
    for i, line in enumerate(lines):
        if "rt::parConj(" not in line:
            continue
        depth, j = 0, i
        while True:
            code = lines[j].split("//")[0][lines[j].index("rt::parConj(") if j == i else 0:]
            depth += code.count("(") - code.count(")")
            if depth <= 0:
                break
            j += 1
        spans.append((i + 1, j + 1, "countRange" in line))
    expect(len(spans) == 2, "main.cpp should hold two rt::parConj calls, found %s" % spans)
    split = [s[:2] for s in spans if s[2]]
    expect(len(split) == 1, "no rt::parConj line calls countRange in %s" % source)
    return [s[:2] for s in spans if not s[2]][0], split[0]


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
    future_span, split_span = parconj_spans(source)
    sites = {}
    for site, c in metrics["conjunctions"].items():  # keyed by static id, "main.cpp:LINE:COLUMN"
        m = re.search(r"main\.cpp:(\d+):\d+$", site)
        expect(m, "conjunction site %r is not in main.cpp" % site)
        line = int(m.group(1))
        call = [span for span in (future_span, split_span) if span[0] <= line <= span[1]]
        expect(call, "conjunction site %s is on no parConj call of main.cpp (lines %s and %s)"
               % (site, future_span, split_span))
        sites[call[0]] = (site, c["INSTANCES"])
    expect(len(sites) == 2, "conjunction sites %s, expected one per parConj call" % list(metrics["conjunctions"]))
    for span, instances in ((future_span, FUTURE_SITE_INSTANCES), (split_span, SPLIT_SITE_INSTANCES)):
        site, got = sites[span]
        expect(got == {"complete": instances, "incomplete": 0},
               "%s: instances %s, expected %d complete" % (site, got, instances))
    futures = list(metrics["futures"])  # keyed by "<static id>/<variable>"
    expect(len(futures) == 1 and futures[0].endswith("/small_primes"),
           "expected the one future small_primes in the metrics, got %s" % futures)
    expect(metrics["futures"][futures[0]]["INSTANCES"] == {"complete": 1, "incomplete": 0},
           "the future: %s" % metrics["futures"][futures[0]]["INSTANCES"])
    print("ok: %s: check passes; %d conjunctions (%s x%d, %s x%d), the future %s"
          % (os.path.basename(trace), CONJUNCTIONS, sites[future_span][0], FUTURE_SITE_INSTANCES,
             sites[split_span][0], SPLIT_SITE_INSTANCES, futures[0]))
