#!/usr/bin/env bash
# The faults of a real terminal, disk and second process (issue 50): none of them loses a trained
# model or a user's file, and none ends in a success that was not one. One case per ctest test:
#
#   nothing_lost_test.sh EXECUTABLE WORK_DIR CASE [FAULT_SHIM]
#
# EXECUTABLE is chapter 11's program (translate's for translate_term); FAULT_SHIM is the
# LD_PRELOAD library tests/fault_shim.cpp builds, for the faults CI cannot make as root.
source "$(dirname "${BASH_SOURCE[0]}")/work_dir.sh"
case_name=$3
shim=${4:-}
# An AddressSanitizer build wants its runtime first; the shim comes first instead.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
copy=(--task copy --eval-every 0)
# A run left in the background by a failed check must not outlive the test.
trap 'kill -9 $(jobs -p) 2>/dev/null || true' EXIT

# Waits (at most 60 s) until FILE exists while process PID runs.
wait_for() {
  local file=$1 pid=$2
  for _ in $(seq 600); do
    [ -e "$file" ] && return 0
    kill -0 "$pid" 2>/dev/null || fail "the run ended before $file appeared"
    sleep 0.1
  done
  kill -9 "$pid"
  fail "no $file after 60 s"
}

# The checkpoint DIR resumes bit for bit: 2 more steps from it give the weights of the same
# number of steps in one go.
resumes_bit_for_bit() {
  local dir=$1 steps
  steps=$(sed -n 's/^steps=//p' "$dir/optimizer/state.txt")
  [ "${steps:-0}" -ge 1 ] || fail "$dir holds ${steps:-no} steps"
  "$exe" "${copy[@]}" --load "$dir" --steps 2 --save "$dir.resumed" >resumed.out 2>&1 ||
    fail "resuming $dir failed: $(tail -3 resumed.out)"
  "$exe" "${copy[@]}" --steps $((steps + 2)) --save "$dir.straight" >straight.out 2>&1 ||
    fail "the straight run failed: $(tail -3 straight.out)"
  diff -r "$dir.resumed/parameters" "$dir.straight/parameters" >/dev/null ||
    fail "$dir resumed after $steps steps differs from $((steps + 2)) steps in one go"
  diff -r "$dir.resumed/optimizer" "$dir.straight/optimizer" >/dev/null ||
    fail "$dir: the optimizer state differs after resuming"
  echo "$dir: saved after $steps steps, resumed bit for bit"
}

case "$case_name" in
  hangup_and_pipe)
    # A closed terminal (SIGHUP) stops training after a step and saves, as Ctrl-C does.
    "$exe" "${copy[@]}" --steps 1000000 --save hup --save-every 3 >run.out 2>run.err &
    pid=$!
    wait_for hup-step3/config.txt "$pid"
    kill -HUP "$pid"
    code=0
    wait "$pid" || code=$?
    [ "$code" -eq 0 ] || fail "exit code $code after SIGHUP (expected 0: stop, save, test)"
    grep -q "^saved hup$" run.out || fail "SIGHUP: the model was not saved to --save"
    resumes_bit_for_bit hup
    # Output into `head`, which ends after 3 lines: the printing ends, the training does not.
    set +o pipefail
    "$exe" "${copy[@]}" --steps 12 --save piped 2>run.err | head -n 3 >run.out
    code=${PIPESTATUS[0]}
    set -o pipefail
    [ "$code" -eq 1 ] || fail "exit code $code with its output cut by head (expected 1)"
    grep -q "standard output could not be written (Broken pipe)" run.err ||
      fail "no message that the output was cut"
    [ "$(sed -n 's/^steps=//p' piped/optimizer/state.txt)" = 12 ] ||
      fail "the run whose output went into head did not train its 12 steps and save them"
    resumes_bit_for_bit piped
    ;;
  two_runs)
    # Two runs started at once on one --save: one trains and saves, the other is refused first.
    "$exe" "${copy[@]}" --steps 20 --save shared >a.out 2>a.err &
    a=$!
    "$exe" "${copy[@]}" --steps 20 --save shared >b.out 2>b.err &
    b=$!
    code_a=0 code_b=0
    wait "$a" || code_a=$?
    wait "$b" || code_b=$?
    [ $((code_a + code_b)) -eq 1 ] || fail "exit codes $code_a and $code_b (expected one 0, one 1)"
    refused=b
    [ "$code_a" -eq 1 ] && refused=a
    grep -q "cannot save a checkpoint to 'shared': another run (pid [0-9]*) is saving there" \
      "$refused.err" || fail "run $refused: no message naming the other run: $(cat "$refused.err")"
    ! grep -q "training step" "$refused.out" || fail "run $refused trained before it was refused"
    [ "$(sed -n 's/^steps=//p' shared/optimizer/state.txt)" = 20 ] || fail "no 20-step checkpoint"
    # A lock left by a run that was killed is no obstacle.
    "$exe" "${copy[@]}" --steps 1000000 --save killed --save-every 2 >run.out 2>run.err &
    pid=$!
    wait_for killed-step2/config.txt "$pid"
    kill -9 "$pid"
    wait "$pid" || true
    "$exe" "${copy[@]}" --steps 1 --save killed >run.out 2>run.err ||
      fail "the killed run's lock kept a new run from saving"
    ;;
  bad_tmpdir)
    # A TMPDIR that is missing, empty or a file costs nothing: --save saves, and the rescue of a
    # save that fails goes to /tmp.
    touch a_file
    for tmpdir in /nonexistent "" "$PWD/a_file"; do
      TMPDIR=$tmpdir "$exe" "${copy[@]}" --steps 2 --save good >run.out 2>run.err ||
        fail "TMPDIR='$tmpdir' failed a run with a good --save"
      grep -q "^saved good$" run.out || fail "TMPDIR='$tmpdir': not saved"
    done
    # The parent of --save becomes a file during training: the model goes to /tmp instead.
    mkdir gone
    TMPDIR=/nonexistent "$exe" "${copy[@]}" --steps 1000000 --save gone/model --save-every 2 \
      >run.out 2>run.err &
    pid=$!
    wait_for gone/model-step2/config.txt "$pid"
    mv gone gone.moved  # at once, while the run may still write into it
    touch gone
    kill -INT "$pid"
    code=0
    wait "$pid" || code=$?
    [ "$code" -eq 1 ] || fail "exit code $code after a failed save (expected 1)"
    rescued=/tmp/ch11_train_test-rescued-$pid
    grep -q "the model was saved to '$rescued' instead" run.err || fail "no rescue named"
    [ -f "$rescued/config.txt" ] || fail "nothing in $rescued"
    rm -rf "$rescued"
    ;;
  long_name)
    # A --save name that leaves no room for the names a save writes beside it: refused first.
    long=$(printf 'm%.0s' $(seq 230))
    code=0
    "$exe" "${copy[@]}" --steps 2 --save "$long" >run.out 2>run.err || code=$?
    [ "$code" -eq 1 ] || fail "exit code $code for a 230-byte --save (expected 1)"
    grep -q "its name is 230 bytes long, but the names a save writes beside it" run.err ||
      fail "no message on the name's length"
    ! grep -q "training step" run.out || fail "trained before refusing the name"
    code=0
    "$exe" "${copy[@]}" --steps 2 --save "${long:0:210}" --save-every 1 >run.out 2>run.err ||
      code=$?
    [ "$code" -eq 1 ] || fail "exit code $code for a 210-byte --save with --save-every"
    grep -q "its name is 210 bytes long" run.err || fail "no message for the step checkpoints"
    ;;
  trailing_slash)
    # --save DIR/ (as a shell completes it): the step checkpoints go beside DIR, not inside.
    "$exe" "${copy[@]}" --steps 2 --save-every 1 --save slash/ >run.out 2>run.err ||
      fail "a run with --save slash/ failed"
    [ -f slash-step1/config.txt ] && [ -f slash-step2/config.txt ] || fail "no slash-step<S>"
    [ -f slash/config.txt ] || fail "the final save is not in slash/"
    [ ! -e slash/-step1 ] || fail "a step checkpoint inside the checkpoint"
    ;;
  durable_save)
    here=$(pwd -P)
    # Every file and folder of a save is flushed to the disk before the rename that publishes it,
    # and the folder that holds it after.
    FAULT_SYNC_LOG=$here/sync.log LD_PRELOAD=$shim "$exe" "${copy[@]}" --steps 1 --save durable \
      >run.out 2>run.err || fail "the run failed"
    publish=$(grep -n "^rename .*/durable\.saving\.[0-9]*\.[0-9]* $here/durable$" sync.log | cut -d: -f1)
    [ -n "$publish" ] || fail "no rename of the new version into place: $(cat sync.log)"
    head -n "$publish" sync.log >before.log
    while read -r file; do
      grep -q "^fsync $here/durable\.saving\.[0-9]*\.[0-9]*/$file$" before.log ||
        fail "'$file' was not flushed before the rename"
    done < <(cd durable && find . -mindepth 1 | sed 's#^\./##')
    grep -q "^fsync $here/durable\.saving\.[0-9]*\.[0-9]*$" before.log || fail "folder not flushed"
    tail -n +"$publish" sync.log | grep -q "^fsync $here$" || fail "the parent was not flushed"
    ;;
  file_size_limit)
    # ulimit -f: the write past the limit is an error (SIGXFSZ killed the program), the rescue is
    # tried, and the run ends with exit code 1 naming the limit's error.
    code=0
    # (stdout to /dev/null: the limit would cut a file there too)
    (ulimit -f 4 && exec "$exe" "${copy[@]}" --steps 1 --save limited >/dev/null 2>run.err) ||
      code=$?
    [ "$code" -eq 1 ] || fail "exit code $code under ulimit -f 4 (expected 1; 153 is SIGXFSZ)"
    grep -q "could not save the checkpoint 'limited': .*File too large" run.err ||
      fail "no 'File too large'"
    grep -q "instead failed too" run.err || fail "no rescue tried"
    ;;
  full_output)
    # > /dev/full: nothing printed arrives; the run says so and fails, the model is saved.
    code=0
    "$exe" "${copy[@]}" --steps 2 --save full >/dev/full 2>run.err || code=$?
    [ "$code" -eq 1 ] || fail "exit code $code with stdout on /dev/full (expected 1)"
    grep -q "standard output could not be written (\(No space left on device\|a write failed: a full disk?\))" run.err ||
      fail "no message on the lost output"
    [ -f full/config.txt ] || fail "the model was not saved"
    ;;
  optimizer_missing)
    "$exe" "${copy[@]}" --steps 2 --save weights >run.out 2>run.err || fail "the first run failed"
    rm -r weights/optimizer
    "$exe" "${copy[@]}" --load weights --steps 1 >run.out 2>run.err || fail "loading weights failed"
    grep -q "loaded weights (weights only, no optimizer state: training would start Adam" run.out ||
      fail "no word that the optimizer state is missing"
    touch weights/optimizer
    code=0
    "$exe" "${copy[@]}" --load weights --steps 1 >run.out 2>run.err || code=$?
    [ "$code" -eq 1 ] || fail "exit code $code for an optimizer that is a file"
    grep -q "has '[^']*weights/optimizer', which is not a directory: its optimizer state is damaged" \
      run.err || fail "no message on the damaged optimizer state"
    ;;
  average_runs)
    "$exe" "${copy[@]}" --steps 2 --seed 1 --save run1 >run.out 2>run.err || fail "run 1 failed"
    "$exe" "${copy[@]}" --steps 2 --seed 1 --save run2 >run.out 2>run.err || fail "run 2 failed"
    code=0
    "$exe" --task copy --average run1 --average run2 >run.out 2>run.err || code=$?
    [ "$code" -eq 1 ] || fail "exit code $code averaging two runs (expected 1)"
    grep -q "cannot average 'run1' and 'run2': they come from different training runs (run [0-9a-f]* and run [0-9a-f]*); .*--force-average" \
      run.err || fail "no message naming the runs"
    "$exe" --task copy --average run1 --average run2 --force-average >run.out 2>run.err ||
      fail "--force-average did not average"
    grep -q "loaded the mean of 2 checkpoints' weights" run.out || fail "no mean with --force-average"
    ;;
  corpus_read_error)
    # A read error halfway, or a corpus cut short while it is read: an error, never a part of
    # the text taken for the whole.
    printf 'The old man walked down to the harbour every morning before the sun was up. %.0s' \
      $(seq 20) >corpus.txt
    for kind in eio eof; do
      code=0
      FAULT_READ_PATH=corpus.txt FAULT_READ_CALL=1 FAULT_READ_KIND=$kind LD_PRELOAD=$shim \
        "$exe" --corpus corpus.txt --steps 1 >run.out 2>run.err || code=$?
      [ "$code" -eq 1 ] || fail "$kind: exit code $code (expected 1)"
      ! grep -q "training step" run.out || fail "$kind: trained on a part of the corpus"
    done
    FAULT_READ_PATH=corpus.txt FAULT_READ_CALL=1 FAULT_READ_KIND=eio LD_PRELOAD=$shim \
      "$exe" --corpus corpus.txt --steps 1 >run.out 2>run.err || true
    grep -q "error while reading corpus 'corpus.txt' after 0 of [0-9]* bytes: Input/output error" \
      run.err || fail "no system's reason for the read error"
    FAULT_READ_PATH=corpus.txt FAULT_READ_CALL=1 FAULT_READ_KIND=eof LD_PRELOAD=$shim \
      "$exe" --corpus corpus.txt --steps 1 >run.out 2>run.err || true
    grep -q "corpus 'corpus.txt' changed while it was read: 0 bytes read, but it had [0-9]*" \
      run.err || fail "no message for a corpus cut short"
    ;;
  translate_term)
    # SIGTERM while the model is tested ends the program (it was ignored for minutes).
    "$exe" --preset tiny --symbols 300 --batch-tokens 2000 --eval-every 0 --steps 1 \
      --test-verses 0 --beam 4 >run.out 2>run.err &
    pid=$!
    # The loss curve is written right after the save, before the test starts.
    for _ in $(seq 6000); do
      [ -e loss_curve_translate.svg ] && break
      kill -0 "$pid" 2>/dev/null || fail "the run ended before it tested"
      sleep 0.1
    done
    sleep 1
    kill -TERM "$pid"
    code=0
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; fail "still testing 10 s after SIGTERM"; }
    wait "$pid" || code=$?
    [ "$code" -ne 0 ] || fail "exit code 0 after SIGTERM while testing"
    ;;
  *) fail "unknown case '$case_name'" ;;
esac
echo "$case_name: passed"
