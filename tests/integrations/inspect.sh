#!/usr/bin/env bash
# Inspect AI on silo-mcp (tests/integrations/test_mcp_inspect.py), in a venv of its own: Inspect
# pulls in packages (fastapi among them) and versions that do not belong in Silo's dev venv.
# Usage: bash tests/integrations/inspect.sh (VENV=... picks the venv folder; the default is
# outside the work tree).
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV="${VENV:-${TMPDIR:-/tmp}/silo-venv-inspect}"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q -e '.[mcp]' 'inspect-ai==0.3.285' 'pytest>=8' 2>&1 \
    | grep -v '^WARNING: Location' || true
# -o addopts= : the file's slow-marked tests run here.
exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider -o addopts= \
    tests/integrations/test_mcp_inspect.py
