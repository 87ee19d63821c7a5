#!/usr/bin/env python3
"""File > Compare With… driven like a person would, in the real app under Xvfb (xdotool), against the CLI.

Records `sparkscope-demo parfib` on 1 and on 2 engines in --out (parfib-1.eventlog, parfib-2.eventlog),
opens the first in the real `sparkscope` (SPARKSCOPE_REPORT_READY=1: ui/panels/ready_report.h), and
through the File menu (Alt+F, W) and its file dialog compares it with the second. Checks, each by
waiting for the app's next report that has what is checked (no fixed sleeps):
  - B's timeline is stacked under A's: same left edge, plot left and width, below A's;
  - the axes are aligned: B's window is A's mapped through the reported alignment (at the start);
  - the Summary's A, B, B − A of every program and ledger figure, and the Conjunctions list's covered
    and mean times of every site, equal `sparkscope-cli compare A B --format json` (the covered difference
    of a site one run lacks: the other's covered time, signed, as the CLI's time_difference_ns);
  - zoom is shared: "+" on A's timeline zooms both, "-" on B's zooms both back out;
  - a B that does not read (a text file) is named with the CLI's reason, and A is still shown with
    its figures (B's absent);
  - a B of another program (`sparkscope-demo quicksort`) shows the CLI's warning that no site matches,
    and the Conjunctions list has a row for each of B's sites (only in B), equal to the CLI's too;
  - the screenshots are not blank.
Images (in --out; with --docs also copied there under the names the user guide uses):
  compare-stacked.png  A over B, aligned at the start, the Summary's comparison table
  compare-window.png   the comparison's own window (program figures, ledger, sites)
  compare-only-b.png   A over a B of another program, the Conjunctions list with B's site as a row

  compare_xvfb_shots.py --app PATH --cli PATH --demo PATH --out DIR [--docs DIR]
Exit status 0 = all checks passed, or NOT RUN when xvfb-run, xdotool or xwd is missing.
"""
import argparse
import json
import os
import queue
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import panels_xvfb_shots as px  # noqa: E402  (the App, xwd and PNG helpers)

SCREEN = px.SCREEN
TIMEOUT = 300  # seconds to wait for any one condition: generous, the machine may be busy


def parse(lines):
    out = {"tabs": {}, "summary": {}, "sites": {}, "timelines": {}}
    for line in lines:
        f = line.split()
        if f[0] == "timeline":
            out["timeline"] = [int(v) for v in f[1:5]]
        elif f[0] == "tab":
            out["tabs"][" ".join(f[3:])] = (int(f[1]), int(f[2]))
        elif f[:2] == ["compare", "header"]:
            out["header"] = line.split(" ", 2)[2]
        elif f[:2] == ["compare", "timeline"]:
            out["timelines"][f[2]] = {"rect": [int(v) for v in f[3:7]], "left": float(f[8]), "width": float(f[9]),
                                      "start": int(f[10]), "end": int(f[11])}
        elif f[:2] == ["compare", "map"]:
            out["map"] = (int(f[2]), int(f[3]), float(f[4]))
        elif f[:2] == ["compare", "summary"]:
            out["summary"][f[2]] = [None if v == "-" else float(v) for v in f[3:6]]
        elif f[:2] == ["compare", "site"]:
            out["sites"][f[2]] = [None if v == "-" else float(v) for v in f[3:9]]
    return out


def wait_report(app, condition, what, timeout=TIMEOUT):
    """Reads the app's reports until one satisfies `condition` (parsed); fails after `timeout` s."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        lines = []
        while True:
            try:
                line = app.lines.get(timeout=max(0.1, deadline - time.time()))
            except queue.Empty:
                break
            if line is None:
                raise RuntimeError(f"the app exited (status {app.proc.wait()}) while waiting for {what}")
            if not line.startswith(px.READY):
                continue
            rest = line[len(px.READY):]
            if rest == "done":
                break
            lines.append(rest)
        if not lines:
            continue
        last = parse(lines)
        if condition(last):
            return last
    raise RuntimeError(f"timed out waiting for {what}; last report: {last}")


def xdotool_out(*args):
    return subprocess.run(["xdotool"] + [str(a) for a in args], check=True, timeout=TIMEOUT, capture_output=True,
                          text=True).stdout.split()


def compare_with(path, a_name, focus_at):
    """A click at `focus_at` (A's timeline: the keyboard goes to the main window), File > Compare With…
    (Alt+F, W), then the path typed into the file dialog."""
    px.xdotool("mousemove", *focus_at)
    px.xdotool("click", 1)
    px.xdotool("key", "alt+f")
    px.xdotool("key", "w")
    wid = xdotool_out("search", "--sync", "--onlyvisible", "--name", f"Compare {a_name} with")[0]
    px.xdotool("windowfocus", "--sync", wid)
    px.xdotool("type", "--delay", "5", path)
    px.xdotool("key", "Return")
    return wid


def close_result_windows():
    """Unmaps the comparison's own windows (titled "Compare: A …"): without a window manager they
    lie over the main window."""
    r = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "^Compare: "], capture_output=True, text=True,
                       timeout=60)
    for wid in r.stdout.split():
        px.xdotool("windowunmap", "--sync", wid)


def same(x, y):
    if x is None or y is None:
        return x is None and y is None
    return abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))


def check_figures(report, cli):
    """The docks' A, B, B − A against the CLI's JSON: (ok, figures compared)."""
    ok, n = True, 0
    for section in ("program", "ledger"):
        for key, fig in cli[section].items():
            got = report["summary"].get(key)
            want = [fig["a"], fig["b"], fig["difference"]]
            if got is None or not all(same(g, w) for g, w in zip(got, want)):
                print(f"  summary {key}: app {got}, CLI {want} -> DIFFERENT")
                ok = False
            n += 1
    for site in cli["sites"]:  # every site, those of B only too (rows after A's)
        got = report["sites"].get(site["site"])
        f = site["figures"]
        want = [f["covered_ns"][k] for k in ("a", "b", "difference")] + \
            [f["time_mean_ns"][k] for k in ("a", "b", "difference")]
        if site["presence"] != "both":  # the covered difference counts the run without the site as 0
            want[2] = (f["covered_ns"]["b"] or 0) - (f["covered_ns"]["a"] or 0)
            if abs(want[2]) != site["time_difference_ns"]:
                print(f"  site {site['site']}: the CLI's time difference {site['time_difference_ns']} is not "
                      f"|{want[2]}|")
                ok = False
        if got is None or not all(same(g, w) for g, w in zip(got, want)):
            print(f"  site {site['site']}: app {got}, CLI {want} -> DIFFERENT")
            ok = False
        n += 6
    return ok, n


def aligned(report):
    """B's window is A's mapped, and B's plot lies exactly under A's."""
    a, b = report["timelines"]["a"], report["timelines"]["b"]
    a_anchor, b_anchor, scale = report["map"]
    to_b = lambda t: b_anchor + round((t - a_anchor) * scale)  # noqa: E731
    return (b["start"] == to_b(a["start"]) and b["end"] == to_b(a["end"]) and a["left"] == b["left"]
            and a["width"] == b["width"] and a["rect"][0] == b["rect"][0] and a["rect"][2] == b["rect"][2]
            and b["rect"][1] >= a["rect"][1] + a["rect"][3])


def cli_compare(cli, a, b):
    r = subprocess.run([cli, "compare", a, b, "--format", "json"], capture_output=True, text=True, timeout=TIMEOUT)
    return json.loads(r.stdout)


def inner(a):
    ok = True
    traces = {}
    for name, args in {"parfib-1": ["parfib", "--n", "30", "--cutoff", "10", "--engines", "1"],
                       "parfib-2": ["parfib", "--n", "30", "--cutoff", "10", "--engines", "2"],
                       "quicksort-2": ["quicksort", "--engines", "2"]}.items():
        traces[name] = os.path.join(a.out, name + ".eventlog")
        r = subprocess.run([a.demo] + args + ["--trace", traces[name]], capture_output=True, text=True,
                           timeout=TIMEOUT)
        if r.returncode != 0:
            print(f"sparkscope-demo {' '.join(args)} failed: {r.stderr.strip()[-300:]}")
            return 1
    broken = os.path.join(a.out, "broken.eventlog")
    with open(broken, "w") as f:
        f.write("this is not an eventlog\n")
    A = traces["parfib-1"]
    cli = cli_compare(a.cli, A, traces["parfib-2"])
    app = px.App(a.app, A, [], config=os.path.join(a.out, "config"))
    shots = {}

    def grab_with_tab(rep, tab, whole, stem, what):
        """Shows the dock's `tab`, then zooms A in and back to fit (`whole` ns), whose reports come
        after the tab is painted, and grabs the screen as `stem`."""
        if tab in rep["tabs"]:
            px.xdotool("mousemove", *rep["tabs"][tab])
            px.xdotool("click", 1)
        ta = rep["timelines"]["a"]["rect"]
        px.xdotool("mousemove", ta[0] + ta[2] // 2, ta[1] + ta[3] // 2)
        px.xdotool("click", 1)
        px.xdotool("key", "plus")
        wait_report(app, lambda r: "b" in r["timelines"] and span(r, "a") < whole, f"A zoomed in {what}")
        px.xdotool("key", "ctrl+0")
        wait_report(app, lambda r: "b" in r["timelines"] and span(r, "a") >= whole, f"zoomed to fit {what}")
        px.xdotool("mousemove", SCREEN[0] - 5, SCREEN[1] - 5)
        return px.grab(a.out, stem)

    try:
        first = wait_report(app, lambda r: "timeline" in r, "the trace on screen")
        t = first["timeline"]
        centre_a = (t[0] + t[2] // 4, t[1] + t[3] // 4)  # inside A's timeline, stacked or not
        compare_with(traces["parfib-2"], "parfib-1.eventlog", centre_a)
        rep = wait_report(app, lambda r: "b" in r["timelines"] and r["summary"] and r["sites"],
                          "B's timeline and the compared figures")
        good, n = check_figures(rep, cli)
        print(f"  docks' A, B, B − A: {n} figures against sparkscope-cli compare -> {'EQUAL' if good else 'DIFFERENT'}")
        ok &= good
        good = aligned(rep)
        print(f"  stacked: A {rep['timelines']['a']}, B {rep['timelines']['b']}, map {rep['map']} -> "
              f"{'ALIGNED' if good else 'NOT ALIGNED'}")
        ok &= good

        # The comparison's own window, then out of the way (no window manager: it covers the main one).
        wid = xdotool_out("search", "--sync", "--onlyvisible", "--name", "^Compare: ")[0]
        xwd = os.path.join(a.out, "compare-window.xwd")
        subprocess.run(["xwd", "-id", wid, "-silent", "-out", xwd], check=True, timeout=60)
        shots["window"] = px.read_xwd(xwd)
        os.remove(xwd)
        close_result_windows()

        # Zoom shared: "+" on A's timeline, then "-" on B's.
        ta, tb = rep["timelines"]["a"]["rect"], rep["timelines"]["b"]["rect"]
        span = lambda r, k: r["timelines"][k]["end"] - r["timelines"][k]["start"]  # noqa: E731
        whole = span(rep, "a")
        px.xdotool("mousemove", ta[0] + ta[2] // 2, ta[1] + ta[3] // 2)
        px.xdotool("click", 1)
        px.xdotool("key", "plus")
        zin = wait_report(app, lambda r: "b" in r["timelines"] and span(r, "a") < whole, "A zoomed in")
        good = aligned(zin) and span(zin, "b") < whole
        print(f"  '+' on A: A spans {span(zin, 'a')} ns (was {whole}), B {span(zin, 'b')} ns -> "
              f"{'BOTH ZOOMED' if good else 'NOT SHARED'}")
        ok &= good
        px.xdotool("mousemove", tb[0] + tb[2] // 2, tb[1] + tb[3] // 2)
        px.xdotool("click", 1)
        px.xdotool("key", "minus")
        zout = wait_report(app, lambda r: "b" in r["timelines"] and span(r, "a") > span(zin, "a"), "B zoomed out")
        good = aligned(zout)
        print(f"  '-' on B: A spans {span(zout, 'a')} ns, B {span(zout, 'b')} ns -> "
              f"{'BOTH ZOOMED' if good else 'NOT SHARED'}")
        ok &= good
        fit = zout
        if span(zout, "a") < whole:  # zooming out may land on the whole trace already: no change, no report
            px.xdotool("key", "ctrl+0")
            fit = wait_report(app, lambda r: "b" in r["timelines"] and span(r, "a") >= whole, "zoomed to fit")
        shots["stacked"] = grab_with_tab(fit, "Summary", whole, "compare-1-stacked", "again")

        # A B that does not read: named with the CLI's reason; A and its figures stay.
        bad = cli_compare(a.cli, A, broken)
        compare_with(broken, "parfib-1.eventlog", centre_a)
        rep = wait_report(app, lambda r: "could not be read" in r.get("header", "") and r["summary"]
                          and r["summary"].get("wall_ns", [0, 0])[1] is None, "B's failure")
        reason = bad["b"]["error"]
        good = reason in rep["header"] and "timeline" in rep and same(rep["summary"]["wall_ns"][0],
                                                                      bad["program"]["wall_ns"]["a"])
        print(f"  broken B: header '{rep['header']}', A's wall {rep['summary']['wall_ns'][0]} -> "
              f"{'NAMED, A SHOWN' if good else 'WRONG'}")
        ok &= good
        close_result_windows()

        # Another program: the CLI's warning that no site matches.
        other = cli_compare(a.cli, A, traces["quicksort-2"])
        compare_with(traces["quicksort-2"], "parfib-1.eventlog", centre_a)
        only_b = [s["site"] for s in other["sites"] if s["presence"] == "only_b"]
        rep = wait_report(app, lambda r: "b" in r["timelines"] and r["summary"] and "matches" in r.get("header", "")
                          and all(site in r["sites"] for site in only_b), "the different-program warning, B's sites")
        good = bool(other["warnings"]) and all(w in rep["header"] for w in other["warnings"])
        print(f"  other program: header '{rep['header']}' -> {'WARNED' if good else 'NO WARNING'}")
        ok &= good
        good, n = check_figures(rep, other)
        good &= bool(only_b)
        print(f"  other program: {len(only_b)} site(s) only in B listed, {n} figures against sparkscope-cli compare "
              f"-> {'EQUAL' if good else 'DIFFERENT'}")
        ok &= good
        close_result_windows()
        # The Conjunctions list with B's sites.
        shots["only-b"] = grab_with_tab(rep, "Conjunctions", span(rep, "a"), "compare-2-only-b", "(other program)")
    except Exception:
        px.grab(a.out, "compare-failure")  # what the screen showed: for the person reading the log
        print(f"  failed; the screen is in {os.path.join(a.out, 'compare-failure.png')}")
        raise
    finally:
        app.close()
    if "stacked" in shots:
        ok &= px.not_blank("compare stacked", shots["stacked"])
    if "window" in shots:  # tables: no running green, but text and grid lines
        w = shots["window"]
        pixels = [w.pixel(x, y) for y in range(0, w.height, 3) for x in range(0, w.width, 3)]
        lum = [0.299 * r + 0.587 * g + 0.114 * b for r, g, b in pixels]
        mean = sum(lum) / len(lum)
        variance = sum((v - mean) ** 2 for v in lum) / len(lum)
        good = len(set(pixels)) >= 16 and variance >= 100
        print(f"  compare window: {len(set(pixels))} colours, luminance variance {variance:.0f} -> "
              f"{'OK' if good else 'BLANK'}")
        ok &= good
    px.save_images({"compare-stacked.png": ("compare", "stacked"), "compare-window.png": ("compare", "window"),
                    "compare-only-b.png": ("compare", "only-b")},
                   {"compare": shots}, a.out, a.docs)
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--app", required=True)
    p.add_argument("--cli", required=True)
    p.add_argument("--demo", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--docs", default="")
    p.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    a.out = os.path.abspath(a.out)  # typed into the file dialog, whose folder is not ours
    os.makedirs(a.out, exist_ok=True)
    if a.inner:
        return inner(a)
    return px.rerun_under_xvfb(__file__, ["--app", a.app, "--cli", a.cli, "--demo", a.demo, "--out", a.out]
                               + (["--docs", a.docs] if a.docs else []), timeout=1800)


if __name__ == "__main__":
    sys.exit(main())
