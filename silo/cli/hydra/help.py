"""``silo-run --hydra-help``: Hydra's help, listing every Hydra group option completion offers.

Contract: Hydra composes its help without the primary config, so the primary's
``hydra.searchpath`` (Silo's packaged ``conf/``, the project's ``conf/``) is not searched and
Silo's launchers (``ray_local``, ``slurm``, …) would be missing from the list.
:func:`store_hydra_help` stores ``hydra/hydra_help=silo`` (Hydra's template, with the group list
made by :func:`hydra_groups_text`, which asks Hydra's loader with the primary config named),
and :data:`HYDRA_HELP_OVERRIDE` is the override that selects it.
"""

from __future__ import annotations

__all__ = ["HYDRA_HELP_OVERRIDE", "hydra_groups_text", "store_hydra_help"]

HYDRA_HELP_OVERRIDE = "hydra/hydra_help=silo"

_TEMPLATE = """Hydra (${hydra.runtime.version})
See https://hydra.cc for more info.

== Flags ==
$FLAGS_HELP

== Configuration groups ==
Compose your configuration from those groups (for example hydra/launcher=joblib)

${silo_hydra_groups:}

Use '--cfg hydra' to Show the Hydra config.
"""


def hydra_groups_text() -> str:
    """``hydra/<group>: option, …`` lines for every Hydra group, as completion lists them.

    The ``silo_hydra_groups`` resolver of the template; called while Hydra prints its help,
    with its config loader set up.
    """
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.object_type import ObjectType

    loader = GlobalHydra.instance().config_loader()

    def options(group: str, kind: ObjectType) -> list[str]:
        return sorted(loader.get_group_options(group, kind, config_name="silo", overrides=[]))

    lines, parents = [], ["hydra"]
    while parents:
        parent = parents.pop(0)
        for name in options(parent, ObjectType.GROUP):
            group = f"{parent}/{name}"
            choices = options(group, ObjectType.CONFIG)
            if choices:
                lines.append(f"{group}: {', '.join(choices)}")
            parents.append(group)
    return "\n".join(sorted(lines))


def store_hydra_help() -> None:
    """Store the ``hydra/hydra_help=silo`` config (its template resolves the group list)."""
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(
        group="hydra/hydra_help", name="silo", node={"template": _TEMPLATE}, provider="silo"
    )
