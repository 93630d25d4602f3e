#!/usr/bin/env bash
# The lab's curves (experiments/trial_curves): a run with three checkpoints is a curve; a run of
# the recipe matrix (its command sets OPENBLAS_CORETYPE=...) is not; a short row, or more curves
# than colours, is an error that says so.
#
#   trial_curves_test.sh TRIAL_CURVES_EXECUTABLE WORK_DIR
source "$(dirname "${BASH_SOURCE[0]}")/work_dir.sh"

header=$'id\tcorpus\tcommand\tsteps\tvowels\tbase_2\tbase_3'
run() {  # run ID COMMAND: three checkpoint rows of a run on sherlock
  for steps in 1000 2000 3000; do
    printf '%s-%s\tsherlock\t%s\t%s\t0.%s\t0.78\t0.81\n' "$1" "$steps" "$2" "$steps" "${steps:0:1}"
  done
}

{ echo "$header"; run plain "./build/bin/ch11_train_test --steps 3000"
  run kernels "OPENBLAS_CORETYPE=Haswell ./build/bin/ch11_train_test --steps 3000"; } >trials.tsv
"$exe" --trials trials.tsv >run.out 2>run.err || fail "exit code $? on a good table"
grep -q "^wrote trials_sherlock.svg (1 runs)$" run.out || fail "expected one curve"
grep -q ">plain</text>" trials_sherlock.svg || fail "the plain run is not in the legend"
! grep -q "kernels" trials_sherlock.svg || fail "the matrix's run is drawn"

{ echo "$header"; printf 'short\tsherlock\tcmd\n'; } >short.tsv
code=0
"$exe" --trials short.tsv >run.out 2>run.err || code=$?
[ "$code" -eq 1 ] || fail "exit code $code on a short row (expected 1)"
grep -q "'short.tsv', line 2 has 3 columns; the header has 7" run.err || fail "no message on a short row"

{ echo "$header"; for i in 1 2 3 4 5 6 7 8 9; do run "r$i" "./build/bin/ch11_train_test"; done; } >many.tsv
code=0
"$exe" --trials many.tsv >run.out 2>run.err || code=$?
[ "$code" -eq 1 ] || fail "exit code $code with 9 curves (expected 1)"
grep -q "more than 8 curves on sherlock: two would share a colour" run.err || fail "no message on 9 curves"
echo "trial_curves: curves, the matrix left out, bad tables refused"
