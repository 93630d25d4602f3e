#!/usr/bin/env bash
# The project's C++ style, checked: every .cpp and .hpp file is as clang-format (.clang-format at the
# root: Google style, 100 columns) would write it; of the exercises, the checks and solutions only
# (exercises/NN_*.cpp are the learner's to write). Fix a failure with
#   clang-format -i FILE      (or, for the lines you changed: git clang-format)
#
#   tests/check_format.sh SOURCE_DIR
set -euo pipefail
cd "${1:?usage: $0 SOURCE_DIR}"
command -v clang-format >/dev/null ||
  { echo "FAIL: no clang-format: apt-get install clang-format (debian-packages.txt, group build)"; exit 1; }
mapfile -t files < <(find bench chapters common experiments exercises/checks exercises/include exercises/solutions \
                          fuzz projects tests tools \
                          \( -name '*.cpp' -o -name '*.hpp' \) -not -path 'fuzz/corpus/*' | sort)
bad=()
for file in "${files[@]}"; do
  clang-format --dry-run -Werror "$file" >/dev/null 2>&1 || bad+=("$file")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "FAIL: ${#bad[@]} of ${#files[@]} files are not formatted: ${bad[*]}"
  echo "(clang-format -i FILE formats one)"
  exit 1
fi
echo "clang-format: all ${#files[@]} C++ files are formatted"
