"""The trivial ``@hydra.main`` app that ``bench_end_to_end.py`` times beside ``silo-run``.

No config files and a task function that does nothing: what remains is Hydra's own start-up
and composition. The benchmark runs it with the settings silo-run uses (no output folder, no
logging configuration) so the two differ only by what Silo adds.
"""

import hydra
from omegaconf import DictConfig


@hydra.main(version_base="1.3", config_path=None, config_name=None)
def app(cfg: DictConfig) -> None:
    pass


if __name__ == "__main__":
    app()
