#!/usr/bin/python3
"""Chapter 11's default run in fp32 and in bf16 (--precision), side by side: the record the page on
mixed precision (docs/mixed_precision.md) shows. Both runs are the same command but for the
precision, one after the other on the same machine; nothing in the record is typed by hand.

Usage:
  experiments/mixed_precision.py run [--exe PATH] [--work DIR]
      run both in DIR/fp32 and DIR/bf16 (default /tmp/mixed-precision), then record them
  experiments/mixed_precision.py record DIR
      record the runs already made in DIR/fp32 and DIR/bf16

Time. The training's own line ("trained N steps in S s ...") gives the seconds of training; the
machine may have been running other work, which the record's load averages show.
"""
import os
import re
import subprocess
import sys
import time

from machine import cpu_name

LAB = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(LAB)
RECORD = os.path.join(LAB, "recorded_mixed_precision.txt")
PRECISIONS = ["fp32", "bf16"]


def command(precision):
    return ["--precision", precision, "--save", "vowels.ckpt"]


def run(exe, work):
    for precision in PRECISIONS:
        folder = os.path.join(work, precision)
        os.makedirs(folder, exist_ok=True)
        env = dict(os.environ, OMP_WAIT_POLICY="passive")  # other work may share the cores
        load = os.getloadavg()[0]
        with open(os.path.join(folder, "out.txt"), "w") as out:
            code = subprocess.run([exe] + command(precision), cwd=folder, stdout=out,
                                  stderr=subprocess.STDOUT, env=env).returncode
        with open(os.path.join(folder, "load.txt"), "w") as f:
            f.write("%.2f %.2f\n" % (load, os.getloadavg()[0]))
        if code != 0:
            sys.exit("%s failed (exit %d); see %s/out.txt" % (precision, code, folder))
    record(work)


def accuracy(results):
    m = re.search(r"^\s*this model[^\n]*?(0\.\d{4})", results, re.M)
    return m.group(1) if m else "?"


def record(work):
    runs = {}
    for precision in PRECISIONS:
        path = os.path.join(work, precision, "results_vowels.txt")
        if not os.path.exists(path):
            sys.exit("%s: missing (has the run finished?)" % path)
        results = open(path).read()
        trained = re.search(r"^trained (\d+) steps in ([0-9.]+) s on (\d+) threads?: ([0-9]+) tokens/s",
                            results, re.M)
        load_path = os.path.join(work, precision, "load.txt")
        load = open(load_path).read().split() if os.path.exists(load_path) else ["?", "?"]
        runs[precision] = {"results": results, "steps": trained.group(1), "seconds": float(trained.group(2)),
                           "threads": trained.group(3), "tokens": trained.group(4), "load": load}
    fp32, bf16 = runs["fp32"], runs["bf16"]
    lines = [
        "# chapter 11's default run in fp32 and in bf16, recorded on %s on %s" % (time.strftime("%Y-%m-%d"),
                                                                                 cpu_name()),
        "# the CPU's bf16 instructions: %s" % bf16_flags(),
        "# the two runs one after the other, with OMP_WAIT_POLICY=passive:",
    ]
    lines += ["./build/bin/ch11_train_test " + " ".join(command(p)) for p in PRECISIONS]
    lines += ["",
              "precision  steps  training s  tokens/s  threads  load average (start, end)",
              ]
    for precision in PRECISIONS:
        r = runs[precision]
        lines.append("%-9s  %5s  %10.1f  %8s  %7s  %s, %s" % (precision, r["steps"], r["seconds"], r["tokens"],
                                                               r["threads"], r["load"][0], r["load"][1]))
    lines += ["bf16 trained %.2f times as fast as fp32" % (fp32["seconds"] / bf16["seconds"]), ""]
    for precision in PRECISIONS:
        lines += ["# what the %s run wrote to results_vowels.txt:" % precision, "", runs[precision]["results"]]
    with open(RECORD, "w") as f:
        f.write("\n".join(lines))
    print("wrote", os.path.relpath(RECORD, ROOT))


def bf16_flags():
    flags = []
    for line in open("/proc/cpuinfo"):
        if line.startswith("flags"):
            flags = line.split(":", 1)[1].split()
            break
    found = [f for f in ("avx512_bf16", "amx_bf16") if f in flags]
    return ", ".join(found) if found else "none"


def main(argv):
    if len(argv) < 2 or argv[1] not in ("run", "record"):
        sys.exit(__doc__)
    options = dict(zip(argv[2::2], argv[3::2]))
    if argv[1] == "record":
        if len(argv) != 3:
            sys.exit(__doc__)
        record(argv[2])
        return
    exe = options.get("--exe", os.path.join(ROOT, "build", "bin", "ch11_train_test"))
    run(os.path.abspath(exe), os.path.abspath(options.get("--work", "/tmp/mixed-precision")))


if __name__ == "__main__":
    main(sys.argv)
