#!/usr/bin/env bash
# What ./tutorial installs, checked without installing anything and whatever this machine has
# (and that it refuses a chapter that does not exist):
# dpkg-query, apt-get, sudo and cmake are replaced by stubs on PATH. The dpkg-query stub reports
# as installed exactly the packages listed in $STUB_INSTALLED; apt-get records its arguments.
#
#   tests/tutorial_installs_test.sh <source dir>
#
# It fails on a ./tutorial that decides what is installed from files on disk (such as
# /usr/include/x86_64-linux-gnu/cblas.h, which Debian's reference BLAS provides too), because the
# answer then depends on the machine instead of on the package manager.
set -euo pipefail
source_dir=$(cd "${1:?usage: $0 <source dir>}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

stubs=$work/stubs
mkdir -p "$stubs"
cat >"$stubs/dpkg-query" <<'STUB'
#!/usr/bin/env bash
# dpkg-query -W -f='${Status}' PACKAGE
package=${!#}
if grep -qxF "$package" <<<"$STUB_INSTALLED"; then printf 'install ok installed'; exit 0; fi
echo "dpkg-query: no packages found matching $package" >&2
exit 1
STUB
cat >"$stubs/apt-get" <<'STUB'
#!/usr/bin/env bash
echo "$*" >>"$APT_LOG"
STUB
cat >"$stubs/sudo" <<'STUB'
#!/usr/bin/env bash
exec "$@"
STUB
cat >"$stubs/cmake" <<'STUB'
#!/usr/bin/env bash
exit 0
STUB
chmod +x "$stubs"/*

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The packages of a group, as debian-packages.txt lists them (one per line).
group() { awk -v g="$1" '!/^#/ && $1 == g { print $2 }' "$source_dir/debian-packages.txt"; }

# run_tutorial <installed packages, one per line> <tutorial arguments...>: the apt-get log.
run_tutorial() {
  local installed=$1; shift
  : >"$work/apt.log"
  (cd "$source_dir" && PATH="$stubs:$PATH" STUB_INSTALLED="$installed" APT_LOG="$work/apt.log" \
     BUILD_DIR="$work/build" ./tutorial "$@" >"$work/out.txt" 2>&1) ||
    fail "./tutorial $* exited with $?: $(cat "$work/out.txt")"
  cat "$work/apt.log"
}

build_packages=$(group build)
[ -n "$build_packages" ] || fail "debian-packages.txt lists no build package"
grep -qx libopenblas-dev <<<"$build_packages" || fail "libopenblas-dev is not a build package"

# 1. Everything but OpenBLAS installed (the stock image: libblas-dev's cblas.h is there): install it.
log=$(run_tutorial "$(grep -vx libopenblas-dev <<<"$build_packages")" build)
grep -qx "install -y --no-install-recommends libopenblas-dev" <<<"$log" ||
  fail "with only libopenblas-dev missing, apt-get was not asked for exactly it; apt-get log: '$log'"

# 2. Everything installed: apt-get is not called at all.
log=$(run_tutorial "$build_packages" build)
[ -z "$log" ] || fail "with every package installed, apt-get was called: '$log'"

# 3. Nothing installed: every build package, and nothing else, is asked for.
log=$(run_tutorial "" build)
expected="install -y --no-install-recommends $(echo $build_packages)"
grep -qxF "$expected" <<<"$log" || fail "on a bare machine apt-get was not asked for '$expected'; log: '$log'"

# 4. No --help installs anything, even with nothing installed.
for args in "--help" "run --help" "test --help" "build --help" "docs --help" "sanitize --help" \
            "fuzz --help" "bench --help" "chapter 3 --help"; do
  # shellcheck disable=SC2086  # the arguments are words
  log=$(run_tutorial "" $args)
  [ -z "$log" ] || fail "./tutorial $args called apt-get: '$log'"
done

# 5. A chapter that does not exist is refused at once, however the number is written.
for n in 0 12 99999999999999999999 three; do
  out=$("$source_dir/tutorial" chapter "$n" --help 2>&1) && fail "./tutorial chapter $n --help succeeded"
  grep -qF "error: ./tutorial chapter N (N from 1 to 11), got '$n'" <<<"$out" ||
    fail "./tutorial chapter $n --help said '$out'"
done

if [ "$failures" -eq 0 ]; then echo "tutorial installs: all checks passed"; fi
exit "$((failures > 0))"
