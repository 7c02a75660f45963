"""``vf-eval silo-verifiers``: Silo's verifiers environment under the id verifiers imports.

verifiers imports an environment by its id as a top-level module (``silo-verifiers`` is
``silo_verifiers``) and takes the Taskset and Env its ``__all__`` exports; the environment
itself is :mod:`silo.integrations.verifiers_env` (extra ``[verifiers]``).
"""

from silo.integrations.verifiers_env import SiloTaskset, SiloVfEnv

__all__ = ["SiloTaskset", "SiloVfEnv"]
