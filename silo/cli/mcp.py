"""``silo-mcp``: serve a Silo environment as an MCP server, composed by Hydra like ``silo-run``.

Contract: ``silo-mcp env=crm task=TASK-002`` composes ``env``, ``budget``, ``user``, ``task``,
``seed`` and ``runs_dir`` the way ``silo-run`` does (project ``conf/`` first, then Silo's) and serves over
stdio; ``transport=http host=127.0.0.1 port=8000`` serves streamable HTTP at ``/mcp`` and episode
URLs from ``POST /episodes`` (:mod:`silo.integrations.mcp_http`). Leaving ``task`` out lets the
client choose with the ``silo_start_task`` tool; ``finish_result=grade`` makes ``silo_finish``
return the grade. HTTP takes ``auth=auto|off|env|generate`` (a bearer token: from
``SILO_MCP_TOKEN``, or generated and printed once; required off loopback), ``allowed_hosts``,
``max_sessions``, ``max_episodes``, ``idle_timeout_s`` (default: the budget's timeout) and
``drop_grace_s`` (how long a client whose event stream dropped has to come back). A
user mistake (unknown env or task, bad value, port in use, missing ``[mcp]`` extra) is one line
on stderr and exit status 2, before any ready line; stdout carries nothing but the protocol.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import hydra
from omegaconf import DictConfig, OmegaConf

from silo.cli.hydra.setup import check_group_overrides, prepare
from silo.errors import ConfigError, SiloError
from silo.integrations.mcp_options import check_finish_result, check_transport
from silo.json_types import JSON
from silo.loading.project import default_environment

__all__ = ["main", "primary_config"]

_HELP = """silo-mcp: serve a Silo environment's tools to MCP clients (one rollout per session).

Usage:
  silo-mcp env=crm task=TASK-002                      (stdio, for an MCP client's config)
  silo-mcp env=crm                                    (the client picks: silo_start_task)
  silo-mcp env=crm task=TASK-002 transport=http port=8765   (POST /episodes for episode URLs)

Options (key=value):
  env=<name>  task=<id>  seed=N  runs_dir=<folder>
  budget.max_tool_calls=N  budget.timeout_ms=N  budget.max_user_turns=N
  user=scripted|openai|anthropic|none  (the simulated user of conversational tasks)
  finish_result=recorded|grade  (what silo_finish returns to the agent)
  transport=stdio|http  host=127.0.0.1  port=8000
  auth=auto|off|env|generate  (bearer token: SILO_MCP_TOKEN, or generated and printed once)
  allowed_hosts=[name,...]  max_sessions=256  max_episodes=256  idle_timeout_s=<seconds>
  drop_grace_s=5  (a client whose event stream dropped is gone unless it is back by then)
"""


def primary_config() -> dict[str, JSON]:
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
        "finish_result": "recorded",
        "transport": "stdio",
        "host": "127.0.0.1",
        "port": 8000,
        "auth": "auto",
        "allowed_hosts": [],
        "max_sessions": 256,
        "max_episodes": 256,
        "idle_timeout_s": None,
        "drop_grace_s": 5.0,
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
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port < 65536:
        raise ConfigError("config_invalid", f"port must be a number from 0 to 65535, got {port!r}")
    transport, finish_result = str(plain.get("transport")), str(plain.get("finish_result"))
    check_transport(transport)
    check_finish_result(finish_result)
    # Everything a command line can get wrong is checked before the MCP SDK is imported.
    http = _http_options(plain) if transport == "http" else None
    from silo.integrations.episodes import EpisodeSpec

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
    environment = spec.load()  # the environment, the task and the user= checked
    from silo.integrations.mcp_server import serve

    serve(
        spec, transport=transport, finish_result=finish_result, http=http, environment=environment
    )


def _count(plain: dict[str, JSON], key: str) -> int:
    value = plain.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError("config_invalid", f"{key} must be a whole number from 1, got {value!r}")
    return value


def _token(auth: Any) -> str | None:
    """The bearer token ``auth=`` asks for (``generate`` prints it, once, on stderr)."""
    from silo.integrations.mcp_http import TOKEN_ENV, new_token

    from_env = os.environ.get(TOKEN_ENV) or None
    if auth == "auto":
        return from_env
    if auth == "off":
        return None
    if auth == "env":
        if from_env is None:
            raise ConfigError("config_invalid", f"auth=env needs the token in {TOKEN_ENV}")
        return from_env
    if auth == "generate":
        token = new_token()
        sys.stderr.write(
            f"silo-mcp: token (shown once; clients send Authorization: Bearer <token>): {token}\n"
        )
        return token
    raise ConfigError("config_invalid", f"auth must be auto, off, env or generate, got {auth!r}")


def _http_options(plain: dict[str, JSON]) -> Any:
    from silo.integrations.mcp_http import HttpOptions

    allowed = plain.get("allowed_hosts") or []
    if isinstance(allowed, str):
        allowed = [allowed]
    if not isinstance(allowed, list) or not all(isinstance(h, str) and h for h in allowed):
        raise ConfigError(
            "config_invalid", f"allowed_hosts must be a list of host names, got {allowed!r}"
        )
    idle = plain.get("idle_timeout_s")
    if idle is None:  # a client gone costs nothing past its rollout's budget
        idle = float((plain.get("budget") or {}).get("timeout_ms") or 1_800_000) / 1000
    if isinstance(idle, bool) or not isinstance(idle, int | float) or not idle > 0:
        raise ConfigError("config_invalid", f"idle_timeout_s must be above 0, got {idle!r}")
    grace = plain.get("drop_grace_s")
    if isinstance(grace, bool) or not isinstance(grace, int | float) or not grace > 0:
        raise ConfigError("config_invalid", f"drop_grace_s must be above 0, got {grace!r}")
    return HttpOptions(
        host=str(plain.get("host")),
        port=int(plain["port"]),
        token=_token(plain.get("auth")),
        allowed_hosts=tuple(allowed),
        max_sessions=_count(plain, "max_sessions"),
        max_episodes=_count(plain, "max_episodes"),
        idle_timeout_s=float(idle),
        drop_grace_s=float(grace),
    )


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
