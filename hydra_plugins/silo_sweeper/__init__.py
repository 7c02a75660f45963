"""Silo's Hydra plugins, found by Hydra's own plugin discovery (``hydra_plugins`` namespace).

Contract: this package holds only the classes Hydra instantiates by name; their behaviour lives
in :mod:`silo.cli.hydra`. ``hydra_plugins`` itself has no ``__init__.py``: it is the namespace
package every Hydra plugin distribution adds to.
"""
