#!/usr/bin/env bash
# `venusctl do` in shell pipelines: the final answer on stdout, progress on stderr,
# JSON-lines events with --json, and documented exit codes to branch on.
#
# Usage: examples/do-pipeline.sh URL [more venusctl do options, e.g. --server URL]
#   exit codes: 0 finished, 1 failed/budget, 2 usage, 3 needs a person,
#               4 stopped by policy, 5 device or model unavailable, 130 interrupted
set -uo pipefail
url=${1:?usage: do-pipeline.sh URL [venusctl do options...]}
shift

# 1. The answer is the command's output: capture it like any other command's.
title=$(venusctl do "What is the title of this page? Finish with the title as your answer." \
          --driver web --url "$url" --max-steps 5 -q "$@")
code=$?
case $code in
  0) echo "page title: $title" ;;
  3) echo "the agent needs a person: $title" >&2; exit 3 ;;
  4) echo "stopped by the safety policy" >&2; exit 4 ;;
  5) echo "no browser or no model (see: venusctl doctor)" >&2; exit 5 ;;
  *) echo "the task failed (exit $code)" >&2; exit "$code" ;;
esac

# 2. Events: one JSON object per line (start, step..., end); take what you need with jq.
#    With pipefail, the pipeline's status is venusctl's when jq succeeds.
venusctl do "What is the title of this page? Finish with the title as your answer." \
    --driver web --url "$url" --max-steps 5 --json "$@" |
  jq -r 'if .event == "step" then "step \(.step): \(.action)"
         elif .event == "end" then "end: \(.status) after \(.steps) step(s), exit \(.exit_code)"
         else empty end'
