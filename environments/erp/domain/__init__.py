"""Domain rules of the ERP world, shared by every tool file and by the verifiers.

Contract: each module holds one family of rules and is the only place that rule is written:
:mod:`.money` (rounding, tax, document totals), :mod:`.stock` (the single stock write path and
inbound quantities), :mod:`.budgets` (headroom, commit, release, spend), :mod:`.approvals`
(authority and the pending/decided life cycle), :mod:`.documents` (PO and SO status from
receipts and shipments, invoice payment application, overdue tests, payment terms). Helpers
that only read accept any ``Mapping`` view of the state; helpers that write either succeed
completely or raise :class:`silo.ToolError` before changing anything.
"""
