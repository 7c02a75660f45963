"""Waits that end on an event, and the safety nets behind them.

A test's verdict must not depend on how fast the host is today (a loaded 2-core machine runs
this suite with ``-n 2`` beside other jobs). So a test waits for what it needs to see: a line,
a file, a port that answers, a process that exits. The wall-clock limits below only stop a
test that would otherwise hang forever; they sit far above (>= 10x) what the wait takes on a
busy machine, and when one fires it says what the test was waiting for.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

# A console script or a short child process: seconds at most when the machine is busy.
SAFETY_S = 300.0
# A thread, an event or a server in this process: well under a second when the machine is busy.
SHORT_SAFETY_S = 60.0
# ``serve_forever``'s keywords for a test's own HTTP server: ``shutdown()`` returns at the loop's
# next poll, which by default comes half a second later, in every test that stops a server.
QUICK_STOP = {"poll_interval": 0.02}


def wait_until(condition: Callable[[], object], what: str, limit_s: float = SAFETY_S) -> None:
    """Poll ``condition`` until it is true; fail naming ``what`` if the safety net runs out."""
    deadline = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {limit_s:.0f} s (safety net) for {what}; it never came")
        time.sleep(0.02)


def finish(proc: subprocess.Popen[str], what: str, limit_s: float = SAFETY_S) -> tuple[str, str]:
    """``proc.communicate()`` bounded by a safety net that kills ``proc`` and names ``what``."""
    try:
        return proc.communicate(timeout=limit_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        raise AssertionError(
            f"waited {limit_s:.0f} s (safety net) for {what} to exit; killed it. stderr:\n{err}"
        ) from None
