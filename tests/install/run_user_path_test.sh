#!/usr/bin/env bash
# A CANN user's path through a fresh install tree, in a clean shell that has
# nothing but `source <prefix>/set_env.sh`:
#   - set_env.sh exports what CANN's does, relocates, is idempotent, works
#     under `set -u` and from dash, and refuses a directory without the library;
#   - a CANN-style CMakeLists.txt ($ENV{ASCEND_HOME_PATH}, link by name) builds
#     and its programs run, with both link lines;
#   - pkg-config aclnn-cpu resolves with only set_env.sh, and the .pc file is
#     also where Debian's pkg-config looks for /usr and /usr/local;
#   - find_package(aclnn-cpu) works with only set_env.sh, and the Python
#     package (when installed) imports from the prefix and loads its library;
#   - every installed library carries RUNPATH $ORIGIN; the tool is installed,
#     on PATH after set_env.sh, runs without LD_LIBRARY_PATH, and so does its
#     former name.
#
# usage: run_user_path_test.sh <build-dir> <tests/install dir> <work-dir> <c++> <cmake> <with-tool 0|1>
set -euo pipefail

build_dir=$1
source_dir=$2
work_dir=$3
cxx=$4
cmake=$5
with_tool=$6

prefix=$work_dir/prefix
failures=0
step() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }

# Runs a bash script in a shell with an empty environment (a new login, no
# toolkit variables), after `source <prefix>/set_env.sh`.
user_shell() {
  env -i HOME="$work_dir" PATH=/usr/local/bin:/usr/bin:/bin CXX="$cxx" \
    bash --noprofile --norc -c "set -euo pipefail; source '$prefix/set_env.sh'; $1"
}

rm -rf "$work_dir"
mkdir -p "$work_dir"
step "cmake --install $build_dir --prefix $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" >/dev/null

step "set_env.sh exports CANN's variables"
real_prefix=$(cd "$prefix" && pwd -P)
# shellcheck disable=SC2016 # expanded by the user shell
report=$(user_shell 'printf "%s\n" "${ASCEND_TOOLKIT_HOME-unset}" "${ASCEND_HOME_PATH-unset}" \
  "${ASCEND_OPP_PATH-unset}" "${LD_LIBRARY_PATH-unset}" "${PKG_CONFIG_PATH-unset}" "$PATH" \
  "${CMAKE_PREFIX_PATH-unset}" "${PYTHONPATH-unset}"')
mapfile -t values <<<"$report"
for i in 0 1 2; do
  [[ ${values[$i]} == "$real_prefix" ]] || fail "variable $i is '${values[$i]}', expected $real_prefix"
done
[[ ${values[3]} == "$real_prefix/lib64" ]] || fail "LD_LIBRARY_PATH is '${values[3]}' (no trailing ':' when it was unset)"
[[ ${values[4]} == "$real_prefix/lib64/pkgconfig" ]] || fail "PKG_CONFIG_PATH is '${values[4]}'"
[[ ${values[6]} == "$real_prefix" ]] || fail "CMAKE_PREFIX_PATH is '${values[6]}'"
if ((with_tool)); then
  [[ ${values[5]} == "$real_prefix/bin:/usr/local/bin:/usr/bin:/bin" ]] || fail "PATH is '${values[5]}'"
fi
python_dir=$real_prefix/lib/python3/dist-packages
if [[ -d $python_dir/aclnn_cpu ]]; then
  [[ ${values[7]} == "$python_dir" ]] || fail "PYTHONPATH is '${values[7]}', expected $python_dir"
  if [[ -x /usr/bin/python3 ]]; then
    # The package imports from the prefix and loads the prefix's library.
    loaded=$(user_shell "/usr/bin/python3 -c 'import aclnn_cpu; print(aclnn_cpu.__file__); print(aclnn_cpu.library_path()); print(aclnn_cpu.has_operator(\"aclnnConvolutionBackward\"))'") ||
      fail "import aclnn_cpu after set_env.sh"
    mapfile -t py <<<"$loaded"
    [[ ${py[0]:-} == "$python_dir/aclnn_cpu/__init__.py" ]] || fail "aclnn_cpu imported from '${py[0]:-}'"
    [[ $(realpath -m "${py[1]:-}") == "$real_prefix/lib64/libascendcl.so" ]] || fail "aclnn_cpu loaded '${py[1]:-}'"
    [[ ${py[2]:-} == True ]] || fail "aclnn_cpu does not see aclnnConvolutionBackward"
  fi
else
  [[ ${values[7]} == unset ]] || fail "PYTHONPATH set to '${values[7]}' without a Python package"
fi

step "set_env.sh: idempotent, keeps other entries, moves its own to the front"
again=$(user_shell "export LD_LIBRARY_PATH=/a:$real_prefix/lib64:/b; source '$prefix/set_env.sh'; echo \$LD_LIBRARY_PATH")
[[ $again == "$real_prefix/lib64:/a:/b" ]] || fail "sourcing twice gives LD_LIBRARY_PATH '$again'"

step "set_env.sh: relocated tree, dash, a directory without the library"
cp -a "$prefix" "$work_dir/moved"
moved=$(env -i PATH=/usr/bin:/bin bash --noprofile --norc -c \
  "set -u; source '$work_dir/moved/set_env.sh'; echo \$ASCEND_HOME_PATH")
[[ $moved == "$(cd "$work_dir/moved" && pwd -P)" ]] || fail "a moved tree reports '$moved'"
rm -rf "$work_dir/moved"
if command -v dash >/dev/null; then
  # dash cannot say where a sourced file is: the installed prefix is the fallback.
  from_dash=$(env -i PATH=/usr/bin:/bin dash -c ". '$prefix/set_env.sh'; echo \$ASCEND_HOME_PATH")
  [[ $(cd "$from_dash" 2>/dev/null && pwd -P) == "$real_prefix" ]] || fail "dash reports '$from_dash'"
fi
mkdir -p "$work_dir/empty"
cp "$prefix/set_env.sh" "$work_dir/empty/"
if out=$(env -i PATH=/usr/bin:/bin bash --noprofile --norc -c "source '$work_dir/empty/set_env.sh'" 2>&1); then
  fail "set_env.sh in a directory without the library succeeded"
fi
grep -q "no aclnn-cpu installation" <<<"$out" || fail "no message for a missing library: '$out'"

step "CANN-style CMakeLists.txt (\$ENV{ASCEND_HOME_PATH}, link by name) after set_env.sh"
if user_shell "'$cmake' -S '$source_dir/cann_style' -B '$work_dir/cann-build' -DCMAKE_BUILD_TYPE=Release >/dev/null &&
               '$cmake' --build '$work_dir/cann-build' >/dev/null"; then
  for program in opapi_test opapi_test_split; do
    user_shell "'$work_dir/cann-build/bin/$program'" >/dev/null || fail "$program failed after set_env.sh"
    resolved=$(user_shell "ldd '$work_dir/cann-build/bin/$program'" | awk '/libascendcl\.so/ {print $3}')
    [[ $resolved == "$real_prefix/lib64/libascendcl.so" ]] || fail "$program resolves libascendcl.so to '$resolved'"
  done
else
  fail "the CANN-style project does not build after set_env.sh"
fi

step "pkg-config aclnn-cpu with only set_env.sh"
if user_shell "pkg-config --exists aclnn-cpu && \$CXX -std=c++11 -Wall -Wextra -Werror \
      '$source_dir/consumer/consumer.cpp' -o '$work_dir/consumer_pkgconfig' \$(pkg-config --cflags --libs aclnn-cpu) &&
      '$work_dir/consumer_pkgconfig'" >/dev/null; then
  echo "pkg-config consumer: built and ran"
else
  fail "pkg-config consumer after set_env.sh"
fi
[[ -f $prefix/share/pkgconfig/aclnn-cpu.pc ]] || fail "share/pkgconfig/aclnn-cpu.pc not installed"
cmp -s "$prefix/share/pkgconfig/aclnn-cpu.pc" "$prefix/lib64/pkgconfig/aclnn-cpu.pc" ||
  fail "the two .pc files differ"
# An install to /usr/local (or /usr) is found without set_env.sh.
pc_path=$(pkg-config --variable pc_path pkg-config)
for searched in /usr/local/share/pkgconfig /usr/share/pkgconfig; do
  [[ ":$pc_path:" == *":$searched:"* ]] || fail "pkg-config does not search $searched ($pc_path)"
done
# The .pc file resolves its prefix from where it is.
shared_flags=$(env -i PATH=/usr/bin:/bin PKG_CONFIG_PATH="$prefix/share/pkgconfig" pkg-config --libs aclnn-cpu)
[[ $shared_flags == *"-L$prefix/share/pkgconfig/../../lib64"* || $shared_flags == *"-L$prefix/lib64"* ]] ||
  fail "share/pkgconfig/aclnn-cpu.pc points elsewhere: $shared_flags"

step "find_package(aclnn-cpu CONFIG) with only set_env.sh"
user_shell "'$cmake' -S '$source_dir/consumer' -B '$work_dir/config-build' >/dev/null &&
            '$cmake' --build '$work_dir/config-build' >/dev/null &&
            '$work_dir/config-build/consumer_newer_link_line' >/dev/null" ||
  fail "find_package consumer after set_env.sh"

step "RUNPATH on the installed libraries"
for lib in ascendcl nnopbase opapi opapi_nn opapi_math; do
  # shellcheck disable=SC2016 # a literal $ORIGIN is what we look for
  readelf -d "$prefix/lib64/lib$lib.so" | grep -E 'RUNPATH.*\[\$ORIGIN\]' >/dev/null || fail "lib$lib.so lacks RUNPATH \$ORIGIN"
done

if ((with_tool)); then
  step "the tool: bin/aclnn-conv and bin/aclnn-conv-backward"
  [[ -x $prefix/bin/aclnn-conv ]] || fail "bin/aclnn-conv not installed"
  [[ -L $prefix/bin/aclnn-conv-backward && $(readlink "$prefix/bin/aclnn-conv-backward") == aclnn-conv ]] ||
    fail "bin/aclnn-conv-backward is not a symlink to aclnn-conv"
  # shellcheck disable=SC2016
  readelf -d "$prefix/bin/aclnn-conv" | grep -E 'RUNPATH.*\[\$ORIGIN/\.\./lib64\]' >/dev/null || fail "aclnn-conv lacks RUNPATH \$ORIGIN/../lib64"
  env -i PATH=/usr/bin:/bin "$prefix/bin/aclnn-conv-backward" n1c2o2h5w5k3p1 --repeat 1 >"$work_dir/tool.out" ||
    { cat "$work_dir/tool.out"; fail "bin/aclnn-conv-backward without LD_LIBRARY_PATH"; }
  # Through a file: with pipefail, `--help | head -1` fails whenever head
  # exits before the tool has written its (multi-buffer) help text.
  { user_shell "aclnn-conv --help" >"$work_dir/help.out" &&
    head -1 "$work_dir/help.out" | grep -q "usage: aclnn-conv"; } ||
    fail "aclnn-conv not on PATH after set_env.sh"
  user_shell "aclnn-conv n2c4o4w16k3p1t --repeat 1 --mask 101" | grep -q "1 passed, 0 failed" ||
    fail "aclnn-conv from PATH did not pass"
fi

echo
if ((failures > 0)); then
  echo "user path test: $failures failure(s)"
  exit 1
fi
echo "user path test: PASS"
