"""The console scripts: one module per command, each a ``main`` that returns or exits its status.

Contract: the top of the stack; a command parses its command line, calls the layers below and
maps what goes wrong to one line on stderr and an exit status (0 success, 1 a graded failure,
2 could not start or a user mistake). Only :mod:`silo.cli.hydra` and the entry modules of the
commands Hydra composes (``run``, ``baseline``, ``mcp``: their ``hydra.main`` / ``compose``
calls are the entry points) import Hydra; the light commands parse ``key=value`` words with
:mod:`silo.cli.args` and start without importing it.
"""
