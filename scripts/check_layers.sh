#!/usr/bin/env bash
# The layers of pyproject.toml's [tool.importlinter], checked on an installed copy of
# the package: the editable install maps `venusctl.drivers` onto the top-level
# drivers/ folder, which import-linter cannot follow, so the check installs the tree
# (no dependencies, a few seconds) into a scratch folder where drivers/ sits inside
# venusctl/ as it does in the wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
.venv/bin/python -m pip install -q --no-deps --no-build-isolation --target "$scratch/site" \
    --no-compile . >/dev/null
rm -rf build
cp pyproject.toml "$scratch/"
(cd "$scratch" && PYTHONPATH="$scratch/site" "$OLDPWD/.venv/bin/lint-imports" --no-cache)
