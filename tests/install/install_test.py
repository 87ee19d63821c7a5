#!/usr/bin/env python3
"""Install tests, one per CTest test (`--case NAME`):

  stage              `cmake --install BUILD --prefix /usr/local` with DESTDIR=<scratch>/stage; the
                     headers, libraries, CMake package and pkg-config files must be where users look
  example-cmake      examples/primes configured with CMAKE_PREFIX_PATH=<stage>/usr/local (its own
                     find_package(SparkScope CONFIG REQUIRED)), built, run, its trace read back by
                     the installed sparkscope-cli and by core_reader/, a program on SparkScope::core
  example-pkgconfig  the same program compiled by hand with `pkg-config --cflags --libs
                     sparkscope-runtime`; also checks that the runtime's headers include nothing of
                     Boost or TBB (the compiler's list of included headers)

The staged root has no loader configuration, so the example runs with LD_LIBRARY_PATH set to the
staged lib directory (installed, ldconfig finds the libraries). A missing tool exits 77 (SKIPPED)
saying which.
"""
import argparse
import os
import shutil
import sys

from example_checks import CONJUNCTIONS, Failure, check_needed_libraries, check_trace, expect, run, run_ok, run_example

PREFIX = "/usr/local"
A = None


def stage_dir():
    return os.path.join(A.scratch, "stage")


def prefix_dir():
    return stage_dir() + PREFIX


def lib_dir():
    """The staged library directory (lib, or lib/<multiarch> when GNUInstallDirs chose it)."""
    for root, _, files in os.walk(prefix_dir()):
        if any(f.startswith("libsparkscope-runtime.so") for f in files):
            return root
    raise Failure("no libsparkscope-runtime.so under %s: did the stage step run?" % prefix_dir())


def skip(message):
    print("SKIPPED: " + message)
    sys.exit(77)


def case_stage():
    if os.path.exists(stage_dir()):
        shutil.rmtree(stage_dir())
    env = dict(os.environ, DESTDIR=stage_dir())
    run_ok([A.cmake, "--install", A.build, "--prefix", PREFIX], "cmake --install", env=env)
    p = prefix_dir()
    libs = lib_dir()
    rel_lib = os.path.relpath(libs, p)
    for f in ["include/sparkscope/runtime/runtime.h", "include/sparkscope/runtime/par_conj.h",
              "include/sparkscope/runtime/future.h", "include/sparkscope/core/result.h",
              "include/sparkscope/core/reader.h", rel_lib + "/libsparkscope-runtime.so",
              rel_lib + "/libsparkscope-core.so", rel_lib + "/cmake/SparkScope/SparkScopeConfig.cmake",
              rel_lib + "/cmake/SparkScope/SparkScopeConfigVersion.cmake",
              rel_lib + "/cmake/SparkScope/SparkScopeTargets.cmake",
              rel_lib + "/pkgconfig/sparkscope-runtime.pc", rel_lib + "/pkgconfig/sparkscope-core.pc",
              "bin/sparkscope-cli", "bin/sparkscope-demo", "share/man/man1/sparkscope-cli.1.gz"]:
        expect(os.path.exists(os.path.join(p, f)), "the staged install lacks %s" % f)
    # Nothing but the installed libraries: no static archive hands Boost or TBB on to users.
    archives = [f for f in os.listdir(libs) if f.endswith(".a")]
    expect(not archives, "static libraries installed: %s" % archives)
    # Public headers name neither Boost nor TBB in the runtime (core's par_model.h uses Boost.Container).
    for name in os.listdir(os.path.join(p, "include/sparkscope/runtime")):
        text = open(os.path.join(p, "include/sparkscope/runtime", name)).read()
        for lib in ("<boost/", "<tbb/", "<oneapi/"):
            expect(lib not in text, "include/sparkscope/runtime/%s includes %s" % (name, lib))
    # Every installed header compiles with the installed include directory alone (one file that
    # includes them all): none reaches for a private header of the source tree.
    include = os.path.join(p, "include")
    headers = sorted(os.path.relpath(os.path.join(d, f), include)
                     for d, _, files in os.walk(include) for f in files if f.endswith(".h"))
    all_h = os.path.join(A.scratch, "all_headers.cpp")
    with open(all_h, "w") as f:
        f.writelines('#include "%s"\n' % h for h in headers)
    run_ok([A.cxx, "-std=c++20", "-fsyntax-only", "-I", include, all_h], "compiling the installed headers")
    print("ok: staged under %s (libraries in %s); its %d headers compile" % (p, rel_lib, len(headers)))


def example_source():
    return os.path.join(A.source, "examples", "primes")


def configure_against_stage(source, build):
    """The cmake command that configures a project of a user's own against the staged install."""
    command = [A.cmake, "-S", source, "-B", build, "-DCMAKE_PREFIX_PATH=" + prefix_dir(),
               "-DCMAKE_CXX_COMPILER=" + A.cxx, "-DCMAKE_BUILD_TYPE=Release"]
    return command + (["-G", "Ninja"] if shutil.which("ninja") else [])


def case_example_cmake():
    build = os.path.join(A.scratch, "example-cmake")
    if os.path.exists(build):
        shutil.rmtree(build)
    run_ok(configure_against_stage(example_source(), build), "configuring the example")
    # find_package must have found the staged package, not one installed on this machine.
    cache = open(os.path.join(build, "CMakeCache.txt")).read()
    found = [line.split("=", 1)[1] for line in cache.splitlines() if line.startswith("SparkScope_DIR:")]
    expect(found and os.path.realpath(found[0]).startswith(os.path.realpath(prefix_dir())),
           "find_package(SparkScope) found %s, not the staged install" % found)
    run_ok([A.cmake, "--build", build], "building the example")
    binary = os.path.join(build, "primes")
    check_needed_libraries(binary)
    trace = os.path.join(build, "primes.eventlog")
    run_example(binary, trace, lib_dir())
    check_trace(os.path.join(prefix_dir(), "bin", "sparkscope-cli"), trace, os.path.join(example_source(), "main.cpp"))

    # A tool of one's own on SparkScope::core (whose headers bring Boost.Container's) reads the trace.
    reader_build = os.path.join(A.scratch, "core-reader")
    if os.path.exists(reader_build):
        shutil.rmtree(reader_build)
    reader_source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "core_reader")
    run_ok(configure_against_stage(reader_source, reader_build), "configuring core_reader")
    run_ok([A.cmake, "--build", reader_build], "building core_reader")
    env = dict(os.environ, LD_LIBRARY_PATH=lib_dir())
    out = run_ok([os.path.join(reader_build, "core_reader"), trace], "core_reader", env=env).strip()
    expect(out == "conjunctions=%d futures=1" % CONJUNCTIONS, "core_reader printed %r" % out)
    print("ok: a program linking SparkScope::core read the trace: " + out)


def case_example_pkgconfig():
    pkg_config = shutil.which("pkg-config")
    if not pkg_config:
        skip("pkg-config is not installed (Debian package pkg-config): the pkg-config files were not tried")
    build = os.path.join(A.scratch, "example-pkgconfig")
    if os.path.exists(build):
        shutil.rmtree(build)
    os.makedirs(build)
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(lib_dir(), "pkgconfig"))
    env.pop("PKG_CONFIG_LIBDIR", None)
    flags = run_ok([pkg_config, "--cflags", "--libs", "sparkscope-runtime"], "pkg-config", env=env).split()
    expect(any(f.startswith("-I") and os.path.realpath(f[2:]).startswith(os.path.realpath(prefix_dir()))
               for f in flags), "pkg-config's flags do not point into the staged install: %s" % flags)
    source = os.path.join(example_source(), "main.cpp")
    # The headers the example includes, as the compiler lists them: none of Boost's or TBB's.
    deps = run_ok([A.cxx, "-std=c++20", "-M", source] + [f for f in flags if f.startswith("-I")],
                  "listing the example's headers", env=env)
    leaked = sorted({w for w in deps.split() if "/boost/" in w or "/tbb/" in w or "/oneapi/" in w})
    expect(not leaked, "the runtime's headers pull in Boost or TBB headers: %s" % leaked[:5])
    expect("sparkscope/runtime/runtime.h" in deps, "the header list does not show the runtime's headers")
    binary = os.path.join(build, "primes")
    # LD_LIBRARY_PATH also lets the linker find libsparkscope-core, which libsparkscope-runtime needs.
    link_env = dict(env, LD_LIBRARY_PATH=lib_dir())
    run_ok([A.cxx, "-std=c++20", "-O2", source, "-o", binary] + flags, "compiling the example", env=link_env)
    check_needed_libraries(binary)
    trace = os.path.join(build, "primes.eventlog")
    run_example(binary, trace, lib_dir())
    check_trace(os.path.join(prefix_dir(), "bin", "sparkscope-cli"), trace, source)


def main():
    global A
    p = argparse.ArgumentParser()
    p.add_argument("--case", required=True, choices=["stage", "example-cmake", "example-pkgconfig"])
    p.add_argument("--build", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--cmake", required=True)
    p.add_argument("--cxx", required=True)
    p.add_argument("--scratch", required=True)
    A = p.parse_args()
    os.makedirs(A.scratch, exist_ok=True)
    try:
        {"stage": case_stage, "example-cmake": case_example_cmake, "example-pkgconfig": case_example_pkgconfig}[A.case]()
    except Failure as e:
        print("FAILED: %s" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
