"""silo.toolkit.registry: a tool list names each tool once."""

from __future__ import annotations

import pytest

from silo import define_tool
from silo.toolkit import no_input, unique_tools


def make(name: str):  # type: ignore[no-untyped-def]
    return define_tool(name, "Does nothing.", no_input(), lambda state, args: None)


def test_unique_tools_returns_the_list_it_was_given() -> None:
    tools = [make("a"), make("b")]
    assert unique_tools(tools) is tools


def test_unique_tools_names_the_duplicates() -> None:
    with pytest.raises(RuntimeError, match=r"duplicate tool names: \['a', 'a'\]"):
        unique_tools([make("a"), make("b"), make("a")])
