"""The report's complexity rows as stored data: :func:`complexity_of` writes a theorem's rows
(derived against claimed orders, as :mod:`~fedbounds.exprtree` trees), and
:func:`complexity_rows_problem` checks rows read back from the result store before they are
used (the store is data someone else may have written)."""

from __future__ import annotations

import sympy as sp

from fedbounds.complexity import derive
from fedbounds.exprtree import TreeError, from_tree, to_tree
from fedbounds.pretty import fmt_order


def complexity_of(theorem) -> list[dict]:
    """The report's complexity rows of one theorem (:func:`derive`: derived vs claimed order
    per regime and cost, and the schedule checks that do not always hold), as JSON data: the
    orders as :mod:`~fedbounds.exprtree` trees (JSON data, rebuilt by a fixed vocabulary and
    printed in the notation when the page is written)."""
    rep = derive(theorem)
    rows = []
    for reg in rep.regimes:
        for row in reg.rows:
            rows.append({
                "theorem": theorem.id, "regime": reg.name, "cost": row.cost,
                "derived": fmt_order(row.derived_order), "claimed": fmt_order(row.claimed),
                "derived_tree": _tree(row.derived_order), "claimed_tree": _tree(row.claimed),
                "verdict": row.verdict, "note": reg.note if row.verdict != "agree" else "",
                "detail": row.detail if row.verdict == "disagree" else ""})
    for s in rep.schedule:
        if s.verdict != "always":
            rows.append({
                "theorem": theorem.id, "regime": "schedule vs conditions", "cost": s.condition,
                "derived": s.verdict, "claimed": "holds", "derived_tree": None,
                "claimed_tree": None, "verdict": s.verdict, "note": s.source,
                "detail": s.detail, "schedule": True})
    return rows


COMPLEXITY_KEYS = frozenset({"theorem", "regime", "cost", "derived", "claimed",
                             "derived_tree", "claimed_tree", "verdict", "note", "detail",
                             "schedule"})


def complexity_rows_problem(rows: object, theorem_id: str) -> str | None:
    """Why stored complexity rows are not ones :func:`complexity_of` writes for ``theorem_id``
    (None when they are): a list of rows with its keys, text where it writes text, orders as
    trees :func:`~fedbounds.exprtree.from_tree` rebuilds (an older store's ``srepr`` text, which
    would have to be evaluated, is not)."""
    if not isinstance(rows, list):
        return "not a list of rows"
    for row in rows:
        if not isinstance(row, dict) or set(row) - COMPLEXITY_KEYS:
            return "a row with keys complexity_of does not write"
        if row.get("theorem") != theorem_id:
            return "a row of another theorem"
        if not all(isinstance(row.get(k), str) for k in ("regime", "cost", "verdict")) or not all(
                isinstance(row.get(k), str | None) for k in ("derived", "claimed", "note",
                                                            "detail")):
            return "a row whose text is not text"
        if not isinstance(row.get("schedule", False), bool):
            return "a row whose schedule flag is not a boolean"
        for key in ("derived_tree", "claimed_tree"):
            if key not in row:
                return f"a row without {key} (an older store)"
            if row[key] is not None:
                try:
                    from_tree(row[key])
                except TreeError as e:
                    return f"{key} is not an expression tree: {e}"
    return None


def _tree(expr: sp.Basic | None) -> list | None:
    return None if expr is None else to_tree(expr)
