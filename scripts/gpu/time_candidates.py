#!/usr/bin/env python3
"""On the NVIDIA machine, from the repository root: a testbed of examples/ with its kernel replaced by
each candidate file given (the file's text where the original definition was), built and run; each
line gives the program's exit status and what it printed (the testbeds time themselves and check
their result on the CPU). A quick look at candidates before a whole `rocm-perf optimize` run.
  time_candidates.py SOURCE KERNEL "BUILD" "ARGS" CANDIDATE...
BUILD: a command with {DIR} (the copy of examples/ that holds the variant) and {BINARY}; ARGS: the
program's arguments, several runs separated by ';'. The original is timed first."""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile


def definition_range(text, kernel):
    """Start and end of the kernel's definition, with the template line before it."""
    match = re.search(r"__global__[^;{]*?\b" + re.escape(kernel) + r"\s*\(", text)
    start = match.start()
    template = text.rfind("template", 0, start)
    if template >= 0 and text[template:start].count(";") == 0 and text[template:start].count("}") == 0:
        start = template
    depth, at = 0, text.index("{", match.end())
    while True:
        depth += {"{": 1, "}": -1}.get(text[at], 0)
        at += 1
        if depth == 0:
            return start, at


def main():
    source, kernel, build, runs, *candidates = sys.argv[1:]
    work = tempfile.mkdtemp()
    try:
        original = open(source).read()
        for candidate in [None] + candidates:
            name = os.path.basename(candidate or source).rsplit(".", 1)[0]
            folder = os.path.join(work, name)
            shutil.copytree("examples", folder)
            text = original
            if candidate:
                start, end = definition_range(original, kernel)
                text = original[:start] + open(candidate).read() + original[end:]
            with open(os.path.join(folder, os.path.relpath(source, "examples")), "w") as f:
                f.write(text)
            binary = os.path.join(work, name + ".bin")
            command = [a.replace("{DIR}", folder).replace("{BINARY}", binary) for a in shlex.split(build)]
            built = subprocess.run(command, capture_output=True, text=True)
            if built.returncode != 0:
                print(f"{name}: does not build: {built.stderr[:400]}")
                continue
            for args in runs.split(";"):
                ran = subprocess.run([binary] + shlex.split(args), capture_output=True, text=True, timeout=300)
                output = " ".join((ran.stdout + ran.stderr).split())
                print(f"{name} [{args.strip()}] exit={ran.returncode} {output}", flush=True)
    finally:
        shutil.rmtree(work)


main()
