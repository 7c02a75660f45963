"""Benchmark 3 — world size: the rollout core against ``copy.deepcopy`` of the same world.

How the big worlds are built (honestly, and without touching ``environments/crm``): the CRM
environment folder is copied to a temporary folder and its ``data/*.json`` files are
replicated. Block *b* (1, 2, ...) is a copy of every seed user, account, contact, lead,
opportunity and activity with a fresh id (``<PREFIX>-<b*1000 + n>``, e.g. ``OPP-12007``), every
reference between them remapped to the block's copies (owners, accounts, contacts, related
records, managers) and e-mails made unique; stages, sequences and the audit log are not
replicated. So every collection grows in proportion, the extra records are owned by the
block's own reps (never by the seed's), and the seed's records and facts are untouched:
TASK-002's ``result.json`` and ``state-diff.json`` must come out byte-identical to the seed
world's, which the benchmark asserts. Blocks are added until the world's compact JSON reaches
the target size (1.4 MB, τ²-bench retail's size, and 10x that).

Timed in the same run, for each size: ``run_task(env, "TASK-002", "solver",
write_artifacts=False)`` (median), ``copy.deepcopy`` of the same world (a plain
``create_state()``; median), and a breakdown of the rollout (agent + tools, ``initial()``,
diff, verifier with the diff in its context as ``run_task`` gives it, world rollback) measured
on this thread. The CRM finds a rep's deals through ``silo.Index`` and VER-002 reads the
touched deals from the state diff, so neither scans the world.
"""

from __future__ import annotations

import copy
import gc
import json
import re
import shutil
from pathlib import Path
from typing import Any

from _common import (
    ROOT,
    Report,
    act,
    header,
    median,
    ms,
    parser,
    perf_counter,
    pin_one_cpu,
    scratch,
    us,
)

SEED = ROOT / "environments" / "crm"
REPLICATED = ("users", "accounts", "contacts", "leads", "opportunities", "activities")
ID = re.compile(r"^([A-Z]+)-(\d+)$")
TAU2_RETAIL_BYTES = 1_400_000


def _compact_size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def _load_seed() -> dict[str, Any]:
    return {
        p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (SEED / "data").glob("*.json")
    }


def _block(seed: dict[str, Any], b: int) -> dict[str, list[dict[str, Any]]]:
    """Block ``b``: every replicated record with fresh ids and references remapped."""
    mapping: dict[str, str] = {}
    for name in REPLICATED:
        for record in seed[name]:
            prefix, number = ID.match(record["id"]).groups()  # type: ignore[union-attr]
            mapping[record["id"]] = f"{prefix}-{b * 1000 + int(number)}"
    out: dict[str, list[dict[str, Any]]] = {}
    for name in REPLICATED:
        rows = []
        for record in seed[name]:
            row = {}
            for key, value in record.items():
                if isinstance(value, str) and value in mapping:
                    value = mapping[value]
                elif key == "email" and isinstance(value, str) and "@" in value:
                    value = f"b{b}.{value}"
                row[key] = value
            rows.append(row)
        out[name] = rows
    return out


def build_world(factor_bytes: int, workdir: Path, label: str) -> tuple[Path, int, int]:
    """A copy of the CRM environment whose data is replicated to about ``factor_bytes``."""
    seed = _load_seed()
    seed_size = _compact_size(seed)
    block_size = _compact_size(_block(seed, 1))
    blocks = max(0, round((factor_bytes - seed_size) / block_size))
    target = workdir / label
    shutil.copytree(SEED, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    data = {name: list(seed[name]) for name in REPLICATED}
    for b in range(1, blocks + 1):
        for name, rows in _block(seed, b).items():
            data[name].extend(rows)
    for name, rows in data.items():
        (target / "data" / f"{name}.json").write_text(
            json.dumps(rows, ensure_ascii=False), encoding="utf-8"
        )
    return target, blocks, 0


def _rollout_parts(env: Any, task: Any, agent_fn: Any) -> tuple[float, ...]:
    """Agent+tools, initial(), verifier, diff and rollback of one rollout, timed here."""
    from silo.agents.contract import output_text
    from silo.rollout.bridge import json_value
    from silo.rollout.core import SHARED_WORLDS
    from silo.verifiers import VerifierContext, score

    t0 = perf_counter()
    world, output = act(env, task, agent_fn)
    verifier = env.verifier_for(task)
    t1 = perf_counter()
    initial = world.initial()
    t2 = perf_counter()
    state_diff = world.diff()
    t3 = perf_counter()
    # As run_task does: the verifier gets the diff (VER-002 reads the touched deals from it).
    context = VerifierContext(output_text(output), task, json_value(state_diff))
    graded = score(verifier.id, verifier.check(world.state, initial, context))
    t4 = perf_counter()
    SHARED_WORLDS.pool(env).release(world)
    t5 = perf_counter()
    assert graded.passed
    return t1 - t0, t2 - t1, t4 - t3, t3 - t2, t5 - t4


MOVED = ("OPP-005", "OPP-006")  # the open deals of USR-004 in the seed (what TASK-002 moves)


def touch_only(env: Any) -> tuple[Any, Any]:
    """TASK-002's writes without its scans: an agent that reassigns the two deals by id and a
    verifier that looks only at them. What is left is the engine's own cost of a rollout that
    touches two rows (plus two O(1) tool bodies), at any world size."""
    import dataclasses

    from silo.verifiers import check, define_verifier

    def agent(inp: Any) -> dict[str, str]:
        for opp_id in MOVED:
            result = inp.call_tool(
                "reassign_opportunity",
                {"actorId": "USR-001", "opportunityId": opp_id, "newOwnerId": "USR-003"},
            )
            assert not result["isError"], result
        return {"output": f"moved {', '.join(MOVED)}"}

    def grade(final: Any, initial: Any, ctx: Any) -> list[Any]:
        return [
            check(
                f"{i} moved",
                final["opportunities"][i]["ownerId"] == "USR-003"
                and initial["opportunities"][i]["ownerId"] == "USR-004",
            )
            for i in MOVED
        ]

    verifier = define_verifier("VER-002", "TASK-002", "two deals moved (O(1))", grade)
    return dataclasses.replace(env, verifiers={"VER-002": verifier}), agent


def main() -> None:
    args = parser(__doc__.splitlines()[0], pin=True).parse_args()
    cpu = None if args.no_pin else pin_one_cpu()
    header("bench_world_size: rollout core vs copy.deepcopy of the same world", args.quick, cpu)
    report = Report("world_size", args)
    sizes = (
        [("seed", 0), ("x2 seed", 2 * 21_500)]
        if args.quick
        else [
            ("seed", 0),
            ("tau2-retail 1.4MB", TAU2_RETAIL_BYTES),
            ("10x 14MB", 10 * TAU2_RETAIL_BYTES),
        ]
    )
    n_roll = 20 if args.quick else 400
    n_copy = 3 if args.quick else 15

    from silo.agents.resolve import resolve_agent
    from silo.loading.environment import load_environment
    from silo.rollout.run import run_task

    workdir = scratch("world-")
    rows, breakdown = [], []
    reference: tuple[str, str] | None = None
    try:
        for label, target_bytes in sizes:
            if target_bytes == 0:
                root, blocks = SEED, 0
            else:
                root, blocks, _ = build_world(target_bytes, workdir, label.split()[0])
            env = load_environment(root, ROOT)
            plain = env.create_state()
            size = _compact_size(plain)
            records = sum(len(v) for v in plain.values() if isinstance(v, (dict, list)))
            t_build = perf_counter()
            first = run_task(env, "TASK-002", "solver", project_dir=ROOT, write_artifacts=False)
            t_build = perf_counter() - t_build  # includes journaling the world once
            assert first.passed, first.result
            docs = (
                json.dumps(first.result, sort_keys=True),
                json.dumps(first.state_diff, sort_keys=True),
            )
            if reference is None:
                reference = docs
            assert docs == reference, f"TASK-002's answers changed at {label}"
            for _ in range(min(20, n_roll)):
                run_task(env, "TASK-002", "solver", project_dir=ROOT, write_artifacts=False)
            gc.collect()
            roll, parts = [], []
            agent_fn = resolve_agent("solver", env, ROOT).fn
            task = env.task("TASK-002")
            gc.disable()
            try:
                for _ in range(n_roll):
                    t0 = perf_counter()
                    run_task(env, "TASK-002", "solver", project_dir=ROOT, write_artifacts=False)
                    roll.append(perf_counter() - t0)
                    parts.append(_rollout_parts(env, task, agent_fn))
            finally:
                gc.enable()
            touch_env, touch_agent = touch_only(env)
            for _ in range(min(20, n_roll)):
                run_task(
                    touch_env, "TASK-002", touch_agent, project_dir=ROOT, write_artifacts=False
                )
            touch = []
            gc.disable()
            try:
                for _ in range(n_roll):
                    t0 = perf_counter()
                    r = run_task(
                        touch_env, "TASK-002", touch_agent, project_dir=ROOT, write_artifacts=False
                    )
                    touch.append(perf_counter() - t0)
            finally:
                gc.enable()
            assert r.passed, r.result
            gc.collect()
            copies = []
            for _ in range(n_copy):
                t0 = perf_counter()
                copy.deepcopy(plain)
                copies.append(perf_counter() - t0)
            del plain
            gc.collect()
            m_roll, m_copy, m_touch = median(roll), median(copies), median(touch)
            rows.append(
                [
                    label,
                    f"{size / 1e6:.2f}",
                    records,
                    blocks,
                    us(m_roll),
                    us(m_touch),
                    ms(m_copy),
                    f"{m_roll / m_copy:.4f}",
                    f"{m_touch / m_copy:.4f}",
                    f"{t_build:.2f}",
                ]
            )
            cols = list(zip(*parts, strict=True))
            agent, initial, verify, diff, release = (median(c) for c in cols)
            breakdown.append([label, us(agent), us(initial), us(verify), us(diff), us(release)])
            report.figure(
                label,
                {
                    "compactJsonBytes": size,
                    "records": records,
                    "blocks": blocks,
                    "rolloutMedianUs": m_roll * 1e6,
                    "touchOnlyMedianUs": m_touch * 1e6,
                    "touchOnlyRatio": m_touch / m_copy,
                    "deepcopyMedianMs": m_copy * 1e3,
                    "ratio": m_roll / m_copy,
                    "agentAndToolsUs": agent * 1e6,
                    "initialUs": initial * 1e6,
                    "verifierUs": verify * 1e6,
                    "diffUs": diff * 1e6,
                    "releaseUs": release * 1e6,
                },
            )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    report.print_table(
        [
            "world",
            "MB",
            "records",
            "blocks",
            "TASK-002 µs",
            "touch-only µs",
            "deepcopy ms",
            "TASK-002/deepcopy",
            "touch-only/deepcopy",
            "1st run s",
        ],
        rows,
        title=f"TASK-002, {n_roll} rollouts and {n_copy} deep copies per size (medians)",
    )
    report.print_table(
        ["world", "agent+tools µs", "initial() µs", "verifier µs", "diff µs", "rollback µs"],
        breakdown,
        title="where a rollout's time goes (medians, measured on this thread)",
    )
    print("TASK-002 result.json and state-diff.json identical at every size: yes")
    labels = [label for label, _ in sizes]
    one, ten = report.figures[labels[1]], report.figures[labels[-1]]
    report.ratio(f"rollout/deepcopy at {labels[1]}", one["ratio"], 0.25)
    report.ratio(
        f"rollout({labels[-1]}) / rollout({labels[1]})",
        ten["rolloutMedianUs"] / one["rolloutMedianUs"],
        2,
    )
    engine_1 = one["initialUs"] + one["diffUs"] + one["releaseUs"]
    engine_10 = ten["initialUs"] + ten["diffUs"] + ten["releaseUs"]
    print(
        f"journal work (initial() + diff + rollback): {engine_1:,.1f} µs at {labels[1]} -> "
        f"{engine_10:,.1f} µs at {labels[-1]} ({engine_10 / engine_1:.2f}x)"
    )
    crm_1 = one["agentAndToolsUs"] + one["verifierUs"]
    crm_10 = ten["agentAndToolsUs"] + ten["verifierUs"]
    print(
        f"CRM tools + verifier: {crm_1:,.1f} µs -> {crm_10:,.1f} µs ({crm_10 / crm_1:.2f}x); "
        "list_opportunities and VER-002 find the departed rep's deals through the CRM's "
        "owner index, and VER-002 reads the touched deals from the state diff"
    )
    report.figure("journalGrowth", engine_10 / engine_1)
    report.figure("crmGrowth", crm_10 / crm_1)
    report.ratio(f"touch-only rollout/deepcopy at {labels[1]}", one["touchOnlyRatio"], 0.25)
    report.ratio(
        f"touch-only rollout({labels[-1]}) / touch-only rollout({labels[1]})",
        ten["touchOnlyMedianUs"] / one["touchOnlyMedianUs"],
        2,
    )
    report.done()


if __name__ == "__main__":
    main()
