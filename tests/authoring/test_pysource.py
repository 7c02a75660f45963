"""Registering in a Python list by its syntax tree: every list shape, and refusals."""

from __future__ import annotations

import pytest

from silo.authoring.pysource import append_to_list, ensure_imports, insert_before_list
from silo.errors import SiloError

NAMES = ("ALL_TOOLS", "TOOLS")


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("TOOLS = []\n", "TOOLS = [new]\n"),
        ("TOOLS: list[Tool] = [a, b]\n", "TOOLS: list[Tool] = [a, b, new]\n"),
        ("TOOLS = [\n    a,\n    b\n]\n", "TOOLS = [\n    a,\n    b,\n    new,\n]\n"),
        ("TOOLS = [\n    a,\n    b]\n", "TOOLS = [\n    a,\n    b,\n    new,\n]\n"),
        ("TOOLS = [\n]\n", "TOOLS = [\n    new,\n]\n"),
        (
            "ALL_TOOLS = [\n    *x.TOOLS,  # é\n]\n",
            "ALL_TOOLS = [\n    *x.TOOLS,  # é\n    new,\n]\n",
        ),
        (
            "def f():\n    TOOLS = [a]\n\n\nTOOLS = [b]\n",
            "def f():\n    TOOLS = [a]\n\n\nTOOLS = [b, new]\n",
        ),
    ],
)
def test_append_to_every_list_shape(before: str, after: str) -> None:
    assert append_to_list(before, NAMES, "new", "f.py") == after


def test_no_list_or_broken_source_is_refused() -> None:
    with pytest.raises(SiloError, match=r"no module-level list ALL_TOOLS = \[...\] or TOOLS"):
        append_to_list("TOOLS = tuple()\n", NAMES, "new", "f.py")
    with pytest.raises(SiloError, match="f.py:1: "):
        append_to_list("TOOLS = [\n", NAMES, "new", "f.py")


def test_imports_are_added_once_after_the_last_import() -> None:
    text = '"""Doc."""\n\nfrom silo import Tool\n\nX = 1\n'
    edited = ensure_imports(text, "silo", ["Tool", "check"], "f.py")
    assert edited == '"""Doc."""\n\nfrom silo import Tool\nfrom silo import check\n\nX = 1\n'
    assert ensure_imports(edited, "silo", ["check"], "f.py") == edited


def test_a_definition_goes_above_the_list() -> None:
    edited = insert_before_list("import x\nV = [a]\n", ["V"], "def g():\n    pass\n", "f.py")
    assert edited == "import x\n\n\ndef g():\n    pass\n\n\nV = [a]\n"
