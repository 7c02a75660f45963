"""``vf-eval silo-vf-episode``: one verifiers task whose tools are a silo-mcp episode URL.

verifiers imports an environment by its id as a top-level module, so the test puts this
folder on ``PYTHONPATH``. The task's only toolset is ``vf.ToolsetConfig(url=...)`` pointed at
the episode URL in ``SILO_EPISODE_URL`` (from silo-mcp's ``POST /episodes``): verifiers
launches nothing and its harness talks to Silo directly, with no custom header. Silo records
and grades the rollout; this task has no reward of its own.
"""

from __future__ import annotations

import os

import verifiers.v1 as vf


class SiloEpisodeTools(vf.Toolset):  # type: ignore[misc]
    """The episode's tools, advertised bare (``silo_finish``, not ``<server>_silo_finish``)."""

    TOOL_PREFIX = None


class SiloEpisodeTask(vf.Task):  # type: ignore[misc]
    """A task played on the episode the test created."""

    @classmethod
    def toolsets(cls, config: vf.TaskConfig) -> list[vf.Toolset]:
        """The running silo-mcp episode: a URL, so verifiers starts no server."""
        return [SiloEpisodeTools(vf.ToolsetConfig(url=os.environ["SILO_EPISODE_URL"]))]


class SiloEpisodeTaskset(vf.Taskset[SiloEpisodeTask, vf.TasksetConfig]):  # type: ignore[misc]
    """One task; its prompt is a stand-in, since the scripted model ignores it."""

    def load(self) -> list[SiloEpisodeTask]:
        """The single episode task."""
        data = vf.TaskData(name="TASK-002", prompt="Solve the task with the Silo tools.")
        return [SiloEpisodeTask(data, self.config.task)]


__all__ = ["SiloEpisodeTaskset"]
