"""A small, valid environment written into tmp_path, which each test breaks in one way.

``make_env(**edits)`` writes ``<tmp>/environments/<name>/`` from :data:`FILES`; an edit maps a
relative path to new text (``None`` deletes the file), and ``env_py`` replaces snippets of
``env.py`` (``{"old": "new"}``) so a test states only what it breaks.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from silo.validate.report import Report, validate_environment

ENV_PY = textwrap.dedent(
    '''
    """A one-item world: read and set the item's value."""

    from silo import check, define_tool, define_verifier
    from silo.tools import Tool

    ID = {"type": "string", "enum": ["A", "B"], "description": "Item id."}


    def create_state():
        return {"items": {"A": {"value": 1}, "B": {"value": 2}}}


    def _get(state, args):
        return dict(state["items"][args["id"]])


    def _set(state, args):
        state["items"][args["id"]]["value"] = args["value"]
        return {"ok": True}


    GET = define_tool(
        "get_item",
        "Read one item.",
        {"type": "object", "properties": {"id": ID}, "required": ["id"]},
        _get,
        read_only=True,
    )
    SET = define_tool(
        "set_item",
        "Set an item's value.",
        {
            "type": "object",
            "properties": {"id": ID, "value": {"type": "integer"}},
            "required": ["id", "value"],
        },
        _set,
    )
    TOOLS = [GET, SET]


    def bind_tools(state):
        return TOOLS


    def _a_is_five(final, initial, ctx):
        return [check("A is 5", final["items"]["A"]["value"] == 5)]


    verifiers = [define_verifier("VER-001", "A set to 5", _a_is_five)]
    '''
).lstrip()

SOLVER_PY = textwrap.dedent(
    """
    def agent(inp):
        inp.call_tool("set_item", {"id": "A", "value": 5})
        return {"output": str(inp.call_tool("get_item", {"id": "A"})["output"]["value"])}
    """
).lstrip()


def task(task_id: str = "TASK-001", verifier_id: str = "VER-001", **extra: object) -> str:
    raw = {
        "id": task_id,
        "title": f"Task {task_id}",
        "instruction": "Set item A to 5.",
        "verifierId": verifier_id,
        "difficulty": "easy",
        **extra,
    }
    return json.dumps(raw)


FILES: dict[str, str] = {
    "silo.environment.json": json.dumps(
        {"name": "mini", "template": "blank", "entrypoint": "./env.py", "tools": []}
    ),
    "env.py": ENV_PY,
    "solver.py": SOLVER_PY,
    "data/items.json": '{"A": {"value": 1}}',
    "tasks/TASK-001.json": task(),
}

MakeEnv = Callable[..., Path]


@pytest.fixture
def make_env(tmp_path: Path) -> MakeEnv:
    def build(
        name: str = "mini",
        files: dict[str, str | None] | None = None,
        env_py: dict[str, str] | None = None,
    ) -> Path:
        root = tmp_path / "environments" / name
        contents: dict[str, str | None] = {**FILES, **(files or {})}
        source = contents.get("env.py")
        for old, new in (env_py or {}).items():
            assert source is not None and old in source, f"snippet not in env.py: {old!r}"
            source = source.replace(old, new)
        contents["env.py"] = source
        for relative, text in contents.items():
            if text is None:
                continue
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return root

    return build


@pytest.fixture
def check_env(make_env: MakeEnv, tmp_path: Path) -> Callable[..., Report]:
    """Build an environment with the given edits and validate it (deep off unless asked)."""

    def run(deep: bool | None = False, **edits: object) -> Report:
        root = make_env(**edits)
        return validate_environment(root.name, tmp_path, deep=deep)

    return run
