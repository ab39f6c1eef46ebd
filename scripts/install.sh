#!/usr/bin/env bash
# Install venusctl for everyday use: system tools for the drivers (adb for phones,
# chromium for the web driver; apt on Debian/Ubuntu), then venusctl itself into its
# own virtual environment, linked as ~/.local/bin/venusctl.
#
# llama.cpp (llama-cpp-python) is compiled for this machine (~10 min on 2 cores):
#   an NVIDIA GPU with the CUDA toolkit (nvcc)  -> CUDA, for the local GPU's architecture
#   Apple Silicon                               -> Metal
#   anything else                               -> CPU, with this processor's instruction set
# Set CMAKE_ARGS yourself to choose another build. Re-running the script rebuilds
# llama.cpp only when the chosen build changed (a GPU or toolkit added since).
#
# Usage: scripts/install.sh [--print-cmake-args]
#   --print-cmake-args  only say which llama.cpp build this machine gets, and why
set -euo pipefail
cd "$(dirname "$0")/.."

LLAMA_VERSION=0.3.36
APT_PACKAGES=(adb chromium xdotool xclip
              # `venusctl sim desktop` and the built-in suite's desktop task
              xvfb python3-tk
              # OCR of nameless targets: Tesseract's language files for every script
              # the safety policy speaks (the engine comes with the tesserocr wheel)
              tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-spa
              tesseract-ocr-por tesseract-ocr-ita tesseract-ocr-tur tesseract-ocr-vie
              tesseract-ocr-nld tesseract-ocr-pol tesseract-ocr-ind tesseract-ocr-rus
              tesseract-ocr-chi-sim tesseract-ocr-jpn tesseract-ocr-kor tesseract-ocr-ara
              tesseract-ocr-ukr tesseract-ocr-bul tesseract-ocr-ell tesseract-ocr-fas
              tesseract-ocr-heb tesseract-ocr-hin)

say() { echo "install.sh: $*" >&2; }

# The CUDA compiler: on PATH, else under CUDA_HOME, else where the toolkit installs
# by default (NVCC_CANDIDATES).
NVCC_CANDIDATES="${NVCC_CANDIDATES-/usr/local/cuda/bin/nvcc /opt/cuda/bin/nvcc}"
find_nvcc() {
  if command -v nvcc >/dev/null 2>&1; then command -v nvcc; return; fi
  local candidate
  # shellcheck disable=SC2086  # a list of paths
  for candidate in "${CUDA_HOME:-}/bin/nvcc" $NVCC_CANDIDATES; do
    if [ -x "$candidate" ]; then echo "$candidate"; return; fi
  done
}

# The local GPUs' architectures for CMake ("90-real", "86-real;89-real"), else "native".
cuda_architectures() {
  local caps
  caps=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
         | tr -d ' .' | grep -E '^[0-9]+$' | sort -u | sed 's/$/-real/' | paste -sd';' || true)
  echo "${caps:-native}"
}

# CMAKE_ARGS for this machine; the reason goes to stderr.
choose_cmake_args() {
  if [ -n "${CMAKE_ARGS:-}" ]; then
    say "llama.cpp build: CMAKE_ARGS as given ($CMAKE_ARGS)"
    echo "$CMAKE_ARGS"; return
  fi
  if [ "$(uname -s)" = Darwin ]; then
    if [ "$(uname -m)" = arm64 ]; then
      say "llama.cpp build: Metal (Apple Silicon)"
      echo "-DGGML_METAL=on"
    else
      say "llama.cpp build: CPU (Intel Mac)"
      echo "-DGGML_METAL=off -DGGML_NATIVE=on"
    fi
    return
  fi
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    local nvcc
    nvcc=$(find_nvcc)
    if [ -n "$nvcc" ]; then
      local arch
      arch=$(cuda_architectures)
      say "llama.cpp build: CUDA for this machine's GPU (architectures $arch, $nvcc)"
      echo "-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=$arch -DCMAKE_CUDA_COMPILER=$nvcc"
      return
    fi
    say "an NVIDIA GPU is present but not the CUDA toolkit (nvcc): building for the CPU."
    say "  To use the GPU, install the toolkit (Debian/Ubuntu: apt install nvidia-cuda-toolkit)"
    say "  and run scripts/install.sh again."
  fi
  say "llama.cpp build: CPU, with this processor's instruction set (-DGGML_NATIVE=on)"
  echo "-DGGML_NATIVE=on"
}

if [ "${1:-}" = "--print-cmake-args" ]; then
  choose_cmake_args
  exit 0
fi

if command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1; then
  missing=()
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi

VENV="${VENUSCTL_VENV:-$HOME/.local/share/venusctl/venv}"
PYTHON="${PYTHON:-python3}"
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
CHOSEN=$(choose_cmake_args)
export CMAKE_ARGS="$CHOSEN"
"$VENV/bin/python" -m pip install -q --upgrade pip
# pip keeps built wheels by package version, not by build options: a different build
# than the one installed is compiled afresh, without pip's cache.
STAMP="$VENV/.llama-cpp-build"
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$LLAMA_VERSION $CHOSEN" ]; then
  say "compiling llama-cpp-python $LLAMA_VERSION (several minutes)"
  "$VENV/bin/python" -m pip install -q --force-reinstall --no-deps --no-cache-dir \
    "llama-cpp-python==$LLAMA_VERSION"
  echo "$LLAMA_VERSION $CHOSEN" > "$STAMP"
fi
"$VENV/bin/python" -m pip install -q .
mkdir -p "$HOME/.local/bin"
ln -sf "$VENV/bin/venusctl" "$HOME/.local/bin/venusctl"
echo "venusctl installed: $HOME/.local/bin/venusctl (make sure ~/.local/bin is on PATH)"
echo "check this machine with: venusctl doctor --load"
