#!/usr/bin/env bash
# ./tutorial clean removes exactly the folders the commands build into (BUILD_DIR, build-sanitize,
# build-fuzz) and says which; `clean --help` deletes nothing; a folder that is not a build folder
# (no CMakeCache.txt) is kept, whatever BUILD_DIR says. Run on a copy of the script.
#
#   tutorial_clean_test.sh SOURCE_DIR WORK_DIR
set -euo pipefail
source_dir=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
cp "$source_dir/tutorial" .
build_dir() { mkdir -p "$1" && touch "$1/CMakeCache.txt" "$1/$2"; }
build_dir build kept.o
build_dir build-sanitize kept.o
build_dir build-fuzz crash-123  # a fuzzer's crash input
build_dir mybuild kept.o
mkdir docs && touch docs/page.md

./tutorial clean --help >out.txt
grep -q "usage: ./tutorial COMMAND" out.txt || fail "clean --help printed no help"
for dir in build build-sanitize build-fuzz mybuild docs; do
  [ -d "$dir" ] || fail "clean --help deleted $dir/"
done

BUILD_DIR=mybuild ./tutorial clean >out.txt
[ "$(cat out.txt)" = "$(printf 'removed mybuild/\nremoved build-sanitize/\nremoved build-fuzz/')" ] ||
  fail "clean said: $(cat out.txt)"
[ -f build/kept.o ] || fail "BUILD_DIR=mybuild removed build/"
[ ! -e mybuild ] && [ ! -e build-sanitize ] && [ ! -e build-fuzz ] || fail "a build folder is left"

BUILD_DIR=docs ./tutorial clean >out.txt 2>err.txt
grep -q "kept docs/: it holds no CMakeCache.txt, so it is not a build folder" err.txt ||
  fail "no word on keeping docs/"
[ -f docs/page.md ] || fail "BUILD_DIR=docs deleted docs/"
touch CMakeCache.txt  # even a configured source folder is not removed as BUILD_DIR=.
BUILD_DIR=. ./tutorial clean >out.txt 2>err.txt
[ -f tutorial ] || fail "BUILD_DIR=. deleted the source folder"
grep -q "kept ./: not a build folder of this tutorial" err.txt || fail "no word on keeping ./"
./tutorial clean >out.txt
grep -q "^removed build/$" out.txt || fail "clean did not remove build/"
./tutorial clean >out.txt
grep -q "^nothing to remove$" out.txt || fail "an empty clean said: $(cat out.txt)"
echo "tutorial clean: removes exactly the build folders and says which; --help deletes nothing"
