#!/usr/bin/env python3
"""The man pages (docs/man/*.1, written by hand) against the programs they describe: every command
`sparkscope-cli --help` lists has an entry, and every option of its `COMMAND --help` is named in
it; every option of `sparkscope --help` and `sparkscope-demo --help` is named in their pages; every
workload of `sparkscope-demo --list` is listed. So a new command, option or workload fails here
until its man page says what it does.
"""
import argparse
import os
import re
import subprocess
import sys


def text_of(page):
    """The man page's words, troff escapes undone: \\- is -, font changes go."""
    t = open(page).read()
    t = re.sub(r"\\f[BIRP]", "", t)
    t = t.replace("\\-", "-").replace("\\(em", "-")
    return re.sub(r"^\.[A-Z]+ ?", "", t, flags=re.M)


def output(args, env=None):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=120)
    return r.stdout.decode(errors="replace")


def options_in(help_text):
    """The long options (--name) and the short -o style options a --help text lists."""
    found = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", help_text))
    found |= set(re.findall(r"(?<![\w-])(-[a-z])\b(?= [A-Z])", help_text))
    return found


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--man", required=True)
    p.add_argument("--cli", required=True)
    p.add_argument("--demo", required=True)
    p.add_argument("--app")
    a = p.parse_args()
    problems = []

    raw = open(os.path.join(a.man, "sparkscope-cli.1")).read()
    page = text_of(os.path.join(a.man, "sparkscope-cli.1"))
    commands = re.findall(r"^  (\w+) {2,}", output([a.cli, "--help"]), re.M)
    if not commands:
        problems.append("sparkscope-cli --help lists no commands")
    for command in commands:
        # An entry of the COMMANDS section: .TP, then the command's synopsis line.
        if not re.search(r'^\.TP\n\.BI? "?%s\b' % command, raw, re.M):
            problems.append("sparkscope-cli.1 has no entry for the command %s" % command)
        for option in sorted(options_in(output([a.cli, command, "--help"]))):
            if option not in page:
                problems.append("sparkscope-cli.1 does not name %s %s" % (command, option))

    page = text_of(os.path.join(a.man, "sparkscope-demo.1"))
    for option in sorted(options_in(output([a.demo, "--help"]))):
        if option not in page:
            problems.append("sparkscope-demo.1 does not name %s" % option)
    for line in output([a.demo, "--list"]).splitlines():
        workload = line.split()[0]
        options = re.findall(r"--[a-z]+", line)
        if not re.search(r"^%s\n" % workload, page, re.M):
            problems.append("sparkscope-demo.1 does not list the workload %s" % workload)
        for option in options:
            if not re.search(r"^%s\n[^\n]*\n[^\n]*%s\b" % (workload, re.escape(option)), page, re.M):
                problems.append("sparkscope-demo.1 does not give %s's option %s" % (workload, option))
        # WORKLOAD --help gives that workload's line (it once read --help as an option wanting a value).
        if not output([a.demo, workload, "--help"]).startswith("%s: %s" % (workload, " ".join(line.split()[1:])[:20])):
            problems.append("sparkscope-demo %s --help does not describe %s" % (workload, workload))

    if a.app:
        page = text_of(os.path.join(a.man, "sparkscope.1"))
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        for option in sorted(options_in(output([a.app, "--help"], env))):
            if option not in page:
                problems.append("sparkscope.1 does not name %s" % option)

    for problem in problems:
        print("FAILED: " + problem)
    if not problems:
        print("ok: %d sparkscope-cli commands, their options, sparkscope-demo's options and workloads%s are "
              "in the man pages" % (len(commands), ", sparkscope's options" if a.app else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
