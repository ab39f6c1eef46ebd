#!/usr/bin/env bash
# Run a task file unattended (cron, CI), re-running only what did not pass last time,
# and list the failures with their run records.
#
# Usage: examples/nightly-batch.sh TASKS.yaml [more venusctl batch options...]
#   RESULTS=path/results.jsonl (default: ./results.jsonl) keeps the results between runs.
#   Exit code 0 only when every task passed; 1 when any did not; 2 for a bad task file.
set -uo pipefail
tasks=${1:?usage: nightly-batch.sh TASKS.yaml [venusctl batch options...]}
shift
results=${RESULTS:-results.jsonl}

resume=()
if [ -s "$results" ]; then
  resume=(--resume "$results")   # tasks that passed last time are not run again
fi
venusctl batch "$tasks" --out "$results.new" --continue-on-error --retry 1 \
    "${resume[@]}" "$@"
code=$?
[ -f "$results.new" ] && mv "$results.new" "$results"

if [ "$code" -ne 0 ] && [ -f "$results" ]; then
  echo "tasks that did not pass:" >&2
  jq -r 'select(.passed | not) | "  \(.id)\t\(.status) (exit \(.exit_code))\t\(.run_dir // "-")"' \
    "$results" >&2
fi
[ -f "$results" ] && jq -s '{passed: map(select(.passed)) | length, total: length}' "$results"
exit "$code"
