#!/usr/bin/env bash
# docs/api.md stays true for the code: every symbol libascendcl.so exports is
# a row marked `implemented`; no row marked `not implemented yet` is exported;
# every function the public headers declare has a row, and every row names a
# declared function.
#
# usage: check_api_doc.sh <libascendcl.so> <docs/api.md> <include dir>
# shellcheck disable=SC2016 # the backquotes below are literal markdown
set -euo pipefail
library=$1
page=$2
include_dir=$3
failures=0
fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }

exported=$(nm -D --defined-only "$library" | awk '{print $NF}' | grep -E '^(acl|Acl)' | sort -u)
# Rows look like: | `name` | what it does | status |
rows=$(grep -E '^\| `[A-Za-z_][A-Za-z0-9_]*` \|' "$page" || true)
implemented=$(sed -nE 's/^\| `([A-Za-z0-9_]+)` \|.*\| implemented \|$/\1/p' <<<"$rows" | sort -u)
pending=$(sed -nE 's/^\| `([A-Za-z0-9_]+)` \|.*\| not implemented yet \|$/\1/p' <<<"$rows" | sort -u)
listed=$(sed -nE 's/^\| `([A-Za-z0-9_]+)` \|.*/\1/p' <<<"$rows" | sort -u)
declared=$(cat "$include_dir"/acl/*.h "$include_dir"/aclnn/*.h "$include_dir"/aclnnop/*.h |
  grep -oE '\b(acl|Acl)[A-Za-z0-9_]*\(' | tr -d '(' | sort -u)

unmarked=$(comm -23 <(echo "$listed") <(sort -u <(echo "$implemented") <(echo "$pending")))
[[ -z $unmarked ]] || fail "rows without a status 'implemented' or 'not implemented yet': $unmarked"
missing=$(comm -23 <(echo "$exported") <(echo "$implemented") | tr '\n' ' ')
[[ -z ${missing// /} ]] || fail "exported but not listed as implemented in $page: $missing"
stale=$(comm -12 <(echo "$exported") <(echo "$pending") | tr '\n' ' ')
[[ -z ${stale// /} ]] || fail "listed as not implemented yet but exported (flip them to implemented): $stale"
absent=$(comm -13 <(echo "$exported") <(echo "$implemented") | tr '\n' ' ')
[[ -z ${absent// /} ]] || fail "listed as implemented but not exported: $absent"
undocumented=$(comm -23 <(echo "$declared") <(echo "$listed") | tr '\n' ' ')
[[ -z ${undocumented// /} ]] || fail "declared in a header but not in $page: $undocumented"
undeclared=$(comm -13 <(echo "$declared") <(echo "$listed") | tr '\n' ' ')
[[ -z ${undeclared// /} ]] || fail "listed in $page but declared in no header: $undeclared"

echo "$(grep -c . <<<"$exported") exported, $(grep -c . <<<"$implemented") listed as implemented," \
  "$(grep -c . <<<"$pending") as not implemented yet, $(grep -c . <<<"$declared") declared"
((failures == 0)) || exit 1
echo "api page: PASS"
