#!/usr/bin/env bash
# Every relative link in README.md and docs/*.md points at a file of the
# repository (anchors are not checked).
#
# usage: check_doc_links.sh <source dir>
set -euo pipefail
root=$1
# Written on another branch; tolerated until it is merged.
pending=(docs/input-validation.md)
failures=0
checked=0
for page in "$root"/README.md "$root"/docs/*.md; do
  dir=$(dirname "$page")
  while IFS= read -r target; do
    target=${target%%#*}
    [[ -z $target || $target == *://* || $target == mailto:* ]] && continue
    checked=$((checked + 1))
    resolved=$(realpath -m "$dir/$target")
    relative=${resolved#"$root"/}
    if [[ ! -e $resolved ]]; then
      skip=0
      for p in "${pending[@]}"; do [[ $relative == "$p" ]] && skip=1; done
      if ((skip)); then
        echo "note: ${page#"$root"/} links to $relative, not in this tree yet"
      else
        echo "FAIL: ${page#"$root"/} links to $target, which does not exist"
        failures=$((failures + 1))
      fi
    fi
  done < <(grep -oE '\]\([^)]+\)' "$page" | sed -E 's/^\]\((.*)\)$/\1/')
done
echo "$checked relative links checked"
((failures == 0)) || exit 1
echo "doc links: PASS"
