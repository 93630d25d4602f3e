#!/usr/bin/python3
"""The pronunciation project's recorded runs (projects/pronounce): the program's default run and its
longer recipe. Each is one command of build/bin/pronounce; this script runs it (training, then
testing on every test word) and writes the record the project's page shows: the command, the
machine, the time and what the program wrote to results_pronounce.txt (for the recipe, the same
again for the mean of the weights of its last five checkpoints). Nothing in them is typed by hand.

Usage:
  experiments/pronounce_recipe.py default [--exe PATH] [--work DIR]
      run the default (DIR default /tmp/pronounce-default) and write recorded_pronounce_default.txt,
      with the loss curve and the cross-attention heat map it draws (recorded_pronounce_*.svg)
  experiments/pronounce_recipe.py run [--exe PATH] [--work DIR]
      run the recipe in DIR (default /tmp/pronounce-recipe), then record it
  experiments/pronounce_recipe.py record DIR [--threads N] [--exe PATH]
      record a run of the recipe made by hand in DIR: its command (`pronounce_recipe.py command`),
      started in DIR under `/usr/bin/time -v`, its output (and time's) in DIR/log.txt; --threads:
      its OMP_NUM_THREADS, for a program older than the summary line that names them
  experiments/pronounce_recipe.py command                  print the recipe's command
  experiments/pronounce_recipe.py try [--exe PATH] [--work DIR]
      the project page's "Try it": in DIR (default /tmp/pronounce-try), make the checkpoint its
      exercises load (`--save g2p.ckpt`, the default run) unless DIR/g2p.ckpt exists (made by
      hand: its output and `/usr/bin/time -v`'s in DIR/log.txt), then run every exercise's
      command in DIR/try_K, timed, and write recorded_pronounce_try_K.txt (K = 0 for the
      checkpoint's run) for the answers

Time. "Idle minutes on 2 cores" is the process's CPU time (user + system) / 2: what the run takes on
two otherwise idle cores when both threads are busy. The wall time depends on what else the machine
ran, and is given beside it.
"""
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import time

from machine import cpu_name

LAB = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(LAB)
RECORD = os.path.join(LAB, "recorded_pronounce_recipe.txt")
DEFAULT_RECORD = os.path.join(LAB, "recorded_pronounce_default.txt")
# The figures of the default run, as the program drew them, under the names the page shows.
DEFAULT_FIGURES = {"loss_curve_pronounce.svg": "recorded_pronounce_loss_curve.svg",
                   "attention_pronounce_cross.svg": "recorded_pronounce_attention_cross.svg"}
STEPS = 15000
RECIPE = ["--set", "n_encoder_layers=3", "--set", "n_decoder_layers=3",
          "--set", "dropout=0.1", "--set", "label_smoothing=0.1", "--steps", str(STEPS),
          "--eval-every", "1000", "--save", "g2p.ckpt", "--save-every", "1500"]
# The paper's base models average the weights of their last 5 checkpoints (section 6.1): so does
# the second half of the record, from the checkpoints the recipe saved.
AVERAGED = ["g2p.ckpt-step%d" % s for s in range(STEPS - 4 * 1500, STEPS + 1, 1500)]


def seconds(log, label):
    m = re.search(r"^\s*%s \(seconds\): ([0-9.]+)$" % re.escape(label), log, re.M)
    if not m:
        sys.exit("log.txt has no '%s' line: run the command under /usr/bin/time -v" % label)
    return float(m.group(1))


def averaged_results(exe, work):
    """results_pronounce.txt of the mean of the last five checkpoints' weights, tested in WORK/average."""
    out = os.path.join(work, "average")
    os.makedirs(out, exist_ok=True)
    if not os.path.exists(os.path.join(out, "results_pronounce.txt")):
        args = [a for c in AVERAGED for a in ("--average", os.path.join(work, c))]
        subprocess.run([exe] + args, cwd=out, stdout=subprocess.DEVNULL, check=True)
    return open(os.path.join(out, "results_pronounce.txt")).read()


def record(work, exe, threads=None):
    log = open(os.path.join(work, "log.txt"), errors="replace").read()
    results_path = os.path.join(work, "results_pronounce.txt")
    if not os.path.exists(results_path):
        sys.exit("%s: no results_pronounce.txt (the run has not finished)" % work)
    cpu = seconds(log, "User time") + seconds(log, "System time")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([0-9:.]+)", log).group(1)
    results = open(results_path).read()
    said = re.search(r" on (\d+) threads?: ", results)  # the training's summary line names them
    threads = said.group(1) if said else threads or "not recorded"
    header = [
        "# the pronounce recipe, recorded on %s on %s" % (time.strftime("%Y-%m-%d", time.gmtime(
            os.path.getmtime(results_path))), cpu_name()),
        "./build/bin/pronounce " + " ".join(RECIPE),
        "# %d steps and the tests: %.1f CPU minutes, so %.1f minutes on two idle cores (CPU time / 2);"
        % (STEPS, cpu / 60, cpu / 120),
        "# wall time %s, on %s thread(s) (the machine may have been running other work)" % (wall, threads),
        "# what it wrote to results_pronounce.txt:",
        "",
    ]
    average = [
        "",
        "# the mean of the weights of its last five checkpoints, tested (--average):",
        "./build/bin/pronounce " + " ".join("--average " + c for c in AVERAGED),
        "",
    ]
    with open(RECORD, "w") as f:
        f.write("\n".join(header) + "\n" + results + "\n".join(average) + "\n" + averaged_results(exe, work))
    print("wrote", os.path.relpath(RECORD, ROOT))


def run_timed(exe, args, work):
    """Runs `exe args` in `work`, its output and the lines of `/usr/bin/time -v` that record() reads
    in work/log.txt; exits if it fails."""
    os.makedirs(work, exist_ok=True)
    start = time.time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)  # the children's so far: try runs several
    with open(os.path.join(work, "log.txt"), "w") as log:
        code = subprocess.run([exe] + args, cwd=work, stdout=log, stderr=subprocess.STDOUT).returncode
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.time() - start
        # The lines /usr/bin/time -v writes, which record() reads.
        log.write("\tUser time (seconds): %.2f\n\tSystem time (seconds): %.2f\n"
                  "\tElapsed (wall clock) time (h:mm:ss or m:ss): %d:%02d:%02d\n"
                  % (usage.ru_utime - before.ru_utime, usage.ru_stime - before.ru_stime,
                     wall // 3600, wall % 3600 // 60, wall % 60))
    if code != 0:
        sys.exit("%s failed (exit %d); see %s/log.txt" % (" ".join([exe] + args), code, work))


def run(exe, work):
    run_timed(exe, RECIPE, work)
    record(work, exe)


def record_default(exe, work):
    """Runs the program's default (1,200 steps, then every test word) and records it with its figures."""
    run_timed(exe, [], work)
    log = open(os.path.join(work, "log.txt"), errors="replace").read()
    cpu = seconds(log, "User time") + seconds(log, "System time")
    results = open(os.path.join(work, "results_pronounce.txt")).read()
    header = [
        "# the pronunciation project's default run, recorded on %s on %s" % (time.strftime("%Y-%m-%d"), cpu_name()),
        "./build/bin/pronounce",
        "# %.1f CPU minutes for training and the tests (the machine may have been running other work);" % (cpu / 60),
        "# what it wrote to results_pronounce.txt:",
        "",
    ]
    with open(DEFAULT_RECORD, "w") as f:
        f.write("\n".join(header) + "\n" + results)
    print("wrote", os.path.relpath(DEFAULT_RECORD, ROOT))
    for drawn, kept in DEFAULT_FIGURES.items():
        shutil.copyfile(os.path.join(work, drawn), os.path.join(LAB, kept))
        print("wrote", os.path.join("experiments", kept))


# ------------------------------------------------------------------------------------------------
# try: the records the answers of the page's "Try it" quote

PAGE = os.path.join(ROOT, "projects", "pronounce", "README.md")
TRY_RECORD = os.path.join(LAB, "recorded_pronounce_try_%d.txt")
CHECKPOINT = ["--save", "g2p.ckpt"]


def try_it_commands(page=PAGE):
    """The arguments of every exercise of the page's "## Try it": the first
    `./build/bin/pronounce ...` of each numbered item, in order."""
    commands, inside, item = [], False, None
    for line in open(page, encoding="utf-8"):
        if line.startswith("## "):
            inside = line.startswith("## Try it")
            continue
        if not inside:
            continue
        if re.match(r"\d+\.\s", line):
            item = len(commands)
            commands.append(None)
        m = re.search(r"`\./build/bin/pronounce((?: [^`]*)?)`", line)
        if m and item is not None and commands[item] is None:
            commands[item] = shlex.split(m.group(1))
    return [c for c in commands if c is not None]


def write_try_record(number, args, work):
    """recorded_pronounce_try_N.txt: the command, the machine, the time and what the program
    printed (its results_pronounce.txt when it tested the model, else its output)."""
    log = open(os.path.join(work, "log.txt"), errors="replace").read()
    cpu = seconds(log, "User time") + seconds(log, "System time")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([0-9:.]+)", log).group(1)
    wall = sum(float(part) * 60 ** k for k, part in enumerate(reversed(wall.split(":"))))
    results_path = os.path.join(work, "results_pronounce.txt")
    if os.path.exists(results_path):
        said, printed = "what it wrote to results_pronounce.txt", open(results_path).read()
    else:
        said = "what it printed"
        printed = log[:log.index("\tUser time")] if "\tUser time" in log else log
    what = "the checkpoint the exercises load" if number == 0 else "exercise %d" % number
    header = [
        "# the pronunciation project's Try it, %s, recorded on %s on %s" % (
            what, time.strftime("%Y-%m-%d", time.gmtime(os.path.getmtime(os.path.join(work, "log.txt")))),
            cpu_name()),
        "./build/bin/pronounce " + shlex.join(args),
        "# %s wall time, %.1f CPU seconds (the machine may have been running other work);"
        % ("%.0f s" % wall if wall >= 1 else "under 1 s", cpu),
        "# %s:" % said,
        "",
    ]
    path = TRY_RECORD % number
    with open(path, "w") as f:
        f.write("\n".join(header) + "\n" + printed.rstrip("\n") + "\n")
    print("wrote", os.path.relpath(path, ROOT))


def record_try_it(exe, work):
    """Makes the checkpoint (unless WORK/g2p.ckpt exists), then runs every exercise of the page in
    WORK/try_K, where g2p.ckpt is the checkpoint (a link), and records each."""
    if not os.path.exists(os.path.join(work, "g2p.ckpt")):
        run_timed(exe, CHECKPOINT, work)
    write_try_record(0, CHECKPOINT, work)
    for k, args in enumerate(try_it_commands(), 1):
        where = os.path.join(work, "try_%d" % k)
        os.makedirs(where, exist_ok=True)
        link = os.path.join(where, "g2p.ckpt")
        if not os.path.lexists(link):
            os.symlink(os.path.join(os.path.abspath(work), "g2p.ckpt"), link)
        if os.path.exists(os.path.join(where, "results_pronounce.txt")):
            os.remove(os.path.join(where, "results_pronounce.txt"))
        run_timed(exe, args, where)
        write_try_record(k, args, where)


def main(argv):
    options = {"--exe": os.path.join(ROOT, "build", "bin", "pronounce"), "--work": None, "--threads": None}
    args = []
    i = 0
    while i < len(argv):
        if argv[i] in ("--exe", "--work", "--threads") and i + 1 < len(argv):
            options[argv[i]] = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if not args or args[0] in ("-h", "--help", "help"):
        print(__doc__)
        return 0
    if args[0] == "command":
        print("./build/bin/pronounce " + " ".join(RECIPE))
    elif args[0] == "default" and len(args) == 1:
        record_default(options["--exe"], options["--work"] or "/tmp/pronounce-default")
    elif args[0] == "try" and len(args) == 1:
        record_try_it(options["--exe"], options["--work"] or "/tmp/pronounce-try")
    elif args[0] == "run" and len(args) == 1:
        run(options["--exe"], options["--work"] or "/tmp/pronounce-recipe")
    elif args[0] == "record" and len(args) == 2:
        record(args[1], options["--exe"], options["--threads"])
    else:
        sys.exit("usage: pronounce_recipe.py default | run | record DIR | command | try (see --help)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
