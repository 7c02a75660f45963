"""``import silo.gym`` registers ``silo/Silo-v0`` with Gymnasium (see silo.integrations.gym_env)."""

from silo.integrations.gym_env import ENV_ID, SiloEnv

__all__ = ["ENV_ID", "SiloEnv"]
