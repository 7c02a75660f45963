#!/usr/bin/env bash
# The OpenEnv adapter's tests, in a venv of their own: openenv 0.10 pins mcp 1.x, which cannot
# sit beside the mcp 2.x of Silo's [mcp] extra. Usage: bash tests/integrations/openenv.sh
# (VENV=... picks the venv folder; the default is outside the work tree).
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV="${VENV:-${TMPDIR:-/tmp}/silo-venv-openenv}"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q -e '.[openenv]' 'pytest>=8' 2>&1 | grep -v '^WARNING: Location' || true
exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/integrations/test_openenv_env.py
