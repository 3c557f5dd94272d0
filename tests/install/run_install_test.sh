#!/usr/bin/env bash
# Installs the current build into a fresh prefix and uses it the way CANN
# users do: compile the sample with g++ -std=c++11 and both CANN link lines,
# build consumers via find_package and via pkg-config, and check that
# libascendcl.so exports only the API (acl*/Acl*).
#
# usage: run_install_test.sh <build-dir> <tests/install dir> <work-dir> <c++> <cmake> [extra flags]
set -euo pipefail

build_dir=$1
source_dir=$2
work_dir=$3
cxx=$4
cmake=$5
extra_flags=${6:-}   # e.g. sanitizer flags the library was built with

prefix=$work_dir/prefix
libdir=$prefix/lib64
failures=0

step() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }

# Runs a program with only the given library path visible.
run_with_libdir() {
  local program=$1 status=0
  env LD_LIBRARY_PATH="$libdir" "$program" || status=$?
  ((status == 0)) || fail "$program exited with status $status"
}

# The executable must resolve libascendcl from the install prefix, not the build tree.
check_resolves_to_prefix() {
  local program=$1 resolved
  resolved=$(env LD_LIBRARY_PATH="${2:-}" ldd "$program" | awk '/libascendcl\.so/ {print $3}')
  case "$resolved" in
    "$libdir"/*) ;;
    *) fail "$program resolves libascendcl.so to '$resolved', not into $libdir" ;;
  esac
}

rm -rf "$work_dir"
mkdir -p "$work_dir"

step "cmake --install $build_dir --prefix $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix"
for lib in ascendcl nnopbase opapi opapi_nn opapi_math; do
  [[ -f $libdir/lib$lib.so ]] || { fail "lib64/lib$lib.so not installed"; }
done
for header in acl/acl.h acl/acl_rt.h acl/acl_base.h acl/error_codes/rt_error_codes.h \
              aclnn/acl_meta.h aclnn/aclnn_base.h aclnn/opdev/op_errno.h \
              aclnnop/aclnn_util.h aclnnop/aclnn_convolution_backward.h \
              aclnnop/aclnn_convolution.h; do
  [[ -f $prefix/include/$header ]] || fail "include/$header not installed"
done
((failures == 0)) || { echo "install incomplete; stopping"; exit 1; }

sample_flags=(-std=c++11 -Wall -Wextra -Werror -I"$prefix/include" -I"$prefix/include/aclnn")
# shellcheck disable=SC2206
sample_flags+=($extra_flags)

step "sample, older link line: -lascendcl -lnnopbase -lopapi (LD_LIBRARY_PATH)"
"$cxx" "${sample_flags[@]}" "$source_dir/conv_backward_sample.cpp" -o "$work_dir/sample_older" \
  -L"$libdir" -lascendcl -lnnopbase -lopapi
check_resolves_to_prefix "$work_dir/sample_older" "$libdir"
run_with_libdir "$work_dir/sample_older"

step "sample, newer link line: -lascendcl -lnnopbase -lopapi_math -lopapi_nn (rpath only)"
"$cxx" "${sample_flags[@]}" "$source_dir/conv_backward_sample.cpp" -o "$work_dir/sample_newer" \
  -L"$libdir" -lascendcl -lnnopbase -lopapi_math -lopapi_nn -Wl,-rpath,"$libdir"
check_resolves_to_prefix "$work_dir/sample_newer" ""
# No LD_LIBRARY_PATH: the companions must find libascendcl through their own $ORIGIN.
if ! env -u LD_LIBRARY_PATH "$work_dir/sample_newer"; then
  fail "sample_newer (rpath only) failed"
fi

for sample in convolution conv_depthwise2d conv_tbc training_step; do
  step "forward sample $sample, both link lines"
  "$cxx" "${sample_flags[@]}" "$source_dir/${sample}_sample.cpp" -o "$work_dir/${sample}_older" \
    -L"$libdir" -lascendcl -lnnopbase -lopapi
  check_resolves_to_prefix "$work_dir/${sample}_older" "$libdir"
  run_with_libdir "$work_dir/${sample}_older"
  "$cxx" "${sample_flags[@]}" "$source_dir/${sample}_sample.cpp" -o "$work_dir/${sample}_newer" \
    -L"$libdir" -lascendcl -lnnopbase -lopapi_math -lopapi_nn -Wl,-rpath,"$libdir"
  check_resolves_to_prefix "$work_dir/${sample}_newer" ""
  env -u LD_LIBRARY_PATH "$work_dir/${sample}_newer" || fail "${sample}_newer (rpath only) failed"
done

step "find_package(aclnn-cpu CONFIG) consumer"
"$cmake" -S "$source_dir/consumer" -B "$work_dir/consumer-build" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_CXX_FLAGS="$extra_flags" -DCMAKE_EXE_LINKER_FLAGS="$extra_flags" \
  -DEXPECTED_PACKAGE_DIR="$prefix/share/cmake/aclnn-cpu" >"$work_dir/consumer-configure.log" ||
  { cat "$work_dir/consumer-configure.log"; fail "consumer configure"; }
if "$cmake" --build "$work_dir/consumer-build"; then
  for program in consumer_newer_link_line consumer_older_link_line; do
    # CMake puts the imported libraries' directory into the build rpath.
    check_resolves_to_prefix "$work_dir/consumer-build/$program" ""
    env -u LD_LIBRARY_PATH "$work_dir/consumer-build/$program" || fail "$program"
  done
else
  fail "consumer build"
fi

step "pkg-config aclnn-cpu consumer"
export PKG_CONFIG_PATH=$libdir/pkgconfig
if ! pkg_flags=$(pkg-config --cflags --libs aclnn-cpu); then
  fail "pkg-config cannot resolve aclnn-cpu"
else
  echo "pkg-config --cflags --libs aclnn-cpu: $pkg_flags"
  # shellcheck disable=SC2086
  "$cxx" -std=c++11 -Wall -Wextra -Werror $extra_flags "$source_dir/consumer/consumer.cpp" \
    -o "$work_dir/consumer_pkgconfig" $pkg_flags
  check_resolves_to_prefix "$work_dir/consumer_pkgconfig" "$libdir"
  run_with_libdir "$work_dir/consumer_pkgconfig"
fi

step "exported symbols"
exported=$(nm -D --defined-only "$libdir/libascendcl.so" | awk '{print $NF}')
count=$(grep -c . <<<"$exported" || true)
stray=$(grep -vE '^(acl|Acl)' <<<"$exported" || true)
echo "libascendcl.so exports $count symbols"
[[ -z $stray ]] || fail "libascendcl.so exports non-API symbols: $(tr '\n' ' ' <<<"$stray")"
for required in aclInit aclrtSetDevice aclCreateTensor aclnnConvolutionBackward \
                aclnnConvolutionBackwardGetWorkspaceSize aclGetRecentErrMsg \
                aclnnConvolution aclnnConvolutionGetWorkspaceSize aclnnConvDepthwise2d \
                aclnnConvDepthwise2dGetWorkspaceSize aclnnConvTbc aclnnConvTbcGetWorkspaceSize; do
  grep -qx "$required" <<<"$exported" || fail "libascendcl.so does not export $required"
done
# readelf agrees: every GLOBAL/WEAK defined dynamic symbol is API.
readelf_stray=$(readelf --dyn-syms -W "$libdir/libascendcl.so" |
  awk '$5 ~ /GLOBAL|WEAK/ && $7 != "UND" {print $8}' | grep -vE '^(acl|Acl)' || true)
[[ -z $readelf_stray ]] || fail "readelf finds non-API exports: $(tr '\n' ' ' <<<"$readelf_stray")"
for lib in nnopbase opapi opapi_nn opapi_math; do
  dynamic=$(readelf -d "$libdir/lib$lib.so")
  grep -q 'NEEDED.*\[libascendcl\.so\]' <<<"$dynamic" || fail "lib$lib.so does not need libascendcl.so"
  # shellcheck disable=SC2016 # a literal $ORIGIN is what we look for
  grep -qE '(RUNPATH|RPATH).*\[\$ORIGIN\]' <<<"$dynamic" || fail "lib$lib.so lacks RUNPATH \$ORIGIN"
  companion_exports=$(nm -D --defined-only "$libdir/lib$lib.so" | awk '{print $NF}' |
    grep -vE '^(acl|Acl|_init$|_fini$)' || true)
  [[ -z $companion_exports ]] || fail "lib$lib.so exports $(tr '\n' ' ' <<<"$companion_exports")"
done
# Informational: declared in the installed headers but not (yet) implemented.
declared=$(cat "$prefix"/include/acl/*.h "$prefix"/include/aclnn/*.h "$prefix"/include/aclnnop/*.h |
  grep -oE '\b(acl|Acl)[A-Za-z0-9_]*\(' | tr -d '(' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported" | sort -u) | tr '\n' ' ')
[[ -z ${missing// /} ]] || echo "NOTE: declared but not exported (calls would not link): $missing"

echo
if ((failures > 0)); then
  echo "install test: $failures failure(s)"
  exit 1
fi
echo "install test: PASS"
