#!/usr/bin/env bash
# `--restore -`: chapter 11 reads plain lines from standard input (a blank one is skipped, one
# without a letter is refused and the next is read), restores each by the training text's rules,
# and writes the attention maps of the last one into --attention-dir.
#   restore_lines_test.sh CH11_EXECUTABLE WORK_DIR
set -euo pipefail
exe=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work"
printf 'Hello, World!\n\n1234\nth* t*m* m*ch*n*\n' >input.txt
code=0
"$exe" --steps 1 --eval-every 0 --set d_model=8 --set d_ff=16 --set n_heads=2 \
  --restore - --attention-dir maps <input.txt >out.txt 2>err.txt || code=$?
fail() { echo "FAIL: $1"; echo "--- stdout"; cat out.txt; echo "--- stderr"; cat err.txt; exit 1; }
[ "$code" -eq 1 ] || fail "exit code $code, expected 1 (one line refused)"
grep -q "^note: lower-cased 'H', 'W': the model was trained on lower-case text$" out.txt || fail "no note on capitals"
grep -Eq "^Hello, World!  ->  h[aeiou]ll[aeiou] w[aeiou]rld$" out.txt || fail "line 1 not restored"
grep -q "^error: --restore -: line 3: the text has no letter a-z to read$" err.txt || fail "line 3 not refused"
grep -Eq "^th\* t\*m\* m\*ch\*n\*  ->  th[aeiou] t[aeiou]m[aeiou] m[aeiou]ch[aeiou]n[aeiou]$" out.txt || fail "line 4 not restored"
grep -q "open maps/index.html in a web browser" out.txt || fail "no line saying how to open the maps"
for f in index.html encoder_self_layer0.svg decoder_self_layer1.svg cross_layer1.svg; do
  [ -s "maps/$f" ] || fail "maps/$f missing"
done
grep -q "th\* t\*m\* m\*ch\*n\*" maps/index.html || fail "the index does not show the last text"
echo "ok: --restore - read 4 lines, restored 2, refused 1, wrote maps/"
