"""Harness agents: a coding-agent CLI (Claude Code, Codex, any other) plays a Silo rollout.

Contract: :class:`~silo.integrations.harness.agent.HarnessAgent` is an agent
(``agent=claude_code``, ``agent=codex``, ``agent=harness``) that runs one CLI per rollout,
headless, in a temporary HOME written from the config's templates. The CLI reaches the
rollout's tools through an MCP door (:mod:`~silo.integrations.harness.door`: the rollout's own
tools and ``silo_finish``, over streamable HTTP on loopback) and its model through the
recording proxy (:mod:`~silo.integrations.harness.proxy`), which forwards each request to the
upstream endpoint, or answers it from a scripted replay
(:mod:`~silo.integrations.harness.replay`), and records it as a ``model_step``
(:mod:`~silo.integrations.harness.wire` reads the three APIs). The rollout is the one
``silo-run`` opened: budgets, grading and the four artifacts are the engine's, as for any agent.
"""
