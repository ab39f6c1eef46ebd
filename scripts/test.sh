#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh Debian/Ubuntu machine, then run it.
#   apt: Xvfb and X tools (desktop driver), Debian's chromium (web driver), adb (android)
#   .venv: venusctl in editable mode with its dev extras (llama-cpp-python compiles once,
#          ~10 min on 2 cores; pip caches the wheel so later runs reuse it)
# Usage: scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(xvfb xdotool x11-utils xterm x11-apps scrot xauth xclip chromium adb tk python3-tk
              dbus-daemon at-spi2-core python3-gi python3-gi-cairo gir1.2-gtk-3.0 jq
              tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-spa tesseract-ocr-por tesseract-ocr-ita tesseract-ocr-tur tesseract-ocr-vie tesseract-ocr-nld tesseract-ocr-pol tesseract-ocr-ind tesseract-ocr-rus tesseract-ocr-chi-sim tesseract-ocr-jpn tesseract-ocr-kor tesseract-ocr-ara
              tesseract-ocr-ukr tesseract-ocr-bul tesseract-ocr-ell tesseract-ocr-fas tesseract-ocr-heb tesseract-ocr-hin
              libgtk-3-common chromium-l10n
              fonts-wqy-microhei fonts-lohit-deva)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
# npm fetches TodoMVC for the session tests; NodeSource's nodejs ships its own npm
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "installing apt packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm fetches TodoMVC, a third-party web app the safety tests operate (Debian's `npm`
# unless node already brought its own); tests/support/web_todomvc.py reads it from .cache
if ! command -v npm >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm
fi
if [ ! -f .cache/todomvc/examples/vanillajs/index.html ]; then
  packed="$(mktemp -d)"
  (cd "$packed" && npm pack --silent todomvc@0.1.1 >/dev/null)
  mkdir -p .cache/todomvc
  tar xzf "$packed/todomvc-0.1.1.tgz" -C .cache/todomvc --strip-components=1 \
      package/examples/vanillajs
  rm -rf "$packed"
fi

PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'

# Stages, each stopping the script when it fails: the checks (seconds), the unit tests
# (under a minute), then the integration tests, so a broken unit test is known at once.
echo "== checks: ruff, vulture, layer contracts, the documentation site"
.venv/bin/ruff check .
.venv/bin/vulture  # unused code (settings and false positives: pyproject.toml, scripts/vulture_whitelist.py)
scripts/check_layers.sh  # the import-linter contracts of pyproject.toml
site_dir="$(mktemp -d)"  # --strict: a broken link, anchor or missing page fails the build
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict -q -d "$site_dir"
rm -rf "$site_dir"

# Two workers, one test file at a time on each (a file's module fixtures stay in one
# process): most integration time is waiting on a browser, a phone or an app, not the CPU.
# TEST_WORKERS=0 runs in one process. The 25 slowest tests are listed after each stage.
# Python caches compiled modules (pytest its assertion-rewritten tests) in __pycache__:
# the second stage and the second worker reuse what the first compiled, ~3 s a process.
unset PYTHONDONTWRITEBYTECODE
pytest_run() {
  .venv/bin/python -m pytest -n "${TEST_WORKERS:-2}" --dist loadfile --durations=25 "$@"
}
if [ $# -gt 0 ]; then
  pytest_run "$@"  # arguments choose the tests (e.g. `-m unit`, a folder, `-k name`)
else
  echo "== unit tests"
  pytest_run -m unit
  echo "== integration tests (everything that is not a unit test)"
  pytest_run -m "not unit"
fi
