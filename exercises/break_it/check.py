#!/usr/bin/env python3
"""Proves what the "Break it" section of exercises/README.md says, one patch at a time.

Run it by hand, from anywhere, after ./tutorial build:

    exercises/break_it/check.py          every patch of exercises/break_it/
    exercises/break_it/check.py NAME...  only these (e.g. 05_softmax_row_sum)

It is not a ctest test: it rebuilds the library once for each patch and changes common/ while it
runs, so nothing may run beside it. .ci/run runs it after the tests, so that a patch that no
longer applies (a file moved, a line changed) is caught.

First it runs the page's commands on the untouched tree: the tests must pass, and what the page
says a broken run prints must not be printed. Then, for each patch: `git apply` it, run the same
commands (each rebuilds what it needs), check that the tests fail and print what the page quotes,
and take the patch out again with `git apply -R`, even after an error or Ctrl-C. At the end it
rebuilds the tests and the chapters, so that the programs match the sources again.

It refuses to start if common/ has changes of yours: it would mix them with the patches.
Environment: BUILD_DIR (default build), JOBS (default: number of cores).
"""

import os
import re
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join("exercises", "break_it")
BUILD_DIR = os.environ.get("BUILD_DIR", "build")
JOBS = os.environ.get("JOBS", str(os.cpu_count() or 2))


def tests(regex):
    """The page's command for one group of tests: rebuild the tests, run the ones named."""
    return ('cmake --build {build} -j {jobs} --target tfm_tests >/dev/null && '
            '(cd {build} && OPENBLAS_NUM_THREADS=1 ctest -R "%s" --output-on-failure)' % regex)


def chapter(n):
    return "./tutorial chapter %d" % n


# Chapter 05 ends with one entry of grad_q, grad_k and grad_v, each from backward() and from a finite
# difference of the forward: "  grad_q[0, 0, 3, 1]   backward -0.42776   finite difference -0.42776".
GRADIENT_LINE = re.compile(r"^\s+grad_([qkv])\[[^]]*\]\s+backward\s+(\S+)\s+finite difference\s+(\S+)",
                           re.M)


def gradients(output):
    """{"q": (backward, finite difference), "k": ..., "v": ...} from chapter 05's output."""
    found = {m.group(1): (float(m.group(2)), float(m.group(3)))
             for m in GRADIENT_LINE.finditer(output)}
    if sorted(found) != ["k", "q", "v"]:
        raise SystemExit("chapter 05 printed no grad_q, grad_k and grad_v lines: has its output changed?")
    return found


def agree(pair):
    backward, numeric = pair
    return abs(backward - numeric) <= 1e-3 + 1e-2 * abs(numeric)


def only_dv_agrees(output):
    g = gradients(output)
    return not agree(g["q"]) and not agree(g["k"]) and agree(g["v"])


def only_dk_disagrees(output):
    g = gradients(output)
    return agree(g["q"]) and not agree(g["k"]) and agree(g["v"])


def dq_dk_sqrt_d_k_times(output):
    """The forward divides by d_k, the backward still by sqrt(d_k): grad_q and grad_k come out sqrt(d_k)
    times too large, exactly. The tutorial runs chapter 05 with --d-k 4."""
    d_k = re.search(r"--d-k (\d+)", output)  # ./tutorial echoes the chapter's command line
    if not d_k:
        raise SystemExit("./tutorial chapter 5 did not print its --d-k")
    root = float(d_k.group(1)) ** 0.5
    g = gradients(output)
    return (all(abs(g[x][0] / g[x][1] - root) < 1e-2 * root for x in "qk") and agree(g["v"]))


def dv_agrees_with_finite_differences(output):
    return "grad_v[" not in output  # the gradient check's message names the entry: "masked grad_v[3]"


def unmasked_fixtures_pass(output):
    return not re.search(r"\b(cross|self) (context|weights|grad_q|grad_k|grad_v):", output)


def step_0_passes(output):
    return "step 0\n" not in output  # position 0 is right for step 0


def a_causal_row_loses_weight(output):
    """Some row of chapter 05's causal grid sums to less than 1: its blocked keys' weight is gone,
    not given to the others. (The grid prints two decimals: a correct row sums to 1 +- 0.03.)"""
    grid = output.split("Weights with the causal mask", 1)[1].split("\n\n", 1)[0]
    sums = [sum(float(v) for v in line.split()[1:]) for line in grid.splitlines()[2:]]
    if not sums:
        raise SystemExit("chapter 05 printed no causal grid: has its output changed?")
    return min(sums) < 0.95


# What a run of the weights' grid prints for a fully blocked query: every weight 0.00.
ALL_ZERO_ROW = re.compile(r"gets uniform weights \([^)]*\), not NaN:( 0\.00)+$", re.M)
# Chapter 02's first toy pair, fed without the shift: no <bos>, the target words from column 0.
UNSHIFTED_TGT_IN = re.compile(r"^\s+tgt_in\s+i\s+want\s+a\s+beer\s+\.\s+<pad>", re.M)

# name -> [(command, the tests it must fail (None: a chapter, which must succeed),
#           [words it must print], [claims about its output])]
BREAKS = {
    "02_decoder_input_not_shifted": [
        (chapter(2), None, [], [UNSHIFTED_TGT_IN.search]),
        (tests("^ToyTranslation:"), ["ToyTranslation: nlp-tutorial's pairs with exact ids"],
         ['CHECK( toy.target_vocabulary().decode(row(batch.tgt_in, 0))'
          ' == "<bos> i want a beer ." )',
          '"i want a beer . <pad>"\n  ==\n  "<bos> i want a beer ."'], []),
    ],
    "05_softmax_row_sum": [
        (chapter(5), None, [], [only_dv_agrees]),
        (tests("^softmax:"),
         ["softmax: forward and backward match PyTorch",
          "softmax: backward agrees with finite differences"],
         ["CHECK( rep.worst < tol )", "grad_x[", "vs numeric", "softmax max relative error: y"], []),
    ],
    "05_scale_by_d_k": [
        (chapter(5), None, [], [dq_dk_sqrt_d_k_times]),
        (tests("^attention:"),
         ["attention: forward and backward match PyTorch",
          "attention: gradients agree with finite differences"],
         ["self context: max relative error", "self weights: max relative error",
          "unmasked grad_q[", "unmasked grad_k["],
         [dv_agrees_with_finite_differences]),
    ],
    "05_mask_after_softmax": [
        (chapter(5), None, [],
         [a_causal_row_loses_weight, ALL_ZERO_ROW.search, only_dk_disagrees]),
        (tests("^attention:"),
         ["attention: forward and backward match PyTorch",
          "attention: masks give exact zeros, a fully masked row gives uniform weights",
          "attention: the trace reports every step with its shape",
          "attention: gradients agree with finite differences"],
         ["CHECK( sum == Approx(1.0).epsilon(1e-6) )", "cross_masked weights: max relative error"],
         [unmasked_fixtures_pass]),
    ],
    "11_cached_step_at_position_0": [
        (tests("step equals decode|own position"),
         ["Transformer: decode equals forward, and step equals decode at every position",
          "greedy decoding: every step gets the encoding of its own position"
          " (reference 002's bug)"],
         ["CHECK( worst < 1e-5 )", "with message:\n  step 1\n"],
         [step_0_passes]),
    ],
}


def expand(command):
    return command.format(build=BUILD_DIR, jobs=JOBS)


def run(command):
    """Runs a page command from the repository's root; returns (exit code, stdout + stderr)."""
    done = subprocess.run(expand(command), shell=True, cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True,
                          env=dict(os.environ, BUILD_DIR=BUILD_DIR, JOBS=JOBS))
    return done.returncode, done.stdout


def git(*args):
    subprocess.run(("git",) + args, cwd=ROOT, check=True)


def failed_tests(output):
    """The names ctest lists after "The following tests FAILED:" ("  12 - NAME (Failed)")."""
    listed = output.split("The following tests FAILED:", 1)[1:]
    return {m.group(1) for m in re.finditer(r"^\s+\d+ - (.*) \(\w+\)$", "".join(listed), re.M)}


def problems_of(command, failing, words, claims):
    """What is wrong with one command's run under a patch: [] if it did what the page says."""
    code, output = run(command)
    wrong = []
    if failing is None and code != 0:
        wrong.append("it stopped with exit code %d" % code)
    if failing is not None and (code == 0 or failed_tests(output) != set(failing)):
        wrong.append("the failed tests are %s; the page says %s"
                     % (sorted(failed_tests(output)), sorted(failing)))
    wrong += ["it did not print %r" % w for w in words if w not in output]
    wrong += ["the page's claim %s does not hold" % name_of(c) for c in claims if not c(output)]
    return wrong, output


def name_of(claim):
    return getattr(claim, "__name__", "claim")


def check_untouched(names):
    """On the untouched tree the tests pass, and no chapter prints what the page says a broken
    run prints. Each command runs once."""
    claims_of = {}
    for name in names:
        for command, _, _, claims in BREAKS[name]:
            claims_of.setdefault(command, []).extend(claims)
    failures = []
    for command, claims in claims_of.items():
        code, output = run(command)
        if code != 0:
            failures.append("untouched tree: %s failed:\n%s" % (expand(command), output[-3000:]))
        if "ctest" not in command:  # a chapter's claims describe a broken run
            failures += ["untouched tree: %s: %s holds already" % (expand(command), name_of(c))
                         for c in claims if c(output)]
    return failures


def check_break(name):
    patch = os.path.join(HERE, name + ".patch")
    git("apply", patch)
    try:
        failures = []
        for command, failing, words, claims in BREAKS[name]:
            wrong, output = problems_of(command, failing, words, claims)
            if wrong:
                failures.append("%s\n    %s\n    --- its output ends with:\n%s"
                                % (expand(command), "\n    ".join(wrong), output[-3000:]))
        return failures
    finally:
        git("apply", "-R", patch)


def main(argv):
    names = argv or sorted(BREAKS)
    unknown = [n for n in names if n not in BREAKS]
    if unknown:
        raise SystemExit("no break %s; the breaks are: %s" % (", ".join(unknown),
                                                              " ".join(sorted(BREAKS))))
    missing = [n for n in BREAKS if not os.path.exists(os.path.join(ROOT, HERE, n + ".patch"))]
    if missing:
        raise SystemExit("no patch file for: %s" % " ".join(missing))
    if not os.path.exists(os.path.join(ROOT, BUILD_DIR, "CMakeCache.txt")):
        raise SystemExit("%s/ is not built yet: run ./tutorial build first" % BUILD_DIR)
    changed = subprocess.run(["git", "status", "--porcelain", "--", "common"], cwd=ROOT,
                             stdout=subprocess.PIPE, universal_newlines=True).stdout
    if changed:
        raise SystemExit("common/ has changes of yours; commit or stash them first (they would "
                         "be mixed with the patches):\n" + changed)
    # Ctrl-C and kill both end in the finally blocks, which take the patch out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))

    failures = check_untouched(names)
    print("untouched tree: %s" % ("the tests pass" if not failures else "WRONG"), flush=True)
    caught = 0
    for name in names:
        found = check_break(name)
        caught += not found
        print("%-32s %s" % (name, "caught, as the page says" if not found else "WRONG"),
              flush=True)
        failures += ["%s: %s" % (name, f) for f in found]
    code, output = run("cmake --build {build} -j {jobs} --target tfm_tests chapters")
    if code != 0:
        failures.append("the final rebuild failed:\n" + output[-3000:])
    for failure in failures:
        print("\n" + failure)
    print("\n%d of %d breaks caught as the page says" % (caught, len(names)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
