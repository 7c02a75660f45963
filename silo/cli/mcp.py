"""``silo-mcp``: serve a Silo environment as an MCP server, composed by Hydra like ``silo-run``.

Contract: ``silo-mcp env=crm task=TASK-002`` composes ``env``, ``budget``, ``user``, ``task``,
``seed`` and ``runs_dir`` the way ``silo-run`` does (project ``conf/`` first, then Silo's) and serves over
stdio; ``transport=http host=127.0.0.1 port=8000`` serves streamable HTTP at ``/mcp``. Leaving
``task`` out lets the client choose with the ``silo.start_task`` tool. A user mistake (unknown
env or task, bad value, missing ``[mcp]`` extra) is one line on stderr and exit status 2; stdout
carries nothing but the protocol.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import hydra
from omegaconf import DictConfig, OmegaConf

from silo.cli.hydra.setup import check_group_overrides, prepare
from silo.errors import ConfigError, SiloError
from silo.loading.project import default_environment

__all__ = ["main", "primary_config"]

_HELP = """silo-mcp: serve a Silo environment's tools to MCP clients (one rollout per session).

Usage:
  silo-mcp env=crm task=TASK-002                      (stdio, for an MCP client's config)
  silo-mcp env=crm                                    (the client picks: silo.start_task)
  silo-mcp env=crm task=TASK-002 transport=http port=8765

Options (key=value):
  env=<name>  task=<id>  seed=N  runs_dir=<folder>
  budget.max_tool_calls=N  budget.timeout_ms=N  budget.max_user_turns=N
  user=scripted|openai|anthropic|none  (the simulated user of conversational tasks)
  transport=stdio|http  host=127.0.0.1  port=8000
"""


def primary_config() -> dict[str, Any]:
    """The primary config ``silo-mcp`` composes: silo-run's groups, plus the transport."""
    return {
        "defaults": [
            {"env": None},  # without env=: the project's one environment (said on stderr)
            {"budget": "default"},
            {"user": "scripted"},
            "_self_",
            {"override hydra/hydra_logging": "none"},
            {"override hydra/job_logging": "none"},
        ],
        "task": None,
        "seed": 0,
        "runs_dir": "${silo_project_dir:}/.silo/runs",
        "transport": "stdio",
        "host": "127.0.0.1",
        "port": 8000,
        "hydra": {
            "searchpath": ["${silo_project_conf:}", "pkg://silo.conf"],
            "run": {"dir": "${runs_dir}"},
            "output_subdir": None,
            "job": {"name": "silo-mcp", "chdir": False},
            "help": {"app_name": "silo-mcp", "template": _HELP},
        },
    }


def _fail(message: str) -> None:
    sys.stderr.write(f"silo-mcp: {message}\n")
    sys.exit(2)


def _serve(cfg: DictConfig, project: Path) -> None:
    plain: Any = OmegaConf.to_container(cfg, resolve=True)
    env_cfg = plain.get("env")
    env = env_cfg.get("name") if isinstance(env_cfg, dict) else env_cfg
    if env is None:
        env = default_environment(project)  # several or none: the choices, in one line
        sys.stderr.write(f"silo-mcp: env={env} (the project's one environment)\n")
    task, seed, port = plain.get("task"), plain.get("seed"), plain.get("port")
    if not isinstance(env, str) or not env:
        raise ConfigError("config_invalid", "env must name an environment, e.g. env=crm")
    if task is not None and not isinstance(task, str):
        raise ConfigError("config_invalid", f"task must be one task id, got {task!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError("config_invalid", f"seed must be a whole number, got {seed!r}")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
        raise ConfigError("config_invalid", f"port must be a number from 1 to 65535, got {port!r}")
    from silo.integrations.episodes import EpisodeSpec
    from silo.integrations.mcp_server import serve

    spec = EpisodeSpec(
        env=env,
        task=task,
        seed=seed,
        budget=dict(plain.get("budget") or {}),
        runs_dir=Path(str(plain["runs_dir"])),
        project_dir=project,
        agent_label="mcp",
        user=plain.get("user"),
    )
    serve(spec, transport=str(plain.get("transport")), host=str(plain.get("host")), port=port)


def main() -> None:
    """Entry point of ``silo-mcp``."""
    args = sys.argv[1:]
    try:
        project = prepare()
        keys = ["env", "budget", *(k for k in primary_config() if k != "defaults"), "user"]
        check_group_overrides(args, project, keys=keys)  # silo-mcp's keys, not silo-run's
    except SiloError as exc:
        _fail(exc.message)
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(name="silo_mcp", node=primary_config())

    @hydra.main(version_base="1.3", config_path=None, config_name="silo_mcp")
    def app(cfg: DictConfig) -> None:
        try:
            _serve(cfg, project)
        except SiloError as exc:
            _fail(exc.message)
        except KeyboardInterrupt:
            pass

    app()
