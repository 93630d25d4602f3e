#!/usr/bin/python3
"""The lab's vowel-restoration trials: each trial is one command of chapter 11's program; this
script runs them, reads what the program wrote (results_vowels.txt and its summary line) and what
the lab's vowel_word_kinds says of the trial's checkpoint, keeps one row per trial in
experiments/trials.tsv and renders that file as the plain-text tables the book includes
(recorded_trials.txt and recorded_recipe_checks.txt on the lab's page, recorded_recipe.txt on
chapter 11's). Nothing in those files is typed by hand.

Usage:
  experiments/vowel_trials.py list                      every trial and its command
  experiments/vowel_trials.py run ID [ID ...]           run the trials (training then testing), record them
  experiments/vowel_trials.py record ID WORK_DIR        record a run of the trial's exact command made by
                                                  hand in WORK_DIR (see below), without running it
  experiments/vowel_trials.py retest ID [ID ...]        test the weights a row was measured from again with the
                                                  current program, for columns added since (same --work)
  experiments/vowel_trials.py pace                      time the recipe's steps and tests on this machine, which
                                                  must be otherwise idle (keeps recipe_pace.tsv: one row
                                                  per CPU, thread count and OpenBLAS kernel set; set
                                                  OMP_NUM_THREADS and OPENBLAS_CORETYPE to choose them)
  experiments/vowel_trials.py render                    rewrite the three recorded_*.txt files from trials.tsv
  experiments/vowel_trials.py check                     exit 1 if they are out of date
                                                  (or if DEFAULT_STEPS is not the program's default)

Options: --keep (record: leave the checkpoint rows already in trials.tsv as they are), --exe PATH
(default build/bin/ch11_train_test; build/bin/vowel_word_kinds is looked for beside it), --work DIR
(default /tmp/vowel-trials), --time-machine FILE (the Time Machine trials' corpus; they are skipped
without it), --test-corpus FILE (the other text every trial is also tested on; default: Debian's
copy of The Adventures of Tom Sawyer, package golang-github-klauspost-compress-dev).

Time. A trial's wall time depends on what else the machine runs; its CPU time does not, much. The
tables give "idle minutes on 2 cores" = the process's CPU time (user + system) / 2, which is what
the run takes on two otherwise idle cores when both threads are busy all the time (a slight
underestimate: the part of a step that runs on one thread is counted once). The wall time of the
recorded run and the machine's load average during it are kept in trials.tsv too. Runs that share
the cores with others use more CPU time for the same work (the caches and the memory are shared), so
the recipe's own time is measured apart: `pace` runs its first PACE_STEPS steps and its tests on
the idle machine, and the recipe's table gives the time that pace makes of its steps, for every
CPU, thread count and kernel set timed.

Checkpoint rows: a trial with "of": (PARENT, S) is the weights PARENT's run saved after step S
(`--save-every`). Training is deterministic for a seed and a number of steps, and the learning
rate does not depend on the budget, so those are the weights `--steps S` trains: the row shows
that command, and is measured by testing the checkpoint (`--load`); its time is S/steps of the
parent's.

`record ID WORK_DIR`: WORK_DIR holds what the trial's command (`list` prints it; run it in
WORK_DIR, with --save WORK_DIR/ck, which the word-kind analysis reads) wrote: results_vowels.txt, the program's output as log.txt,
and cpu.txt, lines "unix-time cpu-ticks load" sampled every few seconds while it ran (the ticks
are fields 14 + 15 of /proc/PID/stat, 100 per second); without cpu.txt, the run's time is the
training's own, from the summary line of results_vowels.txt. A run that has not finished gives its
checkpoint rows only.
"""
import csv
import fcntl
import os
import re
import resource
import subprocess
import sys
import time

from machine import cpu_name

LAB = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(LAB)
TSV = os.path.join(LAB, "trials.tsv")
TXT = os.path.join(LAB, "recorded_trials.txt")
PACE_TSV = os.path.join(LAB, "recipe_pace.tsv")
PACE_STEPS = 400
RECIPE_TXT = os.path.join(LAB, "recorded_recipe.txt")  # chapter 11's page: the recipe
CHECKS_TXT = os.path.join(LAB, "recorded_recipe_checks.txt")  # the lab's page: on both corpora, by word
TEST_CORPUS = "/usr/share/gocode/src/github.com/klauspost/compress/testdata/Mark.Twain-Tom.Sawyer.txt"
TEST_CORPUS_NAME = "The Adventures of Tom Sawyer"
DEFAULT_STEPS = 5300   # the task's default budget (chapter 11's default run); `check` compares
WINDOW, BATCH = 40, 64  # characters per window; the default batch

# The model of the earlier default run (1,600 steps), of the longer runs and of the recipe.
SMALL = ["--preset", "vowels-small"]
# The candidates for the longer run: each trained for LONG_STEPS (or its own steps), with checkpoints.
# The second: vowels-small with dropout 0.1 (rows "dropout", "dropout-tm" and their checkpoints).
DROPOUT_MODEL = SMALL + ["--set", "dropout=0.1"]
LONG_STEPS = 12000
CHECKPOINT_EVERY = 2000
# The third: the second one encoder and one decoder layer deeper (the pronounce recipe's depth).
DEEP_MODEL = DROPOUT_MODEL + ["--set", "n_encoder_layers=3", "--set", "n_decoder_layers=3"]
# A fourth: the second with the paper's label smoothing (0.1), trained for longer.
SMOOTH_MODEL = DROPOUT_MODEL + ["--set", "label_smoothing=0.1"]
SMOOTH_STEPS = 20000
# The recipe the page proposes: the fourth's model, 14,000 steps (a checkpoint of its runs).
RECIPE_STEPS = 14000
RECIPE_IDS = ("smooth-%d" % RECIPE_STEPS, "smooth-tm-%d" % RECIPE_STEPS)


def long_run(run_id, corpus, what, checkpoint_what, model, steps=LONG_STEPS):
    """A run of `steps` steps that saves a checkpoint every CHECKPOINT_EVERY steps: one row per
    checkpoint (RUN_ID-STEP, measured from the checkpoint), then the run's own row."""
    return [dict(id="%s-%d" % (run_id, s), corpus=corpus, what=checkpoint_what, of=(run_id, s),
                 args=model + ["--steps", str(s)]) for s in range(CHECKPOINT_EVERY, steps, CHECKPOINT_EVERY)] + [
        dict(id=run_id, corpus=corpus, what=what, args=model + ["--steps", str(steps)],
             save_every=CHECKPOINT_EVERY)]


def short_run(*settings):
    """The earlier default run's budget: vowels-small with `settings`, for 1,600 steps."""
    return SMALL + list(settings) + ["--steps", "1600"]


# id, corpus, what it tries, extra arguments (after `--task vowels`), parent checkpoint.
TRIALS = [
    dict(id="d0.1-lr2e-3", corpus="sherlock", what="an earlier default: dropout 0.1, peak 2e-3 after 100",
         args=short_run("--set", "dropout=0.1", "--set", "learning_rate=0.002", "--set", "warmup_steps=100")),
    dict(id="d0.1-lr4e-3", corpus="sherlock", what="dropout 0.1, peak 4e-3 after 200",
         args=short_run("--set", "dropout=0.1")),
    dict(id="d0-lr2e-3", corpus="sherlock", what="no dropout, peak 2e-3 after 100",
         args=short_run("--set", "learning_rate=0.002", "--set", "warmup_steps=100")),
    dict(id="d0-lr3e-3", corpus="sherlock", what="no dropout, peak 3e-3 after 100",
         args=short_run("--set", "learning_rate=0.003", "--set", "warmup_steps=100")),
    dict(id="small-1600", corpus="sherlock", what="the earlier default run: no dropout, peak 4e-3 after 200",
         args=short_run()),
    # Five minutes on two cores of Zen 3: the same budget spent on models of three widths, then
    # variations of the narrowest, which became the default (vowels-tiny, DEFAULT_STEPS).
    dict(id="small-2250", corpus="sherlock", what="vowels-small for five minutes", args=SMALL + ["--steps", "2250"]),
    dict(id="d96-3200", corpus="sherlock", what="d_model 96, d_ff 384, for five minutes",
         args=SMALL + ["--set", "d_model=96", "--set", "d_ff=384", "--steps", "3200"]),
    dict(id="default", corpus="sherlock", what="the default run: vowels-tiny (d_model 64, d_ff 256)", args=[]),
    dict(id="default-seed2", corpus="sherlock", what="the default run from another seed", args=["--seed", "2"]),
    dict(id="tiny-smooth", corpus="sherlock", what="the default with label smoothing 0.1",
         args=["--set", "label_smoothing=0.1"]),
    dict(id="tiny-deep", corpus="sherlock", what="the default with 3 + 3 layers, for five minutes",
         args=["--set", "n_encoder_layers=3", "--set", "n_decoder_layers=3", "--steps", "3700"]),
    dict(id="tiny-lr6e-3", corpus="sherlock", what="the default with a peak rate of 6e-3",
         args=["--set", "learning_rate=0.006"]),
    dict(id="d48-7000", corpus="sherlock", what="d_model 48, d_ff 192, for five minutes",
         args=["--set", "d_model=48", "--set", "d_ff=192", "--steps", "7000"]),
] + [
    dict(id="d256-%d" % s, corpus="sherlock", what="d_model 256, d_ff 1024", of=("d256", s),
         args=SMALL + ["--set", "d_model=256", "--set", "d_ff=1024", "--steps", str(s)])
    for s in (400, 800, 1200, 1600)
] + [
    # The first candidate for the longer run, stopped after step 1,600: its checkpoint rows above.
    dict(id="d256", corpus="sherlock", what="d_model 256, d_ff 1024",
         args=SMALL + ["--set", "d_model=256", "--set", "d_ff=1024", "--steps", "2400"], save_every=400),
]
TRIALS += long_run("dropout", "sherlock", "the second candidate: vowels-small with dropout 0.1",
                   "vowels-small with dropout 0.1", DROPOUT_MODEL)
TRIALS += long_run("deep", "sherlock", "the third candidate: the second with 3 + 3 layers",
                   "the second candidate with 3 + 3 layers", DEEP_MODEL)
TRIALS += long_run("dropout-tm", "time-machine", "the second candidate on The Time Machine",
                   "vowels-small with dropout 0.1", DROPOUT_MODEL)
TRIALS += long_run("smooth", "sherlock", "the fourth candidate: the second with label smoothing 0.1, for longer",
                   "the second candidate with label smoothing 0.1", SMOOTH_MODEL, SMOOTH_STEPS)
TRIALS += long_run("smooth-tm", "time-machine", "the fourth candidate on The Time Machine",
                   "the second candidate with label smoothing 0.1", SMOOTH_MODEL, SMOOTH_STEPS)
# The default model with the recipe's settings, for as long as the recipe takes on a slow CPU.
TINY_SMOOTH_MODEL = ["--set", "dropout=0.1", "--set", "label_smoothing=0.1"]
TRIALS += long_run("tiny-long", "sherlock", "the default model with the recipe's settings, for longer",
                   "the default model with the recipe's settings", TINY_SMOOTH_MODEL, SMOOTH_STEPS)
# The recipe under one OpenBLAS kernel set and thread count, on each corpus: its promise should
# not depend on the machine. Each cell is a run of RECIPE_STEPS with checkpoints, and is run and
# tested with the environment its command shows. (Haswell's and Zen's kernels give the same bits,
# and so do 1 and 2 threads; SkylakeX and Cooperlake need a CPU with AVX-512.)
MATRIX_KERNELS = ("Haswell", "Sandybridge", "SkylakeX", "Cooperlake")
MATRIX_THREADS = ("1", "2")


def recipe_cell(corpus, kernels, threads):
    run_id = "recipe%s-%s-%st" % ("-tm" if corpus == "time-machine" else "", kernels.lower(), threads)
    env = {"OPENBLAS_CORETYPE": kernels, "OMP_NUM_THREADS": threads}
    rows = long_run(run_id, corpus, "the recipe, %s kernels, %s thread(s)" % (kernels, threads),
                    "the recipe", SMOOTH_MODEL, RECIPE_STEPS)
    return [dict(r, env=env, cell=(corpus, kernels, threads)) for r in rows]


for _corpus in ("sherlock", "time-machine"):
    for _kernels in MATRIX_KERNELS:
        for _threads in MATRIX_THREADS:
            TRIALS += recipe_cell(_corpus, _kernels, _threads)
BY_ID = {t["id"]: t for t in TRIALS}
# The fourth candidate's runs are cells too: run on Zen 5, 2 threads, without OPENBLAS_CORETYPE,
# where OpenBLAS picks its Cooperlake kernels (recipe_pace.tsv records the choice on that CPU).
BY_ID["smooth"]["cell"] = ("sherlock", "Cooperlake", "2")
BY_ID["smooth-tm"]["cell"] = ("time-machine", "Cooperlake", "2")
MATRIX_STEPS = range(8000, RECIPE_STEPS + 1, CHECKPOINT_EVERY)  # the matrix's columns

# The held-out vowels by the kind of word they lie in (what vowel_word_kinds prints): the share of
# each kind and how many of them the model restores, and its accuracy were every seen word right.
KINDS = [("seen", "in a word of the training text, whole"), ("unseen", "in a word never seen in training, whole"),
         ("cut", "in a word cut by the window's edge")]
KIND_COLUMNS = [c for kind, _ in KINDS for c in (kind + "_share", kind)] + ["seen_right"]
COLUMNS = ["id", "corpus", "command", "steps", "idle_minutes", "wall_minutes", "load", "cpu",
           "vowels", "characters", "sentences", "closest", "test_corpus_vowels",
           "base_e", "base_1", "base_2", "base_3", "test_corpus_base_3"] + KIND_COLUMNS + ["source"]


def command(trial, exe, time_machine, test_corpus):
    """The trial's command line (the program's arguments after its name)."""
    args = ["--task", "vowels"]
    if trial["corpus"] == "time-machine":
        args += ["--corpus", time_machine or "timemachine.txt"]
    args += trial["args"]
    if "--steps" not in args:
        args += ["--steps", str(DEFAULT_STEPS)]
    args += ["--eval-every", "400", "--test-corpus", test_corpus or TEST_CORPUS]
    return [exe] + args


def environment(trial):
    """The environment the trial's commands run in: this one, with the trial's own variables."""
    return dict(os.environ, **trial.get("env", {}))


def shown_command(trial):
    """The command as the page shows it: its variables, the program's path in the build tree,
    short file names."""
    cmd = command(trial, "./build/bin/ch11_train_test", "timemachine.txt", TEST_CORPUS)
    return " ".join(["%s=%s" % kv for kv in sorted(trial.get("env", {}).items())] + cmd)


def program_default_steps(exe):
    """The vowels task's default budget as the program's --help states it."""
    help_text = subprocess.run([exe, "--help"], capture_output=True, text=True).stdout
    m = re.search(r"vowels (\d+)\)", help_text)
    if not m:
        sys.exit("%s --help does not state the vowels task's default steps" % exe)
    return int(m.group(1))


def steps_of(trial):
    a = trial["args"]
    return int(a[a.index("--steps") + 1]) if "--steps" in a else DEFAULT_STEPS


# ---------------------------------------------------------------------------------------------
# Reading what the program wrote

SCORE = re.compile(r"^  (this model, letters of the input kept \(default\)|baseline: [^\n]*?)\s+"
                   r"([0-9.]+)\s+([0-9.]+)$", re.M)


def scores(section):
    """{rule name: (characters, vowels)} of one scores table."""
    return {m.group(1): (m.group(2), m.group(3)) for m in SCORE.finditer(section)}


def parse_results(text):
    held, _, other = text.partition("\nAnother text, ")  # the --test-corpus section
    s, b = scores(held), scores(other)
    model = "this model, letters of the input kept (default)"
    base = [k for k in s if k.startswith("baseline: ")]
    row = {"vowels": s[model][1], "characters": s[model][0],
           "sentences": "%d/3" % held.count("(correct)"),
           "test_corpus_vowels": b[model][1] if b else "-"}
    for key, name in zip(["base_e", "base_1", "base_2", "base_3"], base):
        row[key] = s[name][1]
    row["test_corpus_base_3"] = b[base[3]][1] if b else "-"
    for kind, label in KINDS:  # from vowel_word_kinds; absent without a checkpoint
        m = re.search(r"^  %s\s+([0-9.]+)\s+([0-9.]+)\s" % re.escape(label), text, re.M)
        if m:
            row[kind + "_share"], row[kind] = m.group(1), m.group(2)
    # The closest call of each sentence: the probabilities of the right vowel and of its rival there.
    closest = re.findall(r"^  \S.*?  \S*\[[a-z]\]\S*\s+[a-z] ([0-9.]+), [a-z] ([0-9.]+)$", held, re.M)
    if closest:
        row["closest"] = " ".join("%s/%s" % pair for pair in closest)
    m = re.search(r"the model would\nrestore ([0-9.]+) of the hidden vowels", text)
    if m:
        row["seen_right"] = m.group(1)
    return row


# ---------------------------------------------------------------------------------------------
# The table file

def load_rows():
    if not os.path.exists(TSV):
        return {}
    with open(TSV, newline="") as f:
        return {r["id"]: r for r in csv.DictReader(f, delimiter="\t")}


def save_rows(rows):
    ordered = [rows[t["id"]] for t in TRIALS if t["id"] in rows]
    with open(TSV, "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS, delimiter="\t", lineterminator="\n")
        w.writeheader()
        for r in ordered:
            w.writerow({k: r.get(k, "-") for k in COLUMNS})


def store(rows, row):
    """Adds one measured row to `rows` and to trials.tsv, keeping the rows that trials running at
    the same time (other `run` processes) have written since this one read the file."""
    rows[row["id"]] = row
    with open(TSV, "a") as lock:  # opened to append, so not emptied; flock holds off the others
        fcntl.flock(lock, fcntl.LOCK_EX)
        on_disk = load_rows()
        on_disk[row["id"]] = row
        save_rows(on_disk)


def make_row(trial, results, cpu, wall, load, source):
    row = {"id": trial["id"], "corpus": trial["corpus"], "command": shown_command(trial),
           "steps": str(steps_of(trial)), "idle_minutes": "%.1f" % (cpu / 2 / 60),
           "wall_minutes": "%.1f" % (wall / 60), "load": "-" if load is None else "%.1f" % load,
           "cpu": cpu_name(), "source": source}
    row.update(parse_results(results))
    return row


# ---------------------------------------------------------------------------------------------
# Running

def children_cpu():
    """CPU seconds (user + system) of every child process that has ended so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_trial(trial, opts, rows):
    work = os.path.join(opts["work"], trial["id"])
    os.makedirs(work, exist_ok=True)
    cmd = command(trial, opts["exe"], opts["time_machine"], opts["test_corpus"])
    cmd += ["--save", os.path.join(work, "ck")]  # the word-kind analysis reads the trained weights
    if trial.get("save_every"):
        cmd += ["--save-every", str(trial["save_every"])]
    print("running:", " ".join(cmd), flush=True)
    start, before = time.time(), children_cpu()
    loads = []
    with open(os.path.join(work, "log.txt"), "w") as log:
        proc = subprocess.Popen(cmd, cwd=work, stdout=log, stderr=subprocess.STDOUT, env=environment(trial))
        while proc.poll() is None:
            loads.append(os.getloadavg()[0])
            time.sleep(5)
    if proc.returncode != 0:
        sys.exit("%s failed (exit %d); see %s/log.txt" % (trial["id"], proc.returncode, work))
    cpu = children_cpu() - before
    results = open(os.path.join(work, "results_vowels.txt")).read()
    results += word_kinds(trial, os.path.join(work, "ck"), opts)
    store(rows, make_row(trial, results, cpu, time.time() - start,
                         sum(loads) / max(1, len(loads)), "run by vowel_trials.py run"))
    record_children(trial, work, opts, rows, cpu)


def word_kinds(trial, ckpt, opts):
    """What the lab's vowel_word_kinds prints of the checkpoint `ckpt` (the held-out vowels by the
    kind of word they lie in), for parse_results; "" if the checkpoint is missing."""
    if not os.path.isdir(ckpt):
        return ""
    exe = os.path.join(os.path.dirname(opts["exe"]), "vowel_word_kinds")
    cmd = [exe, "--load", ckpt]
    if trial["corpus"] == "time-machine":
        cmd += ["--corpus", opts["time_machine"] or "timemachine.txt"]
    print("analysing:", " ".join(cmd), flush=True)
    return "\n" + subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, env=environment(trial)).stdout


def record_children(parent, work, opts, rows, parent_cpu, samples=None):
    """The checkpoint rows of `parent` whose checkpoint exists: its saved weights tested with --load.
    Their time: the CPU time the run had used when it wrote the checkpoint (from `samples`, the
    cpu.txt of a run recorded by hand), else S/steps of the parent's."""
    for t in TRIALS:
        if t.get("of", (None,))[0] != parent["id"]:
            continue
        step = t["of"][1]
        ckpt = os.path.join(work, "ck-step%d" % step)
        if not os.path.isdir(ckpt) or (t["id"] in rows and rows[t["id"]]["source"].startswith("checkpoint")
                                       and opts.get("keep")):
            continue
        results = test_checkpoint(t, ckpt, opts)
        if samples:
            written = os.path.getmtime(os.path.join(ckpt, "config.txt"))
            before = [r for r in samples if r[0] <= written] or samples[:1]
            cpu, wall, load = before[-1][1], before[-1][0] - samples[0][0], \
                sum(r[2] for r in before) / len(before)
        else:
            share = step / steps_of(parent)
            p = rows[parent["id"]]
            cpu, wall = parent_cpu * share, float(p["wall_minutes"]) * 60 * share
            load = None if p["load"] == "-" else float(p["load"])
        store(rows, make_row(t, results, cpu, wall, load, "checkpoint at step %d of %s" % (step, parent["id"])))


def test_checkpoint(trial, ckpt, opts):
    """What the program writes (results_vowels.txt) testing the weights saved in `ckpt` on the
    trial's corpus."""
    work = os.path.join(opts["work"], trial["id"] + "-test")
    os.makedirs(work, exist_ok=True)
    cmd = command(trial, opts["exe"], opts["time_machine"], opts["test_corpus"])
    cmd = cmd[:min(cmd.index(a) for a in ("--preset", "--set", "--steps") if a in cmd)] + [
        "--load", ckpt, "--test-corpus", opts["test_corpus"] or TEST_CORPUS]  # its corpus; the model is the checkpoint's
    print("testing:", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=work, stdout=subprocess.DEVNULL, check=True, env=environment(trial))
    return open(os.path.join(work, "results_vowels.txt")).read() + word_kinds(trial, ckpt, opts)


def retest(trial, opts, rows):
    """Tests a recorded row's weights (its run's final checkpoint, or the checkpoint it was measured
    from) again with the current program, for the columns added since; its times stay. The
    scores it had must come out the same."""
    parent, step = trial.get("of", (trial["id"], None))
    ckpt = os.path.join(opts["work"], parent, "ck" if step is None else "ck-step%d" % step)
    if trial["id"] not in rows or not os.path.isdir(ckpt):
        sys.exit("retest %s: needs its row in trials.tsv and its weights in %s" % (trial["id"], ckpt))
    old, new = rows[trial["id"]], parse_results(test_checkpoint(trial, ckpt, opts))
    changed = [k for k in ("vowels", "sentences", "test_corpus_vowels") if old[k] != new[k]]
    if changed:
        sys.exit("retest %s: %s differ from the row (%s); not recorded" % (
            trial["id"], ", ".join(changed), ", ".join("%s -> %s" % (old[k], new[k]) for k in changed)))
    store(rows, dict(old, **new))


def measure_pace(opts):
    """Times PACE_STEPS steps of the recipe and its tests (on the threads and kernels the program
    chooses; the machine must be otherwise idle) and keeps them in recipe_pace.tsv, in place of an
    earlier row of the same CPU, thread count and kernels."""
    work = os.path.join(opts["work"], "pace")
    os.makedirs(work, exist_ok=True)
    cmd = command(BY_ID[RECIPE_IDS[0]], opts["exe"], None, opts["test_corpus"])
    cmd[cmd.index("--steps") + 1] = str(PACE_STEPS)
    print("timing:", " ".join(cmd), flush=True)
    start = time.time()
    subprocess.run(cmd, cwd=work, stdout=subprocess.DEVNULL, check=True)
    wall = time.time() - start
    summary = open(os.path.join(work, "results_vowels.txt")).readline()
    m = re.match(r"trained (\d+) steps in ([0-9.]+) s on (\d+) threads?", summary)
    if not m:
        sys.exit("results_vowels.txt does not start with the training's summary: " + summary)
    kernels = re.search(r"; OpenBLAS (\S+) kernels$", summary.strip())
    pace = {"cpu": cpu_name(), "threads": m.group(3), "kernels": kernels.group(1) if kernels else "not recorded",
            "seconds_per_step": "%.4f" % (float(m.group(2)) / PACE_STEPS),
            "other_seconds": "%.1f" % (wall - float(m.group(2)))}
    same = ("cpu", "threads", "kernels")
    paces = [p for p in load_paces() if any(p[k] != pace[k] for k in same)] + [pace]
    with open(PACE_TSV, "w", newline="") as f:
        w = csv.DictWriter(f, list(pace), delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows(sorted(paces, key=lambda p: [p[k] for k in same]))
    print("the recipe's pace:", pace)


def load_paces():
    """The rows of recipe_pace.tsv: one per CPU, thread count and kernel set timed."""
    if not os.path.exists(PACE_TSV):
        return []
    with open(PACE_TSV, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def read_samples(path):
    """cpu.txt's samples 'unix-time ticks load' as (time, cpu seconds, load)."""
    return [(float(a), float(b) / 100.0, float(c)) for a, b, c in
            (line.split() for line in open(path) if line.strip())]


# ---------------------------------------------------------------------------------------------
# Rendering

CORPUS_NAMES = {"sherlock": "The Adventures of Sherlock Holmes (the default corpus)",
                "time-machine": "The Time Machine (reference 002's corpus)"}


def sources(rows):
    """Where the rows come from, in one phrase each, with the CPU they ran on: a run's checkpoints
    grouped under their run."""
    def on(cpu):
        return "" if cpu in ("-", "") else " on " + cpu
    checkpoints, other = {}, set()
    for r in rows:
        m = re.match(r"checkpoint at step (\d+) of (.+)$", r["source"])
        if m:
            checkpoints.setdefault((m.group(2), r["cpu"]), []).append(int(m.group(1)))
        else:
            other.add(r["source"] + on(r["cpu"]))
    return sorted(other) + ["the checkpoints of run %s at steps %s%s" % (run, ", ".join(map(str, sorted(steps))), on(cpu))
                            for (run, cpu), steps in sorted(checkpoints.items())]


def render(rows):
    out = []
    for corpus in ("sherlock", "time-machine"):
        mine = [rows[t["id"]] for t in TRIALS if t["id"] in rows and t["corpus"] == corpus
                and "env" not in t]  # the matrix's runs have their own table
        if not mine:
            continue
        out.append("Trained and tested on %s; 500 held-out windows of 40 characters." % CORPUS_NAMES[corpus])
        out.append("Also tested on %s (a text it never saw), with the same windows for every trial."
                   % TEST_CORPUS_NAME)
        out.append("")
        head = "%-18s %5s %8s %8s %9s %11s  %s" % ("trial", "steps", "idle min", "vowels", "sentences",
                                                  "Tom Sawyer", "settings (beyond --task vowels)")
        out.append(head)
        out.append("-" * len(head))
        for r in mine:
            t = BY_ID[r["id"]]
            settings = " ".join(a for a in t["args"] if a not in ("--steps", str(steps_of(t)))).replace(
                "--set ", "") or "(the default run)"
            out.append("%-18s %5s %8s %8s %9s %11s  %s" % (r["id"], r["steps"], r["idle_minutes"], r["vowels"],
                                                          r["sentences"], r["test_corpus_vowels"], settings))
        base = next((r for r in reversed(mine) if r["base_3"] != "-"), None)
        if base:
            out.append("")
            out.append("The baselines on the same windows (vowels): most frequent vowel %s; given 1, 2, 3 "
                       "letters on each side %s, %s, %s; on %s, 3 letters: %s."
                       % (base["base_e"], base["base_1"], base["base_2"], base["base_3"], TEST_CORPUS_NAME,
                          base["test_corpus_base_3"]))
        out.append("Where each row comes from: " + "; ".join(sources(mine)) + ".")
        out.append("")
    out.append("idle min: the run's CPU time / 2, i.e. minutes on two otherwise idle cores (the machine was")
    out.append("shared while these ran; trials.tsv keeps each run's wall time and load average too).")
    return "\n".join(out) + "\n"


GOAL = 0.92  # the held-out vowel accuracy the longer run aims at (with 3/3 of reference 002's sentences)


def pace_lines(trial):
    """How long the trial's steps take on the idle machines `pace` timed them on."""
    paces = load_paces()
    if not paces:
        return ["#   (not timed yet)"]
    out = ["#   time on an idle machine (%d steps timed, then the start and the tests):" % PACE_STEPS]
    for cpu in sorted({p["cpu"] for p in paces}):
        out.append("#     %s" % cpu)
        for p in (p for p in paces if p["cpu"] == cpu):
            minutes = (steps_of(trial) * float(p["seconds_per_step"]) + float(p["other_seconds"])) / 60
            out.append("#       %s thread%s, OpenBLAS %s kernels: %s s a step + %s s = %.1f minutes"
                       % (p["threads"], "" if p["threads"] == "1" else "s", p["kernels"], p["seconds_per_step"],
                          p["other_seconds"], minutes))
    return out


def standing(r):
    """Where a row's held-out accuracy stands against the 2- and 3-letter rules, in words."""
    accuracy = float(r["vowels"])
    above2, above3 = accuracy > float(r["base_2"]), accuracy > float(r["base_3"])
    return ("above the 2- and 3-letter rules" if above2 and above3 else
            "above the 2-letter rule, below the 3-letter one" if above2 else "below the 2- and 3-letter rules")


def trained_on(t, r):
    """Where a recipe row was trained: the CPU, and its run's kernels and threads."""
    kernels, threads = BY_ID[t["of"][0]]["cell"][1:]
    return "#   -> trained on %s, OpenBLAS %s kernels, %s threads:" % (r["cpu"], kernels, threads)


def render_recipe(rows):
    """Chapter 11's record of its one longer recipe: the command, what it reached, its time."""
    t = BY_ID[RECIPE_IDS[0]]
    out = ["# the longer recipe, on %s" % CORPUS_NAMES[t["corpus"]], shown_command(t)]
    r = rows.get(t["id"])
    if r:
        out.append(trained_on(t, r))
        out.append("#      held-out vowel accuracy %s (%s), reference 002's sentences %s right"
                   % (r["vowels"], standing(r), r["sentences"]))
        out.append("#      %s on %s, a text it never saw (3-letter rule there: %s)"
                   % (r["test_corpus_vowels"], TEST_CORPUS_NAME, r["test_corpus_base_3"]))
    else:
        out.append("#   (not measured yet)")
    return "\n".join(out + pace_lines(t)) + "\n"


def cell_row(rows, run, step):
    """The row of `run` (a matrix cell) after `step` steps: the run's own, or its checkpoint's."""
    return rows.get(run["id"] if step == steps_of(run) else "%s-%d" % (run["id"], step))


def render_matrix(rows):
    """The recipe under each OpenBLAS kernel set and thread count measured: one line per run,
    grouped by CPU."""
    runs = [t for t in TRIALS if "cell" in t and cell_row(rows, t, RECIPE_STEPS)]
    out = ["# the recipe by OpenBLAS kernels and threads: 002's sentences right after each number of steps;",
           "# at %d steps, the held-out vowels and each sentence's closest call: the probabilities of the" % RECIPE_STEPS,
           "# right vowel and of its likeliest rival where the right one leads the least (a likelier rival wins)",
           "%-14s %-11s %7s %s %8s  %s" % ("corpus", "kernels", "threads", " ".join("%5d" % s for s in MATRIX_STEPS),
                                         "held-out", "closest calls (right/rival)")]
    for cpu in sorted({cell_row(rows, t, RECIPE_STEPS)["cpu"] for t in runs}):
        out.append("# %s" % cpu)
        for t in sorted((t for t in runs if cell_row(rows, t, RECIPE_STEPS)["cpu"] == cpu),
                        key=lambda t: (t["corpus"] != "sherlock", t["cell"][1:])):
            last = cell_row(rows, t, RECIPE_STEPS)
            sentences = " ".join("%5s" % (cell_row(rows, t, s) or {}).get("sentences", "-") for s in MATRIX_STEPS)
            out.append("%-14s %-11s %7s %s %8s  %s" % (t["corpus"], t["cell"][1], t["cell"][2], sentences,
                                                     last["vowels"], last.get("closest", "-")))
    return out + [""]


def render_recipe_checks(rows):
    """The lab's record of the recipe: on both corpora, against the goal, and by kind of word."""
    out = []
    for tid in RECIPE_IDS:
        t = BY_ID[tid]
        out.append("# the recipe, on %s" % CORPUS_NAMES[t["corpus"]] if t["corpus"] == "sherlock" else
                   "# the same command on %s, with --corpus" % CORPUS_NAMES[t["corpus"]])
        out.append(shown_command(t))
        r = rows.get(tid)
        if r:
            accuracy = float(r["vowels"])
            out.append(trained_on(t, r))
            out.append("#      held-out vowel accuracy %s (%s the goal of %.2f; %s), reference 002's "
                       "sentences %s right" % (r["vowels"], "reaches" if accuracy >= GOAL else "short of",
                                                GOAL, standing(r), r["sentences"]))
            out.append("#      %s on %s (3-letter rule there: %s)" % (r["test_corpus_vowels"], TEST_CORPUS_NAME,
                                                                    r["test_corpus_base_3"]))
            if r.get("seen_right", "-") != "-":
                out.append("#      the held-out vowels by word: %s" % "; ".join(
                    "%s %s of them, %s restored" % (kind, r[kind + "_share"], r[kind]) for kind, _ in KINDS))
                out.append("#      were every vowel of the seen words right: %s" % r["seen_right"])
        else:
            out.append("#   (not measured yet)")
        out += pace_lines(t)
        out.append("")
    return "\n".join(out + render_matrix(rows))


def main(argv):
    opts = {"exe": os.path.join(ROOT, "build", "bin", "ch11_train_test"), "work": "/tmp/vowel-trials",
            "time_machine": None, "test_corpus": TEST_CORPUS, "keep": False}
    args = []
    i = 0
    while i < len(argv):
        flag = argv[i]
        if flag in ("--exe", "--work", "--time-machine", "--test-corpus"):
            if i + 1 >= len(argv):
                sys.exit("%s needs a value" % flag)
            opts[flag[2:].replace("-", "_")] = argv[i + 1]
            i += 2
        elif flag == "--keep":  # record: do not test again the checkpoints already in the table
            opts["keep"] = True
            i += 1
        else:
            args.append(flag)
            i += 1
    if not args or args[0] in ("-h", "--help", "help"):
        print(__doc__)
        return 0
    mode, ids = args[0], args[1:]
    rows = load_rows()
    if mode == "list":
        for t in TRIALS:
            print("%-18s %s" % (t["id"], shown_command(t)))
        return 0
    if mode == "run":
        for tid in ids or [t["id"] for t in TRIALS if "of" not in t]:
            if tid not in BY_ID:
                sys.exit("unknown trial '%s' (see: vowel_trials.py list)" % tid)
            t = BY_ID[tid]
            if t["corpus"] == "time-machine" and not opts["time_machine"]:
                print("skipping %s: give --time-machine FILE" % tid)
                continue
            run_trial(t, opts, rows)
        mode = "render"
    if mode == "record":
        if len(ids) != 2 or ids[0] not in BY_ID:
            sys.exit("usage: vowel_trials.py record ID WORK_DIR")
        t, work = BY_ID[ids[0]], ids[1]
        results_file = os.path.join(work, "results_vowels.txt")
        if os.path.exists(os.path.join(work, "cpu.txt")):
            samples = read_samples(os.path.join(work, "cpu.txt"))
            cpu, wall, load = samples[-1][1], samples[-1][0] - samples[0][0], \
                sum(r[2] for r in samples) / len(samples)
            source = "its command run by hand, recorded by vowel_trials.py record"
        elif os.path.exists(results_file):
            # No samples: the time is the training's own, from the summary line (CPU time = its
            # seconds times its threads, all busy); the testing's few seconds are not counted.
            samples, load = None, None
            m = re.match(r"trained \d+ steps in ([0-9.]+) s on (\d+) threads?", open(results_file).readline())
            if not m:
                sys.exit("%s does not start with the training's summary" % results_file)
            wall = float(m.group(1))
            cpu = wall * int(m.group(2))
            source = "its run's files recorded by vowel_trials.py record (time: the training's own)"
        else:
            sys.exit("record %s: %s has neither cpu.txt nor results_vowels.txt" % (t["id"], work))
        if os.path.exists(results_file):  # else: still running, or stopped
            results = open(results_file).read() + word_kinds(t, os.path.join(work, "ck"), opts)
            store(rows, make_row(t, results, cpu, wall, load, source))
        record_children(t, work, opts, rows, cpu, samples)
        mode = "render"
    if mode == "retest":
        for tid in ids:
            if tid not in BY_ID:
                sys.exit("unknown trial '%s' (see: vowel_trials.py list)" % tid)
            retest(BY_ID[tid], opts, rows)
        mode = "render"
    if mode == "pace":
        measure_pace(opts)
        mode = "render"
    if mode in ("render", "check"):
        rows = load_rows()  # as stored: a run or record running at the same time may have added rows
        want = {TXT: render(rows), RECIPE_TXT: render_recipe(rows), CHECKS_TXT: render_recipe_checks(rows)}
        if mode == "check":
            program_steps = program_default_steps(opts["exe"]) if os.path.exists(opts["exe"]) else None
            if program_steps not in (None, DEFAULT_STEPS):
                print("DEFAULT_STEPS is %d here but %d in %s --help: make them agree"
                      % (DEFAULT_STEPS, program_steps, opts["exe"]))
                return 1
            stale = [p for p, text in want.items() if not os.path.exists(p) or open(p).read() != text]
            if stale:
                print("out of date (run experiments/vowel_trials.py render): " + ", ".join(stale))
                return 1
            print("the recorded_*.txt files match trials.tsv")
            return 0
        save_rows(rows)
        for p, text in want.items():
            with open(p, "w") as f:
                f.write(text)
            print("wrote", os.path.relpath(p, ROOT))
        return 0
    sys.exit("unknown mode '%s' (list, run, record, retest, pace, render, check)" % mode)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
