"""Agents: the contract every agent meets, and the built-in agents.

Contract: an agent is a callable (sync or async) taking an
:class:`~silo.agents.contract.AgentInput` and returning its final output;
:func:`~silo.agents.resolve.resolve_agent` finds the agent a config names. Built-ins: ``noop``,
``random``, ``replay``, ``openai``, and the environment's ``solver``.
"""
