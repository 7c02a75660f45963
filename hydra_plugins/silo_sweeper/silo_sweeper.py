"""``hydra/sweeper=silo``: the class Hydra instantiates for Silo's sweeper, and its config.

Contract: :class:`SiloSweeper` is :class:`silo.cli.hydra.sweeper.ShapeSweeper` under the name
Hydra accepts, and :class:`SiloSweeperConf` its config, stored as ``hydra/sweeper/silo`` the way
every Hydra plugin stores its own (so ``--hydra-help`` lists it beside ``basic``). Hydra 1.3
instantiates only plugin classes defined under ``hydra_plugins`` that its plugin scan found;
the scan imports every module of this package, so this module imports the implementation's
module, not its class (which the scan would then list a second time under another name).
"""

from dataclasses import dataclass

from hydra.core.config_store import ConfigStore

from silo.cli.hydra import sweeper


class SiloSweeper(sweeper.ShapeSweeper):
    """Hydra's basic sweeper that composes one job per shape before launching (see the base)."""


@dataclass
class SiloSweeperConf:
    """The options of Hydra's basic sweeper (``hydra.sweeper.params``, ``max_batch_size``)."""

    _target_: str = f"{SiloSweeper.__module__}.{SiloSweeper.__qualname__}"
    max_batch_size: int | None = None
    params: dict[str, str] | None = None


ConfigStore.instance().store(
    group="hydra/sweeper", name="silo", node=SiloSweeperConf, provider="silo"
)
