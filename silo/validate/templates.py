"""Deep validation of task templates: a sample of each template's instances, and its size.

Contract: :func:`sample_instances` makes instances ``#0`` to ``#sample-1`` of every template of
an environment and returns them for the deep checks to roll out like any task (the solver must
pass each, the no-op agent fail each). It adds these findings (errors): ``template_invalid`` —
an instance cannot be made (the generator raised, or its parameters lack a declared one or
have a bad difficulty); ``template_instances_repeat`` — two sampled instances have the same
parameters. It records in ``report.instances`` how many distinct instances each template can
make: the generator's own count when it has one (:func:`silo.variants.candidates_generator`),
the list's length for ``values``, else the distinct parameter sets among the first
:data:`PROBE` seeds (then a floor).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from silo.errors import SiloError
from silo.jsonio import canonical
from silo.loading.environment import Environment
from silo.tasks import Task

if TYPE_CHECKING:
    from silo.validate.report import Report

__all__ = ["PROBE", "sample_instances"]

PROBE = 1000


def _count(env: Environment, template_id: str) -> int:
    known = env.instance_count(template_id)
    if known is not None:
        return known
    return len({canonical(dict(env.instance(template_id, n).params)) for n in range(PROBE)})


def sample_instances(env: Environment, report: Report, sample: int) -> list[Task]:
    """Instances ``#0..#sample-1`` of every template; what is wrong with them is reported."""
    found: list[Task] = []
    for template_id, template in env.templates.items():
        made: dict[str, str] = {}
        try:
            for number in range(sample):
                task = env.instance(template_id, number)
                key = canonical(dict(task.params))
                if key in made:
                    report.error(
                        "template_instances_repeat",
                        f"{template.source}: instances {made[key]} and {task.id} have the same "
                        "parameters; make the generator give each seed its own (see "
                        "silo.variants.candidates_generator)",
                    )
                made.setdefault(key, task.id)
                found.append(task)
            report.instances[template_id] = _count(env, template_id)
        except SiloError as exc:
            report.error("template_invalid", f"{template.source}: {exc.message}")
        except Exception as exc:
            report.error(
                "template_invalid",
                f'{template.source}: generator "{template.generator}" raised '
                f"{type(exc).__name__}: {exc}",
            )
    return found
