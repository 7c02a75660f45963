"""``key=value`` command lines for the light Silo commands (no Hydra, fast to start).

Contract: :func:`parse` splits ``argv`` into known ``key=value`` words, known ``--flags`` and
positionals. An unknown key or flag, a repeated key or an extra positional raises
:class:`UsageError` with a one-line message (commands print it and exit 2), unless
``strict=False``, which ignores what it does not know (``silo-run --list`` passes its whole
command line). ``--key=value`` is accepted as ``key=value``; ``-h``/``--help`` sets ``help``.
:func:`out` prints a report and copes with a closed pipe (``silo-validate | head``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from silo.errors import SiloException

__all__ = ["Args", "UsageError", "out", "output_format", "parse", "parse_bool", "run_command"]

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


class UsageError(SiloException):
    """A mistake on the command line; the message is one line."""


@dataclass
class Args:
    """A parsed command line: ``key=value`` words, ``--flags``, positionals, and ``-h``."""

    values: dict[str, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    positionals: list[str] = field(default_factory=list)
    help: bool = False


def parse(
    argv: Sequence[str],
    keys: Sequence[str],
    flags: Sequence[str] = (),
    positionals: int = 0,
    *,
    strict: bool = True,
) -> Args:
    """Split ``argv`` into the known ``keys``, ``flags`` and up to ``positionals`` words.

    Raises:
        UsageError: an unknown or repeated key, an unknown flag or an extra word (``strict``).
    """
    args = Args()
    for word in argv:
        if word in ("-h", "--help"):
            args.help = True
            continue
        if word.startswith("--") and "=" in word:
            word = word[2:]
        if word.startswith("-"):
            if word in flags:
                args.flags.add(word)
            elif strict:
                known = ", ".join(flags) or "none"
                raise UsageError(f'unknown option "{word}"; options: {known}')
            continue
        key, sep, value = word.partition("=")
        if sep:
            if key in keys:
                if key in args.values and strict:
                    raise UsageError(f'"{key}=" is given twice; give it once')
                args.values[key] = value
            elif strict:
                known = ", ".join(f"{k}=" for k in keys) or "none"
                raise UsageError(f'unknown argument "{word}"; known: {known}')
            continue
        if len(args.positionals) < positionals:
            args.positionals.append(word)
        elif strict:
            raise UsageError(f'unexpected argument "{word}"; arguments are written key=value')
    return args


def run_command(prog: str, body: Callable[[], int], interrupted: str = "interrupted") -> int:
    """``body()``'s exit status, with user mistakes turned into one line on stderr.

    A :class:`UsageError` gives status 2, a ``SiloError`` its class's ``exit_code`` (2 where
    the class names none), Ctrl-C 130 with ``interrupted`` said. Never a traceback for any of
    them.
    """
    from silo.errors import SiloError

    try:
        return body()
    except UsageError as exc:
        sys.stderr.write(f"{prog}: {exc}\n")
        return 2
    except SiloError as exc:
        sys.stderr.write(f"{prog}: {exc}\n")
        return int(getattr(type(exc), "exit_code", 2))
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: {interrupted}\n")
        return 130


def output_format(args: Args) -> str:
    """``json`` for ``--json`` or ``format=json``, else ``text``; anything else is a mistake."""
    fmt = "json" if "--json" in args.flags else args.values.get("format", "text")
    if fmt not in ("text", "json"):
        raise UsageError(f'format= must be text or json, not "{fmt}"')
    return fmt


def parse_bool(key: str, value: str) -> bool:
    """``value`` of ``key=`` read as a yes/no word (true/false, 1/0, yes/no, on/off)."""
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise UsageError(f'{key}= must be true or false, not "{value}"')


def out(text: str) -> None:
    """Print ``text``; when the reader went away, drop the rest of the output quietly."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
