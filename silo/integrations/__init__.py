"""Integrations: Silo worlds served to agents and trainers that Silo does not call itself.

Contract: every integration here drives rollouts only through :func:`silo.open_session`, so each
episode is one fresh world and leaves the same four artifacts as :func:`silo.run_task`; for the
same tool calls and answer, ``result.json`` and ``state-diff.json`` are byte-identical.
:mod:`~silo.integrations.mcp_server` serves an environment as an MCP server (extra ``[mcp]``;
:mod:`~silo.integrations.mcp_http` is its HTTP front: episode URLs, token, Host checks, caps,
with :mod:`~silo.integrations.mcp_drops` ending the sessions of clients whose stream dropped),
:mod:`~silo.integrations.gym_env` is a Gymnasium environment (extra ``[gym]``, registered as
``silo/Silo-v0``), :mod:`~silo.integrations.openenv_env` an OpenEnv server (extra
``[openenv]``) and :mod:`~silo.integrations.verifiers_env` a verifiers v1 environment (extra
``[verifiers]``, ``vf-eval silo-verifiers``). Importing a module whose extra is missing raises
a one-line :class:`~silo.errors.SiloError` naming the extra to install. This layer sits above
rollout and below the CLI.

:mod:`~silo.integrations.harness` goes the other way: coding-agent CLIs (Claude Code, Codex,
any other) as *agents* of rollouts the engine runs (``agent=claude_code``, ``agent=codex``,
``agent=harness``; extra ``[mcp]``), their tools served over MCP and their model calls through
a recording proxy.
"""
