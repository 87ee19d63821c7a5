#!/usr/bin/env python3
"""Screenshot test: starts the real SparkScope app under Xvfb on a shared GHC eventlog and on a
trace made by sparkscope-demo, each with the timeline's optional rows off (the default) and on
(View > Context Lanes and Spark Deque Sizes, set through a private QSettings file), saves the app's own screenshot (--screenshot, a grab of the real
window) and an X-level screenshot of the whole screen (xwd, when x11-apps is installed), and checks
that each image is not blank: many distinct colours, pixel variance, and the timeline's "running"
green present (with the rows on: also the lanes' blocked and runnable colours and the deque curve). Standard library only (PNG and XWD are decoded here).

  screenshot_test.py --app PATH --demo PATH --out DIR [--shared DIR]
Exit status 0 = all checks passed (a missing shared dir or xwd is reported as NOT RUN, not failed).
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import time
import zlib

RUNNING_GREEN = (46, 158, 68)  # FramePalette light "running"
# FramePalette light inks of the optional rows (View > Context Lanes / Spark Deque Sizes).
LANE_RUNNABLE = (232, 200, 70)
LANE_BLOCKED = (200, 60, 60)
DEQUE_LINE = (60, 110, 170)


def decode_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, width = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError(f"{path}: unsupported PNG (depth {depth}, colour type {ctype})")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, [[tuple(r[x * bpp:x * bpp + 3]) for x in range(0, width, 2)] for r in rows[::2]]


def decode_xwd(path):
    data = open(path, "rb").read()
    header = struct.unpack(">25I", data[:100])
    header_size, _, _, depth, width, height = header[:6]
    bits_per_pixel, bytes_per_line, ncolors = header[11], header[12], header[19]
    byte_order = header[7]
    if bits_per_pixel != 32:
        raise ValueError(f"{path}: {bits_per_pixel} bits per pixel not supported")
    pixels = header_size + ncolors * 12
    rows = []
    for y in range(0, height, 2):
        line = data[pixels + y * bytes_per_line:pixels + (y + 1) * bytes_per_line]
        row = []
        for x in range(0, width, 2):
            b0, b1, b2, b3 = line[4 * x:4 * x + 4]
            row.append((b2, b1, b0) if byte_order == 0 else (b1, b2, b3))
        rows.append(row)
    return width, height, rows


# Sampled pixels (every second one each way) a must-have colour needs: its legend swatch alone is 30,
# so at least as many again must come from the rows. Not a share of the screen: under load a demo run
# may leave its spark deques filled for a sliver of its length, so their outline covers ~0.05% of the
# screen where it covers ~0.25% on a quiet machine (160 pixels besides the swatch, at the least seen).
MUST_HAVE_PIXELS = 60


def judge(name, width, height, rows, must_have=()):
    """must_have: (label, rgb) colours of which MUST_HAVE_PIXELS sampled pixels must be on screen."""
    pixels = [p for r in rows for p in r]
    colours = set(pixels)
    lum = [0.299 * r + 0.587 * g + 0.114 * b for r, g, b in pixels]
    mean = sum(lum) / len(lum)
    variance = sum((v - mean) ** 2 for v in lum) / len(lum)
    green = sum(1 for p in pixels if p == RUNNING_GREEN) / len(pixels)
    ok = len(colours) >= 16 and variance >= 100 and green >= 0.002
    found = []
    for label, rgb in must_have:
        count = sum(1 for p in pixels if p == rgb)
        found.append(f"{label} {count} sampled pixels ({100 * count / len(pixels):.3f}%)")
        ok &= count >= MUST_HAVE_PIXELS
    extra = (", " + ", ".join(found)) if found else ""
    print(f"  {name}: {width}x{height}, {len(colours)} colours, luminance variance {variance:.0f}, "
          f"running-green {100 * green:.1f}% of pixels{extra} -> {'OK' if ok else 'BLANK OR WRONG'}")
    return ok


def settings_home(out, rows):
    """A private XDG_CONFIG_HOME for the app's QSettings: the optional rows on or off."""
    home = os.path.join(out, "config-rows" if rows else "config-plain")
    os.makedirs(os.path.join(home, "SparkScope"), exist_ok=True)
    with open(os.path.join(home, "SparkScope", "SparkScope.conf"), "w") as f:
        value = "true" if rows else "false"
        f.write(f"[timeline]\ncontextLanes={value}\nsparkDequeSizes={value}\n")
    return home


def screenshots(app, trace, out, stem, xwd, rows=False, must_have=()):
    """rows: View > Context Lanes and Spark Deque Sizes on (through the app's settings)."""
    ok = True
    png = os.path.join(out, stem + ".png")
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", XDG_CONFIG_HOME=settings_home(out, rows))
    cmd = ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", app, trace, "--screenshot", png, "--size", "1600x1000"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if r.returncode != 0 or not os.path.exists(png):
        print(f"  {stem}: the app failed (exit {r.returncode}): {r.stderr.strip()[-400:]}")
        return False
    ok &= judge(stem + ".png (app window grab)", *decode_png(png), must_have=must_have)
    if xwd:
        xwd_path = os.path.join(out, stem + ".xwd")
        # Start the app normally on the X server and grab the whole screen once it reports that its
        # view is loaded and painted with the optional rows drawn (SPARKSCOPE_REPORT_READY: a report
        # that says "rows ready"), however long that takes on a busy machine.
        ready = os.path.join(out, stem + ".ready")
        # Removed here, not by the script's redirection: that happens in the background job, which
        # may start after the loop has already read the last run's "done".
        if os.path.exists(ready):
            os.remove(ready)
        script = (f'"{app}" "{trace}" --size 1600x1000 > "{ready}" & pid=$!; '
                  f'until grep -q "^sparkscope-ready: rows ready" "{ready}" || ! kill -0 $pid 2>/dev/null; do sleep 0.2; done; '
                  f'xwd -root -silent -out "{xwd_path}"; kill $pid; wait $pid 2>/dev/null; exit 0')
        r = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", "sh", "-c", script],
                           env=dict(env, SPARKSCOPE_REPORT_READY="1"), capture_output=True, text=True, timeout=300)
        if not os.path.exists(xwd_path):
            print(f"  {stem}: xwd failed: {r.stderr.strip()[-400:]}")
            return False
        ok &= judge(stem + ".xwd (X screen)", *decode_xwd(xwd_path), must_have=must_have)
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--app", required=True)
    p.add_argument("--demo", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--shared", default="")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if not shutil.which("xvfb-run"):
        print("NOT RUN: xvfb-run is not installed (apt-get install xvfb)")
        return 0
    xwd = shutil.which("xwd") is not None
    if not xwd:
        print("NOTE: xwd (x11-apps) not installed: X-level screenshots NOT RUN, app grabs only")
    ok = True
    ghc = os.path.join(a.shared, "testdata", "ghc", "parfib-8-32.eventlog")
    if a.shared and os.path.exists(ghc):
        print(f"GHC eventlog {ghc}")
        ok &= screenshots(a.app, ghc, a.out, "ghc-parfib-8-32", xwd)
        # With the optional rows: GHC's threads (blocked and runnable lanes) and spark pools.
        ok &= screenshots(a.app, ghc, a.out, "ghc-parfib-8-32-rows", xwd, rows=True,
                          must_have=(("context-blocked", LANE_BLOCKED), ("context-runnable", LANE_RUNNABLE),
                                     ("deque-outline", DEQUE_LINE)))
    else:
        print(f"NOT RUN: shared eventlog {ghc} is absent")
    demo_trace = os.path.join(a.out, "demo-pipeline.eventlog")
    r = subprocess.run([a.demo, "pipeline", "--engines", "4", "--trace", demo_trace], capture_output=True,
                       text=True, timeout=300)
    if r.returncode != 0:
        print(f"sparkscope-demo failed (exit {r.returncode}): {r.stderr.strip()[-400:]}")
        return 1
    print(f"demo trace {demo_trace}")
    ok &= screenshots(a.app, demo_trace, a.out, "demo-pipeline", xwd)
    # The optional rows on a demo trace whose spark deques fill up (the pipeline's stay nearly empty).
    rows_trace = os.path.join(a.out, "demo-parfib-32.eventlog")
    r = subprocess.run([a.demo, "parfib", "--n", "32", "--cutoff", "18", "--engines", "4", "--trace", rows_trace],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        print(f"sparkscope-demo failed (exit {r.returncode}): {r.stderr.strip()[-400:]}")
        return 1
    print(f"demo trace {rows_trace}")
    ok &= screenshots(a.app, rows_trace, a.out, "demo-parfib-32-rows", xwd, rows=True,
                      must_have=(("deque-outline", DEQUE_LINE),))  # lane states vary from run to run
    # A --size under the window's smallest size is said on stderr, with the size the shot has.
    small = os.path.join(a.out, "demo-pipeline-small.png")
    r = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", a.app, demo_trace, "--screenshot", small,
                        "--size", "400x300"], capture_output=True, text=True, timeout=300)
    if r.returncode != 0 or not os.path.exists(small):
        print(f"  --size 400x300: the app failed (exit {r.returncode}): {r.stderr.strip()[-400:]}")
        ok = False
    else:
        width, height, _ = decode_png(small)
        said = f"--size 400x300 is not the window's size (its docks need more): the screenshot is {width}x{height}"
        if (width, height) == (400, 300) or said not in r.stderr:
            print(f"FAIL --size 400x300: a {width}x{height} shot, stderr: {r.stderr.strip()[-400:]}")
            ok = False
        else:
            print(f"  --size 400x300: {width}x{height}, said on stderr")
    # --follow --screenshot of a file with nothing complete yet (its header and the start of a block)
    # settles on the window waiting for it, and says so, rather than waiting for ever.
    data = open(demo_trace, "rb").read()
    cut = data.find(b"datb")
    waiting_trace = os.path.join(a.out, "demo-pipeline-header-only.eventlog")
    with open(waiting_trace, "wb") as f:
        f.write(data[:cut + 4 + 10])
    waiting = os.path.join(a.out, "follow-waiting.png")
    try:
        r = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", a.app, "--follow", waiting_trace,
                            "--screenshot", waiting], capture_output=True, text=True, timeout=120)
        if r.returncode != 0 or not os.path.exists(waiting) or "nothing of the followed file is complete" not in r.stderr:
            print(f"FAIL --follow of a file with no whole block: exit {r.returncode}, stderr: {r.stderr.strip()[-400:]}")
            ok = False
        else:
            print("  --follow of a file with no whole block: the waiting window, said on stderr")
    except subprocess.TimeoutExpired:
        print("FAIL --follow --screenshot of a file with no whole block did not finish in 120 s")
        ok = False
    print("screenshots in", a.out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
