"""The environments Silo itself ships, as ``silo.environments`` entry points (see pyproject.toml).

Contract: :func:`crm`, :func:`project` and :func:`erp` return the folder of that environment in
this installation — package data in a wheel, the checkout's ``environments/<name>`` in an
editable install (:func:`silo.scaffold.template_dir` finds both) — so ``env=crm`` works in any
folder, while a project's own ``environments/crm`` still wins.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["crm", "erp", "project"]


def _folder(name: str) -> Path:
    from silo.scaffold import template_dir

    found = template_dir(name)
    if not isinstance(found, Path):  # a zipped install: the loader needs files on disk
        raise TypeError(f"the {name} environment is not unpacked on disk ({found})")
    return found


def crm() -> Path:
    """The CRM environment's folder (B2B sales pipeline)."""
    return _folder("crm")


def project() -> Path:
    """The project-tracking environment's folder (software delivery)."""
    return _folder("project")


def erp() -> Path:
    """The ERP environment's folder (procure-to-pay and order-to-cash)."""
    return _folder("erp")
