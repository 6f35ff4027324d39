#!/usr/bin/env bash
# Repeats, at the end of a test run, what failed in it: a CI summary shows only the last lines of a
# run, where a failure hundreds of tests earlier would otherwise be lost among the passing tests.
#
#   scripts/recap.sh LOG [REPORT_DIR]
#
# LOG is the run's output (swift test … | tee LOG). From it: every issue Swift Testing recorded,
# with its message lines, after the name of the test. REPORT_DIR (a sanitizer's log_path
# directory): every sanitizer report in it, from the test process or from any process it started
# (a worker whose standard error a test captured would otherwise hide its report inside that test's
# failure message), at most 40 lines each. Prints nothing when there is nothing to repeat; exits 0.
set -uo pipefail

log="${1:?usage: scripts/recap.sh LOG [REPORT_DIR]}"
reports="${2:-}"

if [ -f "$log" ] && grep -q -E '^✘ Test .* recorded an issue' "$log"; then
    echo "== Issues recorded in this run (from $log):"
    # An issue is one "✘ … recorded an issue" line, then its message lines (indented or ↳) until
    # the next test event.
    awk '
        /^✘ Test .* recorded an issue/ { inside = 1; lines = 0; print; next }
        /^(◇|✔|✘)/ { inside = 0 }
        inside && lines < 30 { print; lines++ }' "$log"
fi

if [ -n "$reports" ] && [ -d "$reports" ]; then
    shopt -s nullglob
    files=("$reports"/report.*)
    if [ "${#files[@]}" -gt 0 ]; then
        echo "== ${#files[@]} process(es) wrote sanitizer reports (in $reports):"
        for file in "${files[@]}"; do
            echo "-- ${file##*/} (process ${file##*.})"
            awk '
                /^(WARNING: ThreadSanitizer|ERROR: AddressSanitizer|==[0-9]+==ERROR)/ { lines = 0 }
                { if (lines < 40 || /^SUMMARY: /) print; lines++ }' "$file"
        done
    fi
fi
exit 0
