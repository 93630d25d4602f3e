# Sourced by the ctest scripts that run a program in a work directory of their own, called as
#   SCRIPT EXECUTABLE WORK_DIR
# It sets `exe` and `work`, empties the work directory and enters it, and defines `fail MESSAGE`:
# print the message and the last lines of run.out and run.err, and exit 1.
set -euo pipefail
exe=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cd "$work"
fail() { echo "FAIL: $*" >&2; for f in run.out run.err; do echo "--- $f" >&2; tail -20 "$f" >&2 || true; done; exit 1; }
