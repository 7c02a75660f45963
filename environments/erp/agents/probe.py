"""The reference's tool-path probe: six scripted calls on TASK-013 that exercise every path of a
tool call (§13 ``test:tools``).

Contract: ``agent(inp)`` makes exactly six calls — a read of VINV-103, a write of its line price
to the agreed $82, a re-read that sees the write, then three calls the engine must refuse
without running a tool: one with an argument the schema does not declare, one missing a
required field and one naming a tool that does not exist. It returns
``tools=<n> read:ok write:ok reread:ok undeclared-arg:rejected missing-required:rejected
unknown-tool:rejected`` with each word saying what actually happened, so a broken path shows in
the output. Pinned with its tool events (``baselines/erp/probe``), the run proves validation,
error results and the unknown-tool path on the largest world; the verifier scores it 0.6 (the
price is fixed but the invoice is never re-matched or approved).
Run it as ``agent=file agent.path=environments/erp/agents/probe.py``.
"""

from __future__ import annotations

from typing import Any

INVOICE = "VINV-103"
CLERK = "USR-006"
AGREED_PRICE = 82


def _ok(result: Any) -> bool:
    return not result["isError"]


def _word(passed: bool, good: str, bad: str) -> str:
    return good if passed else bad


def agent(inp: Any) -> dict[str, str]:
    """Make the six probe calls and report how each one came back."""
    call = inp.call_tool
    read = call("get_vendor_invoice", {"vendorInvoiceId": INVOICE})
    lines = read["output"].get("lines", []) if _ok(read) else []
    line_id = lines[0]["id"] if lines else f"{INVOICE}-L1"
    write = call(
        "update_vendor_invoice_line",
        {
            "actorId": CLERK,
            "vendorInvoiceId": INVOICE,
            "lineId": line_id,
            "unitPrice": AGREED_PRICE,
        },
    )
    reread = call("get_vendor_invoice", {"vendorInvoiceId": INVOICE})
    repriced = _ok(reread) and any(
        line["id"] == line_id and _price(line) == AGREED_PRICE
        for line in reread["output"].get("lines", [])
    )
    undeclared = call("list_audit_events", {"entityId": INVOICE})
    missing = call("get_vendor_invoice", {})
    unknown = call("definitely_not_a_tool", {})
    words = [
        f"tools={len(inp.tools)}",
        "read:" + _word(_ok(read), "ok", "failed"),
        "write:" + _word(_ok(write), "ok", "failed"),
        "reread:" + _word(repriced, "ok", "stale"),
        "undeclared-arg:" + _word(not _ok(undeclared), "rejected", "accepted"),
        "missing-required:" + _word(not _ok(missing), "rejected", "accepted"),
        "unknown-tool:" + _word(not _ok(unknown), "rejected", "accepted"),
    ]
    return {"output": " ".join(words)}


def _price(line: dict[str, Any]) -> float:
    return float(line.get("unitPrice") or 0)
