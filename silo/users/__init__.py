"""Simulated users: who answers the agent in a conversational task.

Contract: a simulated user turns a :class:`~silo.users.base.UserView` (the task's
:class:`~silo.tasks.UserSpec`, the conversation so far, the seed) into one
:class:`~silo.users.base.UserTurn` (what it says, whether it ends the conversation and why).
Users keep no per-rollout state, so one user object serves every rollout in flight.
:func:`~silo.users.resolve.resolve_user` picks one from config: ``scripted`` (the default;
replies from the task file, fully deterministic), ``openai`` / ``anthropic`` (a model playing the
user, seeded, its steps traced as ``user_model_step``), ``none`` (no user: the agent gets the
instruction) or any ``_target_``. This layer sits beside ``agents/`` (it reuses the model
endpoints) and knows nothing of rollouts or traces.
"""
