#!/usr/bin/env python3
"""The Debian packages: made with cpack from this build tree (the install rules, no second build),
checked with dpkg-deb (control fields, file lists), unpacked with `dpkg-deb -x` into a scratch root,
and used from there:

- sparkscope-cli --version; sparkscope-demo writes a trace; sparkscope-cli check and metrics read it;
  sparkscope renders it to a PNG (--screenshot, under xvfb-run when available, else offscreen);
- the man pages render without warnings (man -l), the desktop file validates
  (desktop-file-validate), the MIME type compiles (update-mime-database) and maps *.eventlog;
- examples/primes compiles against the unpacked sparkscope-dev with pkg-config, runs, and its trace
  holds its 32 conjunctions and one future.

The programs run with LD_LIBRARY_PATH set to the unpacked lib directory (for the example; the
executables link SparkScope's libraries statically). A missing tool exits 77 (SKIPPED) saying which;
an optional check whose tool is missing says so and is left out.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

from example_checks import Failure, check_needed_libraries, check_trace, expect, run, run_ok, run_example

A = None


def skip(message):
    print("SKIPPED: " + message)
    sys.exit(77)


def build_packages(out):
    if os.path.exists(out):
        shutil.rmtree(out)
    run_ok([A.cpack, "-G", "DEB", "--config", os.path.join(A.build, "CPackConfig.cmake"), "-B", out], "cpack",
           timeout=900)
    debs = sorted(glob.glob(os.path.join(out, "*.deb")))
    names = [os.path.basename(d) for d in debs]
    expect(len(debs) == 2, "cpack made %s, expected sparkscope and sparkscope-dev" % names)
    return {re.match(r"(sparkscope(-dev)?)_", os.path.basename(d)).group(1): d for d in debs}


def field(info, name):
    m = re.search(r"^ %s: (.*)$" % name, info, re.M)
    return m.group(1) if m else ""


def check_control(debs, version):
    app = run_ok(["dpkg-deb", "--info", debs["sparkscope"]], "dpkg-deb --info")
    dev = run_ok(["dpkg-deb", "--info", debs["sparkscope-dev"]], "dpkg-deb --info")
    expect(field(app, "Package") == "sparkscope" and field(app, "Version") == version,
           "sparkscope's control: %s %s" % (field(app, "Package"), field(app, "Version")))
    depends = field(app, "Depends")
    # From dpkg-shlibdeps: the libraries the executables and libsparkscope-* were linked with.
    for lib in ("libqt6widgets6", "libtbb12", "libboost-context", "libboost-iostreams", "libstdc++6"):
        expect(lib in depends, "sparkscope does not depend on %s: %s" % (lib, depends))
    dev_depends = field(dev, "Depends")
    expect("sparkscope (= %s)" % version in dev_depends and "libboost-dev" in dev_depends,
           "sparkscope-dev's Depends: %s" % dev_depends)
    print("ok: sparkscope %s depends on %s" % (version, depends))
    print("ok: sparkscope-dev depends on %s" % dev_depends)


def contents(deb):
    out = run_ok(["dpkg-deb", "--contents", deb], "dpkg-deb --contents")
    return [line.split()[5].lstrip(".") for line in out.splitlines() if len(line.split()) >= 6]


def check_contents(debs):
    app, dev = contents(debs["sparkscope"]), contents(debs["sparkscope-dev"])
    for want in ("/usr/bin/sparkscope", "/usr/bin/sparkscope-cli", "/usr/bin/sparkscope-demo",
                 "/usr/share/applications/sparkscope.desktop", "/usr/share/icons/hicolor/scalable/apps/sparkscope.svg",
                 "/usr/share/mime/packages/sparkscope.xml", "/usr/share/man/man1/sparkscope.1.gz",
                 "/usr/share/man/man1/sparkscope-cli.1.gz", "/usr/share/man/man1/sparkscope-demo.1.gz"):
        expect(want in app, "sparkscope lacks %s" % want)
    expect(any(re.search(r"/libsparkscope-runtime\.so\.\d+\.\d+\.\d+$", f) for f in app),
           "sparkscope lacks libsparkscope-runtime.so.x.y.z")
    for want in ("/usr/include/sparkscope/runtime/runtime.h", "/usr/include/sparkscope/core/result.h"):
        expect(want in dev, "sparkscope-dev lacks %s" % want)
    for pattern in (r"/cmake/SparkScope/SparkScopeConfig\.cmake$", r"/pkgconfig/sparkscope-runtime\.pc$",
                    r"/libsparkscope-runtime\.so$"):
        expect(any(re.search(pattern, f) for f in dev), "sparkscope-dev lacks a file matching %s" % pattern)
    clash = sorted(set(f for f in app if not f.endswith("/")) & set(f for f in dev if not f.endswith("/")))
    expect(not clash, "files in both packages: %s" % clash)
    print("ok: sparkscope holds %d paths, sparkscope-dev %d" % (len(app), len(dev)))


def check_programs(root, scratch, version):
    bindir = os.path.join(root, "usr", "bin")
    out = run_ok([os.path.join(bindir, "sparkscope-cli"), "--version"], "sparkscope-cli --version")
    expect(out.strip() == "sparkscope-cli " + version, "sparkscope-cli --version printed %r" % out)
    trace = os.path.join(scratch, "parfib.eventlog")
    run_ok([os.path.join(bindir, "sparkscope-demo"), "parfib", "--n", "22", "--cutoff", "10", "--engines", "2",
            "--trace", trace], "sparkscope-demo")
    run_ok([os.path.join(bindir, "sparkscope-cli"), "check", trace], "sparkscope-cli check")
    metrics = run_ok([os.path.join(bindir, "sparkscope-cli"), "metrics", trace], "sparkscope-cli metrics")
    expect('"format_version": 2' in metrics and "parfib.cpp:" in metrics, "unexpected metrics: %s" % metrics[:300])
    print("ok: sparkscope-demo wrote %s; sparkscope-cli check and metrics read it" % os.path.basename(trace))

    shot = os.path.join(scratch, "parfib.png")
    app = [os.path.join(bindir, "sparkscope"), trace, "--screenshot", shot]
    env = dict(os.environ)
    if shutil.which("xvfb-run"):
        app = ["xvfb-run", "-a"] + app
        how = "under xvfb-run"
    else:
        env["QT_QPA_PLATFORM"] = "offscreen"
        how = "offscreen (xvfb-run is not installed, Debian package xvfb)"
    run_ok(app, "sparkscope --screenshot", env=env, timeout=300)
    with open(shot, "rb") as f:
        head = f.read(24)
    expect(head[:8] == b"\x89PNG\r\n\x1a\n", "%s is not a PNG" % shot)
    width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    # The default --size; the window can grow beyond it where its docks need more room.
    expect(width >= 1600 and height >= 1000, "the screenshot is %dx%d, expected at least 1600x1000" % (width, height))
    print("ok: sparkscope rendered the trace %s to %s" % (how, shot))


def check_man_pages(root):
    if not shutil.which("man"):
        print("NOT CHECKED: man is not installed (Debian package man-db): the man pages were not rendered")
        return
    for page in ("sparkscope", "sparkscope-cli", "sparkscope-demo"):
        path = os.path.join(root, "usr/share/man/man1/%s.1.gz" % page)
        env = dict(os.environ, MANWIDTH="100", LC_ALL="C.UTF-8")
        rc, out, err = run(["man", "--warnings", "-l", path], env=env)
        expect(rc == 0 and not err.strip(), "man -l %s: exit %d, warnings: %s" % (path, rc, err))
        expect(re.search(r"^NAME\n\s+%s - " % re.escape(page), out, re.M), "man -l %s has no NAME line" % path)
    print("ok: the three man pages render without warnings")


def check_desktop_and_mime(root):
    desktop = os.path.join(root, "usr/share/applications/sparkscope.desktop")
    text = open(desktop).read()
    expect("MimeType=application/x-ghc-eventlog;" in text and "Exec=sparkscope %f" in text,
           "the desktop file does not open application/x-ghc-eventlog with sparkscope")
    if shutil.which("desktop-file-validate"):
        run_ok(["desktop-file-validate", desktop], "desktop-file-validate")
        print("ok: desktop-file-validate accepts sparkscope.desktop")
    else:
        print("NOT CHECKED: desktop-file-validate is not installed (Debian package desktop-file-utils)")
    if not shutil.which("update-mime-database"):
        print("NOT CHECKED: update-mime-database is not installed (Debian package shared-mime-info)")
        return
    mime = os.path.join(root, "usr/share/mime")
    run_ok(["update-mime-database", mime], "update-mime-database")
    expect(os.path.exists(os.path.join(mime, "application/x-ghc-eventlog.xml")),
           "update-mime-database made no application/x-ghc-eventlog")
    globs = open(os.path.join(mime, "globs2")).read()
    expect(re.search(r"^\d+:application/x-ghc-eventlog:\*\.eventlog$", globs, re.M),
           "globs2 does not map *.eventlog to application/x-ghc-eventlog")
    magic = open(os.path.join(mime, "magic"), "rb").read()
    expect(b"application/x-ghc-eventlog" in magic and b"hdrb" in magic, "the MIME magic lacks the hdrb header")
    print("ok: the MIME type maps *.eventlog (and the hdrb magic) to application/x-ghc-eventlog")


def check_example(root, scratch):
    """examples/primes against the unpacked sparkscope-dev, with pkg-config (the .pc files are
    relative to their own place, so the unpacked root works as installed)."""
    pkg_config = shutil.which("pkg-config")
    if not pkg_config:
        print("NOT CHECKED: pkg-config is not installed: the example was not built against the package")
        return
    pcs = glob.glob(os.path.join(root, "usr/lib/**/sparkscope-runtime.pc"), recursive=True)
    expect(len(pcs) == 1, "sparkscope-runtime.pc in the package: %s" % pcs)
    libs = os.path.dirname(os.path.dirname(pcs[0]))
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]), LD_LIBRARY_PATH=libs)
    env.pop("PKG_CONFIG_LIBDIR", None)
    flags = run_ok([pkg_config, "--cflags", "--libs", "sparkscope-runtime"], "pkg-config", env=env).split()
    source = os.path.join(A.source, "examples", "primes", "main.cpp")
    binary = os.path.join(scratch, "primes")
    run_ok([A.cxx, "-std=c++20", "-O2", source, "-o", binary] + flags, "compiling the example", env=env)
    check_needed_libraries(binary)
    trace = os.path.join(scratch, "primes.eventlog")
    run_example(binary, trace, libs)
    check_trace(os.path.join(root, "usr/bin/sparkscope-cli"), trace, source)


def main():
    global A
    p = argparse.ArgumentParser()
    p.add_argument("--build", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--cmake", required=True)
    p.add_argument("--cpack", required=True)
    p.add_argument("--cxx", required=True)
    p.add_argument("--scratch", required=True)
    A = p.parse_args()
    for tool, package in (("dpkg-deb", "dpkg"), ("dpkg-shlibdeps", "dpkg-dev"), ("file", "file"),
                          ("readelf", "binutils")):
        if not shutil.which(tool):
            skip("%s is not installed (Debian package %s): the Debian packages cannot be made" % (tool, package))
    if not os.path.exists(A.cpack):
        skip("cpack is not at %s" % A.cpack)
    cache = open(os.path.join(A.build, "CMakeCache.txt")).read()
    if "SPARKSCOPE_BUILD_UI:BOOL=ON" not in cache:
        skip("this build has no app (SPARKSCOPE_BUILD_UI=OFF); the package holds it")
    version = re.search(r"^CMAKE_PROJECT_VERSION:STATIC=(.*)$", cache, re.M).group(1)

    try:
        debs = build_packages(os.path.join(A.scratch, "debs"))
        check_control(debs, version)
        check_contents(debs)
        root = os.path.join(A.scratch, "root")
        if os.path.exists(root):
            shutil.rmtree(root)
        for deb in debs.values():
            run_ok(["dpkg-deb", "-x", deb, root], "dpkg-deb -x")
        work = os.path.join(A.scratch, "run")
        os.makedirs(work, exist_ok=True)
        check_programs(root, work, version)
        check_man_pages(root)
        check_desktop_and_mime(root)
        check_example(root, work)
    except Failure as e:
        print("FAILED: %s" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
