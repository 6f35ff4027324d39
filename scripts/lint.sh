#!/usr/bin/env bash
# Checks the formatting of every tracked Swift file against .swift-format (swift-format ships with
# the toolchain). `bash scripts/lint.sh fix` rewrites the files instead; the few findings the
# formatter cannot fix (a missing doc comment on a public symbol, `try!`) are then left to you.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.swift')
if [ "${1:-}" = "fix" ]; then
    swift format format --in-place "${files[@]}"
fi
swift format lint --strict "${files[@]}"
echo "swift format lint --strict: ${#files[@]} files, no findings"
