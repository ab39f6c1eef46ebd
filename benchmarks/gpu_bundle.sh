#!/usr/bin/env bash
# Prepare, on a machine with PyPI, what benchmarks/gpu.sh needs on an offline GPU machine:
#
#   .gpu-bundle/llama_cpp_python-0.3.36-slim.tar.xz   the pinned source, without its .git and
#                                                     vendor/llama.cpp/{models,docs,tools/ui}
#                                                     (~9 MB instead of 77 MB)
#   .gpu-bundle/wheels/*.whl                          the packages such a machine lacks:
#                                                     gguf, diskcache, adbutils (with its adb),
#                                                     keyring, platformdirs, setuptools, ...
#   .gpu-bundle/SHA256SUMS
#
# pip's cache serves what it already holds. The GPU machine is expected to have Python 3.12,
# numpy, CMake, ninja, scikit-build-core, nvcc and the usual pure-Python packages (typer,
# rich, pyyaml, httpx, requests, jinja2, pillow, tqdm, huggingface_hub).
#
# Usage: benchmarks/gpu_bundle.sh [BUNDLE_DIR]      (default .gpu-bundle, git-ignored)
# Then carry it: the device tool's run with carry [".gpu-bundle"], command
# "bash benchmarks/gpu.sh".
set -euo pipefail
cd "$(dirname "$0")/.."

BUNDLE="${1:-.gpu-bundle}"
PYTHON="${PYTHON:-.venv/bin/python}"
LLAMA_VERSION=0.3.36
PY_VERSION="${GPU_PYTHON_VERSION:-3.12}"
# Pure-Python wheels (and adbutils, whose wheel carries a static adb) at versions that
# match this project's own environment.
WHEELS=(
  "gguf==0.19.0" "diskcache==5.6.3" "setuptools>=77" "platformdirs>=4"
  "adbutils==2.12.0" "deprecation==2.1.0" "retry2==0.9.5" "decorator>=5"
  "keyring>=25" "jaraco.classes" "jaraco.functools" "jaraco.context" "more-itertools"
  "jeepney>=0.8" "annotated-doc"
  "backports.tarfile" "importlib-metadata" "zipp" "lazy-importer"  # before Python 3.12
)

mkdir -p "$BUNDLE/wheels"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "source: llama-cpp-python $LLAMA_VERSION (sdist)"
"$PYTHON" -m pip download -q --no-deps --no-binary :all: "llama-cpp-python==$LLAMA_VERSION" \
  -d "$work"
tar -xzf "$work/llama_cpp_python-$LLAMA_VERSION.tar.gz" -C "$work"
src="$work/llama_cpp_python-$LLAMA_VERSION"
rm -rf "$src/.git" "$src/vendor/llama.cpp/models" "$src/vendor/llama.cpp/docs" \
  "$src/vendor/llama.cpp/tools/ui"
tar -cJf "$BUNDLE/llama_cpp_python-$LLAMA_VERSION-slim.tar.xz" -C "$work" \
  "llama_cpp_python-$LLAMA_VERSION"

echo "wheels for Python $PY_VERSION: ${WHEELS[*]}"
rm -f "$BUNDLE"/wheels/*.whl
"$PYTHON" -m pip download -q --no-deps --only-binary=:all: --python-version "$PY_VERSION" \
  --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform any \
  -d "$BUNDLE/wheels" "${WHEELS[@]}"

(cd "$BUNDLE" && sha256sum "llama_cpp_python-$LLAMA_VERSION-slim.tar.xz" wheels/*.whl > SHA256SUMS)
du -sh "$BUNDLE" "$BUNDLE"/* | sed 's/^/  /'
echo "bundle ready: $BUNDLE (carry it to the GPU machine; run bash benchmarks/gpu.sh there)"
