"""The primary Hydra config of ``silo-run`` (``silo.yaml``), as a package Hydra can load.

Contract: holds data only, no code; ``silo.cli.hydra`` composes it with
``initialize_config_module("silo._main")`` and takes the config groups from the project's
``conf/`` first, then from the ``silo.conf`` package.
"""
