#!/usr/bin/env python3
"""Screenshots of the metric panels driven like a person would, in the real app under Xvfb.

For each demo trace (`sparkscope-demo pipeline` and `quicksort`), it starts the real `sparkscope`
twice under one xvfb-run: first to learn where the first conjunction starts, then with --range so
that conjunction's start tick is on screen. With SPARKSCOPE_REPORT_READY=1 the app prints, once its
metrics are ready, the timeline's geometry, the screen position of each conjunction's start tick
and the centre of each dock tab (ui/panels/ready_report.h). The script then uses xdotool to move
the pointer onto the tick (the conjunction is highlighted), click (the metric menu opens), choose
PARCONJ_RUNNING_SELF with the keyboard (its curve is drawn over the timeline, its value shown in
the Conjunctions dock), zoom to fit, and click the Summary tab; after each step it grabs the whole
X screen with xwd and writes it as PNG. Checks: every image is not blank (colours, variance, the
timeline's running green), and each step changed the screen where it should (the menu appeared
next to the pointer, the summary replaced the list).

Images (in --out; with --docs also copied there under the names the user guide uses):
  panels-hover-menu.png    pipeline: the metric menu open on the conjunction's start tick
  panels-conjunctions.png  quicksort: conjunction list, instances, chart, RUNNING_SELF curve
  panels-summary.png       pipeline: the Summary tab

  panels_xvfb_shots.py --app PATH --demo PATH --out DIR [--docs DIR]
Exit status 0 = all checks passed, or NOT RUN when xvfb-run, xdotool or xwd is missing.
Standard library only: XWD is decoded and PNG encoded here.
"""
import argparse
import os
import queue
import shutil
import struct
import subprocess
import sys
import threading
import time
import zlib

SCREEN = (1600, 1000)
RUNNING_GREEN = (46, 158, 68)  # FramePalette light "running"
PINNED_TEAL = (0, 150, 160)  # hover_controller: a chosen conjunction's instances, painted over their running bars
READY = "sparkscope-ready: "


class Image:
    """Full-resolution RGB image (bytes, 3 per pixel, row-major)."""

    def __init__(self, width, height, rgb):
        self.width, self.height, self.rgb = width, height, rgb

    def pixel(self, x, y):
        i = 3 * (y * self.width + x)
        return tuple(self.rgb[i:i + 3])


def read_xwd(path):
    data = open(path, "rb").read()
    header = struct.unpack(">25I", data[:100])
    header_size, width, height = header[0], header[4], header[5]
    byte_order, bits_per_pixel, bytes_per_line, ncolors = header[7], header[11], header[12], header[19]
    if bits_per_pixel != 32:
        raise ValueError(f"{path}: {bits_per_pixel} bits per pixel not supported")
    start = header_size + ncolors * 12
    rgb = bytearray(width * height * 3)
    for y in range(height):
        line = data[start + y * bytes_per_line:start + y * bytes_per_line + 4 * width]
        out = memoryview(rgb)[3 * width * y:3 * width * (y + 1)]
        if byte_order == 0:  # LSBFirst: B G R X
            out[0::3], out[1::3], out[2::3] = line[2::4], line[1::4], line[0::4]
        else:  # MSBFirst: X R G B
            out[0::3], out[1::3], out[2::3] = line[1::4], line[2::4], line[3::4]
    return Image(width, height, bytes(rgb))


def write_png(image, path):
    stride = 3 * image.width
    raw = b"".join(b"\0" + image.rgb[y * stride:(y + 1) * stride] for y in range(image.height))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", image.width, image.height, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 6)))
        f.write(chunk(b"IEND", b""))


def not_blank(name, image):
    pixels = [image.pixel(x, y) for y in range(0, image.height, 3) for x in range(0, image.width, 3)]
    colours = set(pixels)
    lum = [0.299 * r + 0.587 * g + 0.114 * b for r, g, b in pixels]
    mean = sum(lum) / len(lum)
    variance = sum((v - mean) ** 2 for v in lum) / len(lum)
    # Running green, also under the translucent highlights (so near it rather than equal).
    def share(colour):
        return sum(1 for p in pixels if all(abs(a - b) <= 40 for a, b in zip(p, colour))) / len(pixels)

    green = share(RUNNING_GREEN)
    # Once a conjunction is chosen its instances are pinned in teal over the running bars; when it
    # spans the whole run (pipeline's single conjunction) no running green is left to see.
    teal = share(PINNED_TEAL)
    ok = len(colours) >= 16 and variance >= 100 and (green >= 0.001 or teal >= 0.001)
    print(f"  {name}: {len(colours)} colours, luminance variance {variance:.0f}, running-green "
          f"{100 * green:.1f}%, pinned-teal {100 * teal:.1f}% -> {'OK' if ok else 'BLANK OR WRONG'}")
    return ok


def changed_box(a, b, box=None, step=2):
    """Pixels (sampled every `step`) that differ between a and b inside box (x0, y0, x1, y1):
    (count, bounding box or None)."""
    x0, y0, x1, y1 = box or (0, 0, a.width, a.height)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(a.width, x1), min(a.height, y1)
    count, bx0, by0, bx1, by1 = 0, x1, y1, x0, y0
    for y in range(y0, y1, step):
        row = 3 * a.width * y
        ra, rb = a.rgb[row + 3 * x0:row + 3 * x1], b.rgb[row + 3 * x0:row + 3 * x1]
        if ra == rb:
            continue
        for x in range(0, x1 - x0, step):
            if ra[3 * x:3 * x + 3] != rb[3 * x:3 * x + 3]:
                count += 1
                bx0, by0, bx1, by1 = min(bx0, x0 + x), min(by0, y), max(bx1, x0 + x), max(by1, y)
    return count, ((bx0, by0, bx1, by1) if count else None)


class App:
    """The real app on the Xvfb display; collects its SPARKSCOPE_REPORT_READY lines."""

    def __init__(self, app, trace, extra, config=None):
        # A private XDG_CONFIG_HOME: the person's QSettings may hold a saved dock layout or optional
        # rows switched on, which would move what the script clicks.
        if config is None:
            config = os.path.join(os.path.dirname(os.path.abspath(trace)), "config")
        os.makedirs(config, exist_ok=True)
        env = dict(os.environ, QT_QPA_PLATFORM="xcb", SPARKSCOPE_REPORT_READY="1", XDG_CONFIG_HOME=config)
        w, h = SCREEN
        self.proc = subprocess.Popen([app, trace, "--size", f"{w}x{h}"] + extra, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def report(self, timeout=120):
        """The next complete ready report: {'axis': [...], 'conjunctions': [...], 'tabs': {...}}."""
        out = {"conjunctions": [], "tabs": {}}
        deadline = time.time() + timeout
        while True:
            line = self.lines.get(timeout=max(0.1, deadline - time.time()))
            if line is None:
                raise RuntimeError(f"the app exited (status {self.proc.wait()}) before reporting")
            if not line.startswith(READY):
                continue
            kind, _, rest = line[len(READY):].partition(" ")
            f = rest.split()
            if kind == "timeline":
                out["timeline"] = [int(v) for v in f]
            elif kind == "axis":
                out["axis"] = (float(f[0]), float(f[1]), int(f[2]), int(f[3]), f[5] == "1")
            elif kind == "conjunction":
                tick = None if f[-1] == "-" else (int(f[-2]), int(f[-1]))
                out["conjunctions"].append({"index": int(f[0]), "engine": int(f[2]), "start": int(f[4]),
                                            "end": int(f[6]), "tick": tick})
            elif kind == "tab":
                out["tabs"][" ".join(f[2:])] = (int(f[0]), int(f[1]))
            elif kind == "why":
                out["why"] = True
            elif kind == "done":
                return out

    def report_with_analysis(self, timeout=240):
        """The first ready report given once the analysis report is in the Why dock: the dock filling
        in is the latest and largest repaint a step's check could take for its own change. (Jobs
        after it, such as the Speed-up tab's predictions, paint a tab not shown.)"""
        deadline = time.time() + timeout
        while True:
            try:
                report = self.report(max(1, deadline - time.time()))
            except queue.Empty:
                raise RuntimeError(f"no ready report with the analysis within {timeout} s") from None
            if report.get("why"):
                return report

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def dark_added(a, b, box, skip_columns=None):
    """Pixels inside box (x0, y0, x1, y1), every one, that are near black in b and were not in a,
    leaving out the columns in skip_columns (c0, c1). What it counts on the timeline is the hover
    highlight's edges and event lines: the light palette's text colour at alpha 200 (the script
    assumes the light palette, as its running-green check does); no bar of the timeline is that
    dark, and tick marks already drawn in a do not count. (A tooltip would count too: none shows
    here, since the window under Xvfb without a window manager is not the active one; with the
    highlight not painted the count is 0.)"""
    x0, y0, x1, y1 = box
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(a.width, x1), min(a.height, y1)
    c0, c1 = skip_columns or (x1, x1)
    count = 0
    for y in range(y0, y1):
        row = 3 * a.width * y
        ra, rb = a.rgb[row + 3 * x0:row + 3 * x1], b.rgb[row + 3 * x0:row + 3 * x1]
        if ra == rb:
            continue
        for x in range(0, x1 - x0):
            if c0 <= x0 + x < c1:
                continue
            if max(rb[3 * x:3 * x + 3]) <= 80 and max(ra[3 * x:3 * x + 3]) > 80:
                count += 1
    return count


def xdotool(*args):
    subprocess.run(["xdotool"] + [str(a) for a in args], check=True, timeout=30)


def grab(out, name):
    xwd = os.path.join(out, name + ".xwd")
    subprocess.run(["xwd", "-root", "-silent", "-out", xwd], check=True, timeout=60)
    image = read_xwd(xwd)
    os.remove(xwd)
    write_png(image, os.path.join(out, name + ".png"))
    return image


def grab_until(out, name, done, seconds=60):
    """Grabs the screen until done(image) holds or `seconds` pass (a busy machine repaints late);
    returns the last image. Waiting for what the step must show, not a fixed time, keeps a slow
    repaint from reading as a missing one."""
    deadline = time.time() + seconds
    while True:
        image = grab(out, name)
        if done(image) or time.time() > deadline:
            return image
        time.sleep(0.3)


def grab_settled(out, name, seconds=30):
    """Grabs the screen until two grabs half a second apart are the same (every repaint the last
    step caused is done) or `seconds` pass; returns the last image. A step compared against this
    image then shows only what it changed itself, not a late repaint of the one before."""
    deadline = time.time() + seconds
    image = grab(out, name)
    while time.time() < deadline:
        time.sleep(0.5)
        again = grab(out, name)
        if again.rgb == image.rgb:
            return again
        image = again
    return image


def drive(app_path, trace, out, stem):
    """Opens `trace`, hovers and clicks its first conjunction's start, chooses RUNNING_SELF, zooms to
    fit, shows the Summary. Returns (ok, {step: image})."""
    ok, shots = True, {}
    first = App(app_path, trace, [])
    try:
        conjunctions = first.report()["conjunctions"]
    finally:
        first.close()
    if not conjunctions:
        print(f"  {stem}: the app reported no conjunction")
        return False, shots
    c = conjunctions[0]
    # A 6 µs window (about 7 ns per pixel) puts the start tick 1 µs from the left, clear of the
    # spark creation and other events that follow it within a few hundred nanoseconds.
    window = (c["start"] - 1_000, c["start"] + 5_000)
    app = App(app_path, trace, ["--range", f"{window[0]}:{window[1]}"])
    try:
        report = app.report_with_analysis()
        tick = report["conjunctions"][0]["tick"]
        if not tick:
            print(f"  {stem}: conjunction #0 at {c['start']} ns has no visible tick in {window}: {report['axis']}")
            return False, shots
        print(f"  {stem}: conjunction #0 (engine {c['engine']}, {c['start']} ns) start tick at screen {tick}")
        x, y = tick
        xdotool("mousemove", 5, SCREEN[1] - 5)
        time.sleep(0.5)
        shots["before"] = grab(out, f"{stem}-0-before")
        t = report["timeline"]
        timeline_box = (t[0], t[1], t[0] + t[2], t[1] + t[3])
        xdotool("mousemove", x, y)
        # The highlight outlines the conjunction's spans and marks its events in near black. The
        # pointer's own marks are near black too and must not count: the dotted time line down the
        # pointer's column and the time label that starts there, in the axis band at the top. So
        # the count leaves out the band and the columns near the pointer: what is left is the
        # outline's edges along the conjunction (with the highlight not painted, 0 on these traces;
        # with it, 1,600-1,900).
        highlight_box = (t[0], t[1] + 30, t[0] + t[2], t[1] + t[3])
        near_pointer = (x - 60, x + 60)

        def highlighted(image):
            return dark_added(shots["before"], image, highlight_box, near_pointer)

        shots["hover"] = grab_until(out, f"{stem}-1-hover", lambda image: highlighted(image) >= 200)
        hover_count = highlighted(shots["hover"])
        print(f"  {stem}: hover -> {hover_count} timeline pixels away from the pointer turned near black"
              f" (highlight) -> {'OK' if hover_count >= 200 else 'NO HIGHLIGHT'}")
        ok &= hover_count >= 200
        xdotool("click", 1)

        # The menu pops up at the pointer: the screen changed right next to it, in a menu-sized box.
        def menu_shown(image):
            count, box = changed_box(shots["hover"], image, (x - 420, y - 620, x + 420, y + 620))
            return box is not None and box[2] - box[0] >= 120 and box[3] - box[1] >= 120 and count >= 2000

        shots["menu"] = grab_until(out, f"{stem}-2-menu", menu_shown)
        count, box = changed_box(shots["hover"], shots["menu"], (x - 420, y - 620, x + 420, y + 620))
        menu_ok = menu_shown(shots["menu"])
        print(f"  {stem}: click -> {count} sampled pixels changed near the pointer, box {box} -> "
              f"{'menu appeared' if menu_ok else 'NO MENU'}")
        ok &= menu_ok
        if not menu_ok:
            return False, shots
        # Title, separator, PARCONJ_TIME, RUNNABLE_SELF, RUNNABLE_SELF_AND_DESC, RUNNING_SELF.
        for _ in range(4):
            xdotool("key", "Down")
            time.sleep(0.1)
        xdotool("key", "Return")
        time.sleep(0.5)
        xdotool("mousemove", x, SCREEN[1] - 5)
        xdotool("key", "ctrl+0")  # Zoom to Fit: the whole curve
        # Settled, so that a late repaint of the Conjunctions dock (the chosen value) cannot count
        # as the Summary tab's change below.
        shots["chosen"] = grab_settled(out, f"{stem}-3-chosen")
        tabs = report["tabs"]
        if "Summary" not in tabs:
            print(f"  {stem}: no Summary tab reported: {tabs}")
            return False, shots
        xdotool("mousemove", *tabs["Summary"])
        xdotool("click", 1)
        dock_box = (t[0] + t[2], 0, SCREEN[0], SCREEN[1])
        shots["summary"] = grab_until(out, f"{stem}-4-summary",
                                      lambda image: changed_box(shots["chosen"], image, dock_box)[0] >= 2000)
        count, box = changed_box(shots["chosen"], shots["summary"], dock_box)
        summary_ok = count >= 2000
        print(f"  {stem}: Summary tab -> {count} sampled dock pixels changed -> {'OK' if summary_ok else 'UNCHANGED'}")
        ok &= summary_ok
    finally:
        app.close()
    for step, image in shots.items():
        ok &= not_blank(f"{stem} {step}", image)
    return ok, shots


def inner(a):
    ok = True
    results = {}
    for workload in ("pipeline", "quicksort"):
        trace = os.path.join(a.out, f"demo-{workload}.eventlog")
        r = subprocess.run([a.demo, workload, "--engines", "4", "--trace", trace], capture_output=True, text=True,
                           timeout=300)
        if r.returncode != 0:
            print(f"sparkscope-demo {workload} failed (exit {r.returncode}): {r.stderr.strip()[-400:]}")
            return 1
        print(f"{workload}: {trace}")
        good, shots = drive(a.app, trace, a.out, workload)
        ok &= good
        results[workload] = shots
    save_images({"panels-hover-menu.png": ("pipeline", "menu"), "panels-conjunctions.png": ("quicksort", "chosen"),
                 "panels-summary.png": ("pipeline", "summary")}, results, a.out, a.docs)
    return 0 if ok else 1


def save_images(picks, results, out, docs):
    """Writes each picked screenshot (name -> (run, step) of results[run][step]) as a PNG into `out`,
    and into `docs` too when given (the user guide's images); a step that was not reached is skipped."""
    for name, (run, step) in picks.items():
        if step in results.get(run, {}):
            write_png(results[run][step], os.path.join(out, name))
            if docs:
                shutil.copyfile(os.path.join(out, name), os.path.join(docs, name))
    print("images in", out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--app", required=True)
    p.add_argument("--demo", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--docs", default="")
    p.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.inner:
        return inner(a)
    return rerun_under_xvfb(__file__, ["--app", a.app, "--demo", a.demo, "--out", a.out]
                            + (["--docs", a.docs] if a.docs else []), timeout=900)


def rerun_under_xvfb(script, args, timeout):
    """Runs `script --inner ARGS` under a virtual X server of SCREEN's size and returns its exit
    code; 0, saying so, when the X tools are not installed (the test then did not run)."""
    missing = [t for t in ("xvfb-run", "xdotool", "xwd") if not shutil.which(t)]
    if missing:
        print(f"NOT RUN: {', '.join(missing)} not installed (apt-get install xvfb xauth xdotool x11-apps)")
        return 0
    w, h = SCREEN
    cmd = ["xvfb-run", "-a", "-s", f"-screen 0 {w}x{h}x24", sys.executable, os.path.abspath(script), "--inner"]
    return subprocess.run(cmd + args, timeout=timeout).returncode


if __name__ == "__main__":
    sys.exit(main())
