#!/usr/bin/env bash
# Install venusctl for everyday use on Debian/Ubuntu: system tools for the drivers
# (adb for phones, chromium for the web driver), then venusctl itself into its own
# virtual environment, linked as ~/.local/bin/venusctl.
# llama-cpp-python compiles on install (~10 min on 2 cores). For a GPU build, set
# CMAKE_ARGS first, e.g. CMAKE_ARGS="-DGGML_CUDA=on" scripts/install.sh
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(adb chromium xdotool xclip
              # OCR of nameless targets: Tesseract's language files for the 16 languages
              # the safety policy speaks (the engine comes with the tesserocr wheel)
              tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-spa tesseract-ocr-por tesseract-ocr-ita tesseract-ocr-tur tesseract-ocr-vie tesseract-ocr-nld tesseract-ocr-pol tesseract-ocr-ind tesseract-ocr-rus tesseract-ocr-chi-sim tesseract-ocr-jpn tesseract-ocr-kor tesseract-ocr-ara)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

VENV="${VENUSCTL_VENV:-$HOME/.local/share/venusctl/venv}"
PYTHON="${PYTHON:-python3}"
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q .
mkdir -p "$HOME/.local/bin"
ln -sf "$VENV/bin/venusctl" "$HOME/.local/bin/venusctl"
echo "venusctl installed: $HOME/.local/bin/venusctl (make sure ~/.local/bin is on PATH)"
