#!/usr/bin/env bash
# The local model on a GPU, start to finish, on a fresh offline machine, in under 10 minutes:
#   1. build llama-cpp-python 0.3.36 for this machine's GPU from the carried source
#      (CMAKE_ARGS from scripts/install.sh's own detection: CUDA for the local architecture)
#   2. generate the shape-true UI-Venus-2-9B (random Q4_0 + f16 projector), during the build
#   3. check the import-order crash (numpy before llama.cpp, GPU layers), with a backtrace
#      from cuda-gdb when it still crashes
#   4. print: `venusctl do` on the simulated phone with --gpu-layers -1; bare vs venusctl
#      step (with and without the grammar) and the cost of thinking; prefill by image size
#      and decode tokens/s; prefix reuse over steps 2..5; the grammar's overhead on a model
#      that answers grammatically; peak GPU memory
#
# Needs: Python 3.12 with numpy, CMake, ninja, scikit-build-core (and typer, rich, pyyaml,
# httpx, requests, jinja2, pillow, tqdm, huggingface_hub), nvcc, and the bundle made by
# benchmarks/gpu_bundle.sh (carried as .gpu-bundle). Nothing is downloaded.
#
# Usage: bash benchmarks/gpu.sh [--cpu] [--skip-build]
#   --cpu         the same script on a machine without a GPU: a native CPU build and the
#                 small real-vocabulary models instead of the 9B (to check it runs)
#   --skip-build  use the llama-cpp-python already importable (quick reruns)
# Environment: PYTHON (default python3), WORK (default /tmp/venusctl-gpu), OUT (results;
# the device tool sets it), BUNDLE (default .gpu-bundle), DEADLINE_S (default 570).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

CPU=0; SKIP_BUILD=0; SLOWER=1
for arg in "$@"; do
  case "$arg" in
    --cpu) CPU=1; SLOWER=5 ;;  # each part's time limit, x5 on a CPU
    --skip-build) SKIP_BUILD=1 ;;
    *) echo "usage: bash benchmarks/gpu.sh [--cpu] [--skip-build]" >&2; exit 2 ;;
  esac
done

PYTHON="${PYTHON:-python3}"
WORK="${WORK:-/tmp/venusctl-gpu}"
OUT="${OUT:-$WORK/out}"
BUNDLE="${BUNDLE:-$ROOT/.gpu-bundle}"
DEADLINE_S="${DEADLINE_S:-570}"
SITE="$WORK/site"
LLAMA_VERSION=0.3.36
STARTED=$(date +%s)
mkdir -p "$WORK" "$OUT" "$SITE"
LOG="$OUT/gpu.log"
exec > >(tee -a "$LOG") 2>&1

RUN="$WORK/run"  # benchmarks and test support without the source package beside them,
                 # so `venusctl` is the installed one (the source tree maps drivers/ in)
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
export VENUSCTL_TEST_CACHE="$WORK/models"
export PATH="$SITE/bin:$PATH"
export PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring"  # no desktop keyring there
export HOME="${HOME:-$WORK}"

elapsed() { echo $(( $(date +%s) - STARTED )); }
phase() { echo; echo "=== [$(elapsed) s] $*"; }
left() { echo $(( DEADLINE_S - $(elapsed) )); }
# Run one part with what time is left (at most $1 s); a part that would not fit is skipped.
part() {
  local limit=$(( $1 * SLOWER )) name=$2; shift 2
  local room; room=$(left)
  if [ "$room" -lt 20 ]; then echo "skipped ($name): out of time"; return 0; fi
  [ "$limit" -gt "$room" ] && limit=$room
  phase "$name (limit $limit s)"
  timeout --signal=INT --kill-after=10 "$limit" "$@" 2>&1 | tee "$OUT/$name.txt"
  local code=${PIPESTATUS[0]}
  [ "$code" -eq 0 ] || echo "($name exited with $code)"
  return 0
}

phase "machine"
if [ "$CPU" -eq 0 ]; then
  nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader \
    || { echo "no NVIDIA GPU here: use --cpu"; exit 5; }
  nvcc --version | tail -1 || true
fi
"$PYTHON" -c "import sys, numpy; print('python', sys.version.split()[0], 'numpy', numpy.__version__)"
echo "cores $(nproc); bundle $BUNDLE"
if [ ! -f "$BUNDLE/llama_cpp_python-$LLAMA_VERSION-slim.tar.xz" ]; then
  echo "missing $BUNDLE: run benchmarks/gpu_bundle.sh where PyPI is reachable, carry it"
  exit 2
fi

phase "wheels"
"$PYTHON" -m pip install -q --no-index --no-deps --no-compile --target "$SITE" --upgrade \
  "$BUNDLE"/wheels/*.whl || exit 1

if [ "$CPU" -eq 1 ]; then
  MODEL=vocab; GRAMMATICAL=grammatical
else
  MODEL=9b; GRAMMATICAL=grammatical
fi
rm -rf "$RUN" && mkdir -p "$RUN" && cp -r benchmarks tests prompts "$RUN"/
phase "model generation in the background ($MODEL)"
(cd "$RUN" && "$PYTHON" -m tests.support.tiny_model "$MODEL" > "$OUT/generate.txt" 2>&1; \
 echo "generated ($MODEL) at $(elapsed) s" >> "$OUT/generate.txt") &
GENERATOR=$!

if [ "$SKIP_BUILD" -eq 0 ]; then
  CMAKE_ARGS=$(bash scripts/install.sh --print-cmake-args)
  export CMAKE_ARGS
  export CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)"
  phase "build llama-cpp-python $LLAMA_VERSION (CMAKE_ARGS=$CMAKE_ARGS)"
  rm -rf "$WORK/src" && mkdir -p "$WORK/src"
  tar -xJf "$BUNDLE/llama_cpp_python-$LLAMA_VERSION-slim.tar.xz" -C "$WORK/src"
  if ! "$PYTHON" -m pip install -q --no-index --no-deps --no-build-isolation --no-compile \
       --target "$SITE" --upgrade "$WORK/src/llama_cpp_python-$LLAMA_VERSION" \
       > "$OUT/build.txt" 2>&1; then
    tail -40 "$OUT/build.txt"; echo "build failed"; exit 1
  fi
  echo "built in $(elapsed) s"
fi
phase "venusctl"
"$PYTHON" -m pip install -q --no-index --no-deps --no-build-isolation --no-compile \
  --target "$SITE" --upgrade . > "$OUT/venusctl-install.txt" 2>&1 \
  || { tail -20 "$OUT/venusctl-install.txt"; exit 1; }
cd "$RUN"
"$PYTHON" -c "import venusctl.drivers; from venusctl.model.llama.backend import backend_info
print(backend_info().summary)" || exit 1

if [ "$CPU" -eq 0 ]; then
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 250 \
    > "$OUT/gpu-memory.csv" 2>/dev/null &
  SAMPLER=$!
fi

part 90 import-order "$PYTHON" benchmarks/import_order.py --gpu-layers -1 --debugger

wait "$GENERATOR"; cat "$OUT/generate.txt"
"$PYTHON" -m tests.support.tiny_model "$GRAMMATICAL" > /dev/null

LAYERS=-1; RUNS=7
[ "$CPU" -eq 1 ] && LAYERS=0 && RUNS=3  # a CPU only needs to show that every part runs
part 150 do "$PYTHON" benchmarks/phone_do.py --model "$MODEL" --gpu-layers "$LAYERS" \
  --steps 3 --realistic
part 150 step "$PYTHON" benchmarks/model_step.py --model "$MODEL" --gpu-layers "$LAYERS" \
  --runs "$RUNS" --max-tokens 32 --thinking-tokens 300
part 100 prefill "$PYTHON" benchmarks/model_prefill.py --model "$MODEL" --gpu-layers "$LAYERS"
part 90 reuse "$PYTHON" benchmarks/model_reuse.py --model "$MODEL" --steps 5 \
  --gpu-layers "$LAYERS"
part 90 grammar "$PYTHON" benchmarks/model_grammar.py --model "$GRAMMATICAL" \
  --gpu-layers "$LAYERS" --runs "$RUNS"

if [ "$CPU" -eq 0 ]; then
  kill "$SAMPLER" 2>/dev/null
  phase "peak GPU memory"
  sort -n "$OUT/gpu-memory.csv" | tail -1 | sed 's/^/peak MiB used on the GPU (all processes): /'
  head -1 "$OUT/gpu-memory.csv" | sed 's/^/at the start: /'
fi
phase "done in $(elapsed) s; results in $OUT"
