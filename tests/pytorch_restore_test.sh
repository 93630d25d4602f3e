#!/usr/bin/env bash
# Chapter 11's page: the lines that load a C++ checkpoint into the PyTorch twin and restore a
# sentence (tools/restore_in_pytorch.py) print what the C++ program prints for the same model.
#   pytorch_restore_test.sh CH11_EXECUTABLE TOOLS_DIR WORK_DIR
set -euo pipefail
exe=$1 tools=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
text="th* t*m* tr*v*ll*r s*t d*wn"
fail() { echo "FAIL: $1"; for f in *.txt; do echo "--- $f"; cat "$f"; done; exit 1; }
"$exe" --preset vowels-tiny --steps 40 --eval-every 0 --eval-windows 10 --save model.ckpt \
  >train.txt 2>&1 || fail "training failed"
"$exe" --load model.ckpt --restore "$text" >cpp.txt 2>&1 || fail "the C++ restore failed"
cpp=$(sed -n "s/^th\* t\*m\* tr\*v\*ll\*r s\*t d\*wn  ->  //p" cpp.txt)
[ -n "$cpp" ] || fail "no restored line in the C++ output"
/usr/bin/python3 "$tools/restore_in_pytorch.py" model.ckpt "$text" >pytorch.txt 2>&1 ||
  fail "the PyTorch restore failed"
python=$(head -n 1 pytorch.txt)
[ "$cpp" = "$python" ] || fail "C++ restored '$cpp', PyTorch '$python'"
echo "ok: C++ and PyTorch both restore '$text' as '$cpp'"
