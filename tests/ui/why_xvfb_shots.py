#!/usr/bin/env python3
"""The Why dock driven like a person would, in the real app under Xvfb (xdotool), against the CLI.

For a demo trace (`sparkscope-demo imbalanced`, which has findings) and a shared GHC eventlog, it
runs `sparkscope-cli analyze TRACE --format json --engines none` and starts the real `sparkscope`
with SPARKSCOPE_REPORT_READY=1, which prints, once the analysis is on screen, the Why dock's figures
as shown (each ledger category with its exact ns and its seconds text, work, span, parallelism), the
screen position and time range of each finding, and what the timeline draws of the analysis
(ui/panels/ready_report.cpp). Checks:
  - every ledger figure, work, span and parallelism in the dock equals the CLI's;
  - (demo) a click on the first finding moves the view onto its ranges (the next report's axis); the
    demo is recorded again, up to five times, until the CLI has a finding (a busy machine can make a
    run with none), and with none the dock must show none and the click is not run;
  - (demo) Ctrl+P (View > Critical Path) draws the path: outlines reported, timeline pixels changed;
  - every screenshot is not blank, and the utilisation row is drawn.
Images (in --out; with --docs also copied there under the names the user guide uses):
  why-dock.png          demo: the Why dock and the utilisation row
  why-finding.png       demo: after clicking the first finding
  why-critical-path.png demo: the critical path on
  why-ghc.png           GHC eventlog: the Why dock and the utilisation row

  why_xvfb_shots.py --app PATH --cli PATH --demo PATH --out DIR [--shared DIR] [--docs DIR]
Exit status 0 = all checks passed, or NOT RUN when xvfb-run, xdotool or xwd is missing.
"""
import argparse
import json
import os
import queue
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import panels_xvfb_shots as px  # noqa: E402  (the App, xwd and PNG helpers)

SCREEN = px.SCREEN


def duration(ns):
    """A duration as the app writes it (formatDuration): four significant digits, the unit that reads best."""
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if abs(ns) >= scale:
            return f"{ns / scale:.4g} {unit}"
    return f"{ns:.4g} ns"


def next_report(app, timeout=180):
    """The next complete ready report as its lines (without the prefix)."""
    lines, deadline = [], time.time() + timeout
    while True:
        line = app.lines.get(timeout=max(0.1, deadline - time.time()))
        if line is None:
            raise RuntimeError(f"the app exited (status {app.proc.wait()}) before reporting")
        if not line.startswith(px.READY):
            continue
        rest = line[len(px.READY):]
        if rest == "done":
            return lines
        lines.append(rest)


def drain(app, settle=1.5):
    """Waits for the app to settle, then drops the reports already printed, so that the next action's
    report is read rather than an earlier one (report_where also passes over any that come late)."""
    time.sleep(settle)
    while True:
        try:
            line = app.lines.get_nowait()
        except Exception:
            return
        if line is None:
            app.lines.put(None)
            return


def parse(lines):
    out = {"ledger": {}, "findings": [], "figures": {}}
    for line in lines:
        f = line.split()
        if f[0] == "timeline":
            out["timeline"] = [int(v) for v in f[1:5]]
        elif f[0] == "axis":
            out["axis"] = (float(f[1]), float(f[2]), int(f[3]), int(f[4]))
        elif f[:2] == ["why", "ledger"]:
            out["ledger"][f[2]] = (int(f[3]), f[4], f[5])
        elif f[:2] == ["why", "finding"]:
            out["findings"].append({"index": int(f[2]), "pos": (int(f[3]), int(f[4])), "rule": f[5],
                                    "from": int(f[6]), "to": int(f[7])})
        elif f[:2] == ["why", "path"]:
            out["path"] = {"on": f[2] == "1", "outlines": int(f[4]), "waits": int(f[6]), "utilisation": f[8] == "1"}
        elif f[0] == "why":
            out["figures"][f[1]] = " ".join(f[2:])
    return out


def report_where(app, good, timeout=180):
    """Reports until one is `good`: a report an earlier action queued, late on a loaded machine, is
    passed over rather than read as this action's. The last one seen if none is by `timeout` (None if
    none came), for the caller to print and fail on."""
    deadline, last = time.time() + timeout, None
    while time.time() < deadline:
        try:
            last = parse(next_report(app, timeout=max(0.1, deadline - time.time())))
        except queue.Empty:
            break
        if good(last):
            break
    return last


def analysed(app):
    """Reports until one shows the analysis on screen (Why dock filled, utilisation row drawn)."""
    while True:
        r = parse(next_report(app))
        if r["ledger"] and r.get("path", {}).get("utilisation"):
            return r


def compare(stem, report, cli):
    ok = True
    a = cli["analysis"]
    ledger = a["ledger"]
    for key, (ns, text, share) in report["ledger"].items():
        want = ledger["total_ns"] if key == "total" else ledger[key + "_ns"]
        good = ns == want and text == f"{want / 1e9:.6f}"
        ok &= good
        if not good:
            print(f"  {stem}: ledger {key}: dock {ns} ns '{text}', CLI {want} ns")
    missing = [k[:-3] for k, v in ledger.items() if k.endswith("_ns") and k not in ("total_ns", "running_ns")
               and v and k[:-3] not in report["ledger"]]
    if missing:
        print(f"  {stem}: categories missing from the dock: {missing}")
        ok = False
    figures = report["figures"]
    ok &= figures.get("work") == duration(a["work_ns"])
    if a["span_ns"] is not None:
        ok &= figures.get("span") == duration(a["span_ns"])
        ok &= figures.get("parallelism") == f"{a['parallelism']:.2f}"
    else:
        ok &= figures.get("span", "").startswith("—")
    print(f"  {stem}: {len(report['ledger'])} ledger figures, work {figures.get('work')}, span "
          f"{figures.get('span', '')[:20]}, parallelism {figures.get('parallelism')} vs CLI -> "
          f"{'EQUAL' if ok else 'DIFFERENT'}")
    return ok


def run(a, stem, trace, demo):
    ok, shots = True, {}
    r = subprocess.run([a.cli, "analyze", trace, "--format", "json", "--engines", "none"], capture_output=True,
                       text=True, timeout=600)
    if r.returncode != 0:
        print(f"  {stem}: sparkscope-cli analyze failed: {r.stderr.strip()[-300:]}")
        return False, shots
    cli = json.loads(r.stdout)
    # Fresh settings for every run, kept out of the trace's folder (the shared data's, for the GHC
    # eventlog): the app saves its View toggles on exit, and a critical path left on by the last run
    # would make this run's Ctrl+P switch it off.
    config = os.path.join(os.path.abspath(a.out), stem + "-config")
    shutil.rmtree(config, ignore_errors=True)
    app = px.App(a.app, trace, [], config=config)
    try:
        report = analysed(app)
        ok &= compare(stem, report, cli)
        drain(app)
        px.xdotool("mousemove", 5, SCREEN[1] - 5)
        time.sleep(0.5)
        shots["open"] = px.grab(a.out, f"why-{stem}-0-open")
        if demo:
            findings = report["findings"]
            cli_findings = len(cli["analysis"]["findings"])
            whole = report["axis"][3] - report["axis"][2]
            if not findings and not cli_findings:
                # A recording the CLI finds nothing in either (inner() records again a few times
                # first): the dock agrees with it, and there is no finding to click.
                print(f"  {stem}: NOTE: no finding in this recording, in the dock or the CLI: the finding "
                      f"click is NOT RUN")
                px.xdotool("click", 1)  # on the status bar (the pointer is there): the keys below need focus
            elif not findings:
                print(f"  {stem}: no finding shown (CLI: {cli_findings})")
                return False, shots
            elif not any(f["to"] - f["from"] < 0.9 * whole for f in findings):
                # Every finding's range is (nearly) the whole trace: a click cannot narrow the view.
                print(f"  {stem}: NOTE: every finding spans most of the trace: the finding click is NOT RUN")
                px.xdotool("click", 1)  # on the status bar (the pointer is there): the keys below need focus
            else:
                # The first finding whose range a click can zoom onto (the demo's trace holds just its
                # computation, which an imbalanced conjunction can span from end to end).
                first = next(f for f in findings if f["to"] - f["from"] < 0.9 * whole)
                drain(app)
                px.xdotool("mousemove", *first["pos"])
                px.xdotool("click", 1)

                def onto(r):
                    start, end = r["axis"][2], r["axis"][3]
                    return start <= first["from"] and end >= first["to"] and end - start < whole

                moved = report_where(app, onto)
                if moved is None:
                    print(f"  {stem}: no report after clicking finding {first['rule']}")
                    return False, shots
                start, end = moved["axis"][2], moved["axis"][3]
                good = onto(moved)
                print(f"  {stem}: finding {first['rule']} [{first['from']}, {first['to']}) clicked -> view "
                      f"[{start}, {end}) -> {'MOVED ONTO IT' if good else 'WRONG VIEW'}")
                ok &= good
                px.xdotool("mousemove", 5, SCREEN[1] - 5)
                time.sleep(0.5)
                shots["finding"] = px.grab(a.out, f"why-{stem}-1-finding")
                drain(app, 0.5)
            if "finding" in shots:  # a finding moved the view: zoom to fit again (else it is at fit: no report comes)
                px.xdotool("key", "ctrl+0")
                report_where(app, lambda r: r["axis"][3] - r["axis"][2] >= whole)
            drain(app, 0.5)
            before = px.grab(a.out, f"why-{stem}-2-fit")
            px.xdotool("key", "ctrl+p")
            path = report_where(app, lambda r: r.get("path", {}).get("on"))
            if path is None:
                print(f"  {stem}: no report after Ctrl+P")
                return False, shots
            time.sleep(0.3)
            shots["path"] = px.grab(a.out, f"why-{stem}-3-path")
            t = report["timeline"]
            changed, _ = px.changed_box(before, shots["path"], (t[0], t[1], t[0] + t[2], t[1] + t[3]))
            good = path["path"]["on"] and path["path"]["outlines"] > 0 and changed > 0
            print(f"  {stem}: Ctrl+P -> critical path {'on' if path['path']['on'] else 'off'}, "
                  f"{path['path']['outlines']} outlines, {changed} sampled timeline pixels changed -> "
                  f"{'OK' if good else 'NOT DRAWN'}")
            ok &= good
    finally:
        app.close()
    for step, image in shots.items():
        ok &= px.not_blank(f"{stem} {step}", image)
    return ok, shots


def inner(a):
    ok, results = True, {}
    trace = os.path.join(a.out, "demo-imbalanced.eventlog")
    # The workload is imbalanced by design, but how a run goes depends on the machine: on a busy one a
    # recording can come out with no finding at all (the CLI finds none either). Recorded again, up to
    # five times, until the CLI has a finding for the dock to show and the test to click.
    for attempt in range(5):
        r = subprocess.run([a.demo, "imbalanced", "--engines", "2", "--trace", trace], capture_output=True,
                           text=True, timeout=300)
        if r.returncode != 0:
            print(f"sparkscope-demo imbalanced failed: {r.stderr.strip()[-300:]}")
            return 1
        c = subprocess.run([a.cli, "analyze", trace, "--format", "json", "--engines", "none"], capture_output=True,
                           text=True, timeout=600)
        if c.returncode != 0 or json.loads(c.stdout)["analysis"]["findings"]:
            break
        print(f"demo: recording {attempt + 1} has no finding (CLI), recording again")
    print(f"demo: {trace}")
    good, results["demo"] = run(a, "demo", trace, True)
    ok &= good
    ghc = os.path.join(a.shared, "testdata", "ghc", "parfib-8-32.eventlog") if a.shared else ""
    if ghc and os.path.exists(ghc):
        print(f"ghc: {ghc}")
        good, results["ghc"] = run(a, "ghc", ghc, False)
        ok &= good
    else:
        print("ghc: NOT RUN (no shared eventlog)")
    px.save_images({"why-dock.png": ("demo", "open"), "why-finding.png": ("demo", "finding"),
                    "why-critical-path.png": ("demo", "path"), "why-ghc.png": ("ghc", "open")}, results, a.out, a.docs)
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--app", required=True)
    p.add_argument("--cli", required=True)
    p.add_argument("--demo", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--shared", default="")
    p.add_argument("--docs", default="")
    p.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.inner:
        return inner(a)
    return px.rerun_under_xvfb(__file__, ["--app", a.app, "--cli", a.cli, "--demo", a.demo, "--out", a.out,
                                          "--shared", a.shared] + (["--docs", a.docs] if a.docs else []),
                               timeout=1200)


if __name__ == "__main__":
    sys.exit(main())
