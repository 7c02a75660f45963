#!/usr/bin/env bash
# The verifiers environment's test, in a venv of its own: verifiers 0.4 pins mcp 2.0 and
# openai < 3, which cannot sit beside Silo's [mcp] extra and dev tools. vf-eval's null harness
# prepares its chat script with uv (installed with the extra's venv). Usage:
# bash tests/integrations/verifiers.sh (VENV=... picks the venv folder; default outside the tree).
# The episode-URL test runs silo-mcp from the project's .venv (Silo's [mcp] extra, mcp >= 2.3);
# it is skipped, saying so, when .venv/bin/silo-mcp is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV="${VENV:-${TMPDIR:-/tmp}/silo-venv-verifiers}"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q -e '.[verifiers]' 'pytest>=8' 2>&1 | grep -v '^WARNING: Location' || true
export PATH="$VENV/bin:$PATH"  # vf-eval runs uv from here
# -o addopts= : every test of the file runs here, the slow-marked ones too.
exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider -o addopts= tests/integrations/test_verifiers_env.py
