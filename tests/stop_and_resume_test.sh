#!/usr/bin/env bash
# Ctrl-C during a real training run of chapter 11 is a request, not a loss: the run ends after a
# step, saves to --save, and the checkpoint resumes bit for bit (the same weights as a run that
# was never stopped).
#
#   stop_and_resume_test.sh CH11_EXECUTABLE WORK_DIR
source "$(dirname "${BASH_SOURCE[0]}")/work_dir.sh"

# A budget far too long to finish; SIGINT once the step-5 checkpoint shows that training runs.
"$exe" --task copy --steps 1000000 --eval-every 0 --save stopped --save-every 5 >run.out 2>run.err &
pid=$!
for _ in $(seq 600); do
  [ -f stopped-step5/config.txt ] && break
  kill -0 "$pid" 2>/dev/null || fail "the run ended before it was stopped"
  sleep 0.1
done
[ -f stopped-step5/config.txt ] || { kill -9 "$pid"; fail "no step-5 checkpoint after 60 s"; }
kill -INT "$pid"
code=0
wait "$pid" || code=$?
[ "$code" -eq 0 ] || fail "exit code $code after one SIGINT (expected 0: stop, save, test)"
grep -q "stop requested: training ends after this step" run.err || fail "no 'stop requested' message"
grep -q "(stopped by a signal)" run.out || fail "the summary does not say the run was stopped"
grep -q "^saved stopped$" run.out || fail "the model was not saved to --save"
steps=$(sed -n 's/^steps=//p' stopped/optimizer/state.txt)
[ "${steps:-0}" -ge 5 ] || fail "the checkpoint holds ${steps:-no} steps"

# Three more steps from the checkpoint, and the same number of steps in one go.
"$exe" --task copy --load stopped --steps 3 --eval-every 0 --save resumed >resumed.out 2>&1 ||
  fail "resuming failed: $(tail -3 resumed.out)"
"$exe" --task copy --steps $((steps + 3)) --eval-every 0 --save straight >straight.out 2>&1 ||
  fail "the straight run failed: $(tail -3 straight.out)"
diff -r resumed/parameters straight/parameters >/dev/null ||
  fail "resumed after $steps steps, the weights differ from a run that was never stopped"
diff -r resumed/optimizer straight/optimizer >/dev/null || fail "the optimizer state differs"
# The loss curve of the pieces is the curve of the run in one go (the checkpoint keeps it).
history=files/loss_history.tsv
grep '^train' "resumed/$history" >resumed.losses || fail "resumed/$history has no training losses"
grep '^train' "straight/$history" >straight.losses || fail "straight/$history has no training losses"
diff resumed.losses straight.losses >/dev/null ||
  fail "the resumed run's loss history differs from the run in one go: $(diff resumed.losses straight.losses | head -4)"
echo "stopped after $steps steps by SIGINT; saved; resumed for 3 steps: bit for bit the same as $((steps + 3)) steps in one go, loss history included"
