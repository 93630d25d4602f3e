#!/usr/bin/python3
"""The translation project's recorded runs (projects/translate/README.md): its recipe and its
default run, each too long for the book's build.

    /usr/bin/python3 experiments/translate_recipe.py [BUILD_DIR]      # the recipe; default build/
    /usr/bin/python3 experiments/translate_recipe.py [BUILD_DIR] --reuse  # record a recipe run that
                                                      # finished but whose record was not written
    /usr/bin/python3 experiments/translate_recipe.py default [BUILD_DIR] [--from DIR]
    /usr/bin/python3 experiments/translate_recipe.py wider [BUILD_DIR] [--from DIR]
    /usr/bin/python3 experiments/translate_recipe.py try-it [BUILD_DIR]   # after `default`

`default` runs build/bin/translate --save model (the defaults, and the model kept) in
BUILD_DIR/translate-default (or takes the files of such a run already made in DIR) and writes
experiments/recorded_translate_default.txt (what it wrote to results_translate.txt, under lines
naming the date, the CPU and the run's time, then what the saved model makes of TEXTS with
--translate; DIR must hold the run's output.txt, its standard output, and its model) and
experiments/recorded_translate_cross_attention.svg (its heat map). `wider` does the same for the
lab's comparison, a model twice as wide trained for the same time (SHORT_RUNS), and writes
experiments/recorded_translate_wider.txt. `try-it` runs the commands of the page's Try it answers
(TRY_IT, about two minutes each; some load the model `default` saved) and writes
experiments/recorded_translate_try_it.txt.

The recipe:

Trains build/bin/translate for STEPS steps with checkpoints every SAVE_EVERY steps, tests the
last model on every test verse and on Ruth (greedy and beam search), then tests the mean of the
last AVERAGE checkpoints' weights, and writes experiments/recorded_translate_recipe.txt: the
commands, the CPU, the kernels and threads (the program's summary line), each run's wall time,
both result tables, and NLTK's corpus BLEU of every model column of translations_test.tsv beside
the program's (they must agree to 0.01; NLTK from Debian's python3-nltk). The runs go to
BUILD_DIR/translate-recipe/. Run it on an idle machine (or say that it was shared): the steps
decide the result, the machine only the time.
"""
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
from make_bleu_fixtures import tokenize_13a  # noqa: E402  (sacreBLEU's 13a, written in Python)
from nltk.translate.bleu_score import corpus_bleu  # noqa: E402
from machine import cpu_name  # noqa: E402

STEPS, SAVE_EVERY, AVERAGE = 1400, 100, 4
# The longer budget pays for a wider model (d_model 256) and bigger batches than the default's.
WIDE_MODEL = ["--set", "d_model=256", "--set", "d_ff=1024"]
RECIPE = WIDE_MODEL + ["--batch-tokens", "3000", "--steps", str(STEPS), "--save-every", str(SAVE_EVERY),
                       "--save", "model", "--test-verses", "0", "--eval-every", "100"]
OUT = os.path.join(HERE, "recorded_translate_recipe.txt")


def cpu():
    info = open("/proc/cpuinfo").read()
    field = lambda k: re.search(r"^%s\s*:\s*(.*)$" % k, info, re.M).group(1)
    return "%s (family %s, model %s), %d cores" % (field("model name"), field("cpu family"), field("model"),
                                                    os.cpu_count())


def run(program, args, cwd):
    start = time.time()
    done = subprocess.run([program] + args, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("translate %s failed:\n%s" % (" ".join(args), done.stderr))
    return time.time() - start, done.stdout


def nltk_check(tsv, results):
    """NLTK's BLEU of every model column of a translations_test.tsv beside the program's table."""
    with open(tsv, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        rows = [line.rstrip("\n").split("\t") for line in f]
    lines = []
    refs = [[tokenize_13a(r[header.index("reference")])] for r in rows]
    for column, name in enumerate(header):
        # The model's columns only: NLTK without smoothing gives 0 where a baseline has no 4-gram
        # right (copying the source), and sacreBLEU's smoothing does not.
        if not name.startswith("model"):
            continue
        ours = re.search(r"^%s +([0-9.]+) /" % re.escape(name), results, re.M)
        if not ours:
            continue
        nltk = 100.0 * corpus_bleu(refs, [tokenize_13a(r[column]) for r in rows])
        agree = abs(nltk - float(ours.group(1))) < 0.01
        lines.append("  %-18s program %6s   NLTK %6.2f   %s" % (name, ours.group(1), nltk, "agree" if agree else "DISAGREE"))
        if not agree:
            sys.exit("BLEU of %s: the program says %s, NLTK %.4f" % (name, ours.group(1), nltk))
    return "\n".join(lines)


# The runs of a default's length, by name: the default, and the lab's comparison (the default's
# batches and seed, a model twice as wide, the same time).
SHORT_RUNS = {"default": ["--save", "model"], "wider": WIDE_MODEL + ["--minutes", "5", "--show", "0"]}
# What the default's saved model makes of the README's example (Genesis 1:3, a training verse) and
# of two sentences of today's Spanish, recorded under its results.
TEXTS = ["Y dijo Dios: Sea la luz: y fué la luz.", "El perro come pan en la casa.",
         "Mañana voy al mercado con mi hermana."]


def translate_texts(build, source):
    """What `translate --load model --translate TEXT ...` prints for TEXTS, from the first text on."""
    args = ["--load", "model"] + sum([["--translate", t] for t in TEXTS], [])
    _, printed = run(os.path.join(build, "bin", "translate"), args, source)
    lines = printed.split("\n")
    first = next(i for i, line in enumerate(lines) if line == TEXTS[0])
    return "translate %s\n%s" % (" ".join("'%s'" % a if " " in a else a for a in args),
                                  "\n".join(lines[first:]).rstrip() + "\n")


def record_short_run(build, source, name):
    """A default-length run's results (and the default's heat map), under the names the pages show."""
    args = SHORT_RUNS[name]
    load = "load average not known: recorded from the files of an earlier run"  # --from DIR
    if source is None:
        source = os.path.join(build, "translate-" + name)
        os.makedirs(source, exist_ok=True)
        _, printed = run(os.path.join(build, "bin", "translate"), args, source)
        load = "load average %s when it ended" % open("/proc/loadavg").read().split()[0]
        with open(os.path.join(source, "output.txt"), "w", encoding="utf-8") as f:
            f.write(printed)
    results = open(os.path.join(source, "results_translate.txt"), encoding="utf-8").read()
    printed = open(os.path.join(source, "output.txt"), encoding="utf-8").read()
    # What it printed first about the data: the verse pairs kept, the echoes left out, the parts.
    data_lines = [line for line in printed.split("\n")
                  if re.match(r"^(\d+ verses in the Spanish|\d+ of \d+ test verses left out|verse pairs:)", line)]
    # The program's own last line, "done in N s": reading, training and testing.
    done = re.search(r"^done in (\d+) s$", printed, re.M)
    record = os.path.join(HERE, "recorded_translate_%s.txt" % name)
    with open(record, "w", encoding="utf-8") as f:
        f.write("# ./build/bin/translate %s, recorded on %s on %s;\n"
                "# %.1f min in all (reading the Bibles, training, testing; %s);\n"
                "# what it printed about the data, then what it wrote to results_translate.txt:\n\n"
                % (" ".join(args) or "(its defaults)", time.strftime("%Y-%m-%d"), cpu_name(),
                   int(done.group(1)) / 60.0, load))
        f.write("\n".join(data_lines) + "\n\n" + results)
        if name == "default":
            f.write("\nThe saved model, given the README's example and two sentences of today's Spanish:\n")
            f.write(translate_texts(build, source))
    print("wrote", record)
    if name == "default":
        shutil.copyfile(os.path.join(source, "cross_attention_translate.svg"),
                        os.path.join(HERE, "recorded_translate_cross_attention.svg"))
        print("wrote recorded_translate_cross_attention.svg")


# The runs of the page's "Try it" answers, each about two minutes at most: short runs that differ
# from SHORT by one option, and runs of the default's saved model (`translate --save model`, made
# once by `default`).
SHORT = ["--steps", "300", "--test-verses", "100", "--show", "0"]
TIMED = ["--minutes", "1.5", "--test-verses", "100", "--show", "0", "--no-greedy"]
TRY_IT = [("1", SHORT), ("1", SHORT + ["--direction", "en-es"]),
          ("2", SHORT + ["--symbols", "1000"]), ("2", SHORT + ["--symbols", "8000"]),
          ("3", ["--load", "model", "--alpha", "0", "--no-greedy", "--show", "0"]),
          ("4", ["--load", "model", "--translate", "Y Noemi volvió á Beth-lehem con Rut su nuera."]),
          ("6", TIMED), ("6", TIMED + WIDE_MODEL)]
TRY_IT_OUT = os.path.join(HERE, "recorded_translate_try_it.txt")


def record_try_it(build):
    """Runs TRY_IT in BUILD_DIR/translate-default (where `default` left its model) and writes
    experiments/recorded_translate_try_it.txt: each command, its time, the lines it printed about
    the data and the decoding, and its results_translate.txt."""
    work = os.path.join(build, "translate-default")
    if not os.path.isdir(os.path.join(work, "model")):
        sys.exit("no model in %s: run `translate_recipe.py default` first" % work)
    parts = ["# The runs of the translation page's Try it answers, recorded by\n"
             "# experiments/translate_recipe.py try-it on %s on %s.\n" % (time.strftime("%Y-%m-%d"), cpu_name())]
    for exercise, args in TRY_IT:
        seconds, printed = run(os.path.join(build, "bin", "translate"), args, work)
        load = open("/proc/loadavg").read().split()[0]
        kept = [line for line in printed.split("\n")
                if re.match(r"^(subwords:|verse pairs:|test: .* decoded|Ruth: .* decoded)", line)]
        if "--translate" in args:  # no test, no results file: what it printed from the first text on
            lines = printed.split("\n")
            text = args[args.index("--translate") + 1]
            results = "\n".join(lines[lines.index(text):]).rstrip() + "\n"
        else:
            results = open(os.path.join(work, "results_translate.txt"), encoding="utf-8").read()
        parts.append("\n# Exercise %s: translate %s\n# %.0f s in all (load average %s when it ended)\n%s\n%s"
                     % (exercise, " ".join(args), seconds, load, "\n".join(kept), results.rstrip() + "\n"))
        print("exercise %s: translate %s: %.0f s" % (exercise, " ".join(args), seconds), flush=True)
    with open(TRY_IT_OUT, "w", encoding="utf-8") as f:
        f.write("".join(parts))
    print("wrote", TRY_IT_OUT)


def main():
    if any(a in ("-h", "--help") for a in sys.argv[1:]):
        print(__doc__)
        return 0
    if sys.argv[1:2] and sys.argv[1] in SHORT_RUNS:
        args = sys.argv[2:]
        source = None
        if "--from" in args:
            at = args.index("--from")
            source = os.path.abspath(args[at + 1])
            del args[at:at + 2]
        return record_short_run(os.path.abspath(args[0] if args else os.path.join(ROOT, "build")), source,
                              sys.argv[1])
    if sys.argv[1:2] == ["try-it"]:
        return record_try_it(os.path.abspath(sys.argv[2] if sys.argv[2:] else os.path.join(ROOT, "build")))
    args = [a for a in sys.argv[1:] if a != "--reuse"]
    build = os.path.abspath(args[0] if args else os.path.join(ROOT, "build"))
    program = os.path.join(build, "bin", "translate")
    work = os.path.join(build, "translate-recipe")
    os.makedirs(work, exist_ok=True)
    load_before = open("/proc/loadavg").read().split()[0]
    seconds_file = os.path.join(work, "seconds.txt")
    if "--reuse" in sys.argv:  # the training ran, the record did not get written: test again only
        trained_seconds = float(open(seconds_file).read())
    else:
        trained_seconds, _ = run(program, RECIPE, work)
        with open(seconds_file, "w") as f:
            f.write("%.1f\n" % trained_seconds)
        # Run 1's outputs, kept: run 2 writes files of the same names.
        for name in ("results_translate.txt", "translations_test.tsv", "translations_Ruth.tsv"):
            shutil.copyfile(os.path.join(work, name), os.path.join(work, "run1_" + name))
    results = open(os.path.join(work, "run1_results_translate.txt"), encoding="utf-8").read()
    check = nltk_check(os.path.join(work, "run1_translations_test.tsv"), results)
    last = ["model-step%d" % s for s in range(STEPS - SAVE_EVERY * (AVERAGE - 1), STEPS + 1, SAVE_EVERY)]
    average_args = sum([["--average", c] for c in last], []) + ["--test-verses", "0", "--show", "0"]
    averaged_seconds, _ = run(program, average_args, work)
    averaged = open(os.path.join(work, "results_translate.txt"), encoding="utf-8").read()
    averaged_check = nltk_check(os.path.join(work, "translations_test.tsv"), averaged)
    load_after = open("/proc/loadavg").read().split()[0]
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("Recorded by experiments/translate_recipe.py on %s\nCPU: %s\n" % (time.strftime("%Y-%m-%d"), cpu()))
        f.write("Load average (1 min) when it started: %s, when it ended: %s (above 2 on 2 cores: the machine\n"
                "was shared, and the times are not the recipe's own)\n\n" % (load_before, load_after))
        f.write("1. translate %s\n   %.1f min in all (training and testing)\n\n" % (" ".join(RECIPE), trained_seconds / 60))
        f.write(results.split("\nTest verses side by side:")[0].rstrip() + "\n")
        f.write("BLEU of the same translations by NLTK's corpus_bleu (13a tokens):\n%s\n\n" % check)
        f.write("2. translate %s\n   (the mean of the weights of the last %d checkpoints) %.1f min\n\n"
                % (" ".join(average_args), AVERAGE, averaged_seconds / 60))
        f.write(averaged.rstrip() + "\n")
        f.write("BLEU of the same translations by NLTK's corpus_bleu (13a tokens):\n%s\n" % averaged_check)
        f.write("\nSide by side (run 1, the last checkpoint):\n" + results.split("\nTest verses side by side:\n")[1])
    print("wrote", OUT)


if __name__ == "__main__":
    main()
