"""Loading a world's facts from its ``data/*.json`` files.

Contract: :class:`FactFiles` reads each ``data/<name>.json`` from disk at most once per process
and parses it afresh on every :meth:`FactFiles.load`, so two worlds never share an object.
:meth:`FactFiles.keyed` turns a file holding a list of records into a dict keyed by ``id`` (the
shape of a collection in the state); :meth:`FactFiles.world` assembles a whole state from the
files in a fixed key order. :class:`SeedWorld` serves a world whose seed is derived from the
facts (defaults filled, figures computed): it builds the seed once, keeps its JSON text, and
every :meth:`SeedWorld.create` parses that text into a new, independent world. Only JSON values
go in or come out; a file that is missing or not JSON raises as ``open``/``json.loads`` do (the
environment is broken, and the loader reports it as such).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from silo.json_types import JSON

__all__ = ["Derive", "FactFiles", "SeedWorld", "State"]

State = dict[str, JSON]
"""A world: top-level keys to JSON values."""

Derive = Callable[[str, dict[str, JSON]], None]
"""Completes one freshly parsed record of the named collection in place."""


class FactFiles:
    """The ``data/*.json`` files of one environment, each read from disk once."""

    def __init__(self, folder: Path) -> None:
        """Serve the files of ``folder`` (usually ``Path(__file__).resolve().parent / "data"``)."""
        self.folder = folder
        self._text: dict[str, str] = {}

    def text(self, name: str) -> str:
        """The text of ``<name>.json``, read from disk on first use."""
        if name not in self._text:
            self._text[name] = (self.folder / f"{name}.json").read_text(encoding="utf-8")
        return self._text[name]

    def load(self, name: str) -> Any:
        """A freshly parsed copy of ``<name>.json``."""
        return json.loads(self.text(name))

    def keyed(self, name: str, derive: Derive | None = None) -> dict[str, JSON]:
        """The list of records in ``<name>.json`` as a dict keyed by ``id``, in file order.

        ``derive``, when given, completes each record before it is filed.
        """
        records = self.load(name)
        if derive is not None:
            for record in records:
                derive(name, record)
        return {record["id"]: record for record in records}

    def world(
        self,
        collections: Sequence[str],
        *,
        head: Mapping[str, JSON],
        before: Sequence[str] = (),
        after: Sequence[str] = (),
        derive: Derive | None = None,
    ) -> State:
        """A state: ``head``, the files ``before``, the ``collections`` keyed, the files ``after``.

        Args:
            collections: Files holding lists of records, stored as dicts keyed by id.
            head: Values that come first and are not files (the simulated clock ``now``).
            before: Files stored as parsed, ahead of the collections (a ``company`` object).
            after: Files stored as parsed, after them (``auditLog``, ``sequences``).
            derive: Completes each record of the collections (see :meth:`keyed`).
        """
        state: State = dict(head)
        for name in before:
            state[name] = self.load(name)
        for name in collections:
            state[name] = self.keyed(name, derive)
        for name in after:
            state[name] = self.load(name)
        return state


class SeedWorld:
    """A seed world built once per process and handed out as fresh, independent copies."""

    def __init__(self, build: Callable[[], State]) -> None:
        """Build the seed with ``build()`` on the first :meth:`create`."""
        self._build = build
        self._text: str | None = None

    def create(self) -> State:
        """A new world equal to the seed; no two calls share an object."""
        if self._text is None:
            self._text = json.dumps(self._build())
        world: State = json.loads(self._text)
        return world
