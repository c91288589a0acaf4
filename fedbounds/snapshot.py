"""Snapshots of encoded theorems: every condition's two sides, every bound term, derived quantity,
schedule entry, cost and claimed order (and, optionally, every derived complexity order)
evaluated exactly at fixed reference points, written as a readable golden file. A later edit
that changes any of these values is caught and named (theorem, item, point).

The reference points are deterministic and generic: each symbol gets a rational built from its
name (so two symbols rarely share a value) inside its domain, at three scales (small, unit,
large), so that both branches of a Max/Min are usually exercised. Values are exact sympy numbers
(rationals, roots, logs) stored with 25 significant digits and, when short, their exact form.

File format, one value per line (tab-separated)::

    theorem  point  item  decimal  exact
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import mpmath
import sympy as sp

from .exprtree import as_basic
from .model import Theorem

SCALES = (sp.Rational(1, 10), sp.Integer(1), sp.Integer(10))
DIGITS = 25
HEADER = ("# fedbounds theorem snapshot: theorem, point, item, value (25 digits), exact form\n"
          "# regenerate with `fedbounds snapshot` after an intended change; see fedbounds.testing\n")


@dataclass(frozen=True)
class Entry:
    theorem: str
    point: int
    item: str
    decimal: str
    exact: str = ""

    def line(self) -> str:
        return "\t".join((self.theorem, str(self.point), self.item, self.decimal, self.exact))


def _value(name: str, domain, scale: sp.Rational) -> sp.Rational:
    """A generic rational for symbol ``name`` inside its domain at one scale."""
    h = zlib.crc32(name.encode())
    num, den = 3 + h % 17, 5 + (h // 17) % 13
    k = SCALES.index(scale)
    lo = sp.nsimplify(domain.lo) if domain.lo > -1e300 else None
    hi = sp.nsimplify(domain.hi) if domain.hi < 1e300 else None
    if domain.integer:
        return sp.Integer(max(int(lo or 0), (2 + h % 5) * (1, 4, 40)[k]))
    if lo is not None and hi is not None:  # a bounded interval: stay strictly inside
        unit = sp.Rational(num, num + den)
        return lo + (hi - lo) * (unit / 10, unit, 1 - unit / 10)[k]
    value = sp.Rational(num, den) * scale
    return value if lo is None else lo + value


def symbols(thm: Theorem) -> list[sp.Symbol]:
    """Every input symbol a snapshot needs (conditions, bound, schedule, costs, claims)."""
    exprs: list[sp.Basic] = [thm.expand(e) for c in thm.conditions for e in (c.rel.lhs, c.rel.rhs)]
    exprs += [thm.expand(t.expr) for t in thm.bound]
    exprs += [thm.expand(v) for v in thm.schedule.values()]
    exprs += [thm.expand(v) for v in (*thm.costs.values(), *thm.claimed.values())]
    exprs += [thm.expand(v) for v in thm.derived.values()]
    for spec in thm.specializations:
        exprs += [thm.expand(v) for v in (*spec.subs.values(), *spec.claimed.values())]
    out: dict[str, sp.Symbol] = {}
    for e in exprs:
        for s in e.free_symbols:
            out.setdefault(s.name, s)
    return [out[n] for n in sorted(out)]


def reference_points(thm: Theorem) -> list[dict[sp.Symbol, sp.Rational]]:
    """Three deterministic points (small, unit, large scale) over the theorem's symbols."""
    syms = symbols(thm)
    return [{s: _value(s.name, thm.notation.spec(s.name).domain, scale) for s in syms}
            for scale in SCALES]


def _entry(thm: Theorem, k: int, item: str, expr: sp.Basic,
           point: dict[sp.Symbol, sp.Rational]) -> Entry:
    try:
        exact = as_basic(thm.expand(expr)).xreplace(point).doit()
    except (TypeError, ValueError, ZeroDivisionError) as e:  # e.g. Max(zoo, 1): not comparable
        return Entry(thm.id, k, item, "undefined", type(e).__name__)
    if exact.free_symbols:
        return Entry(thm.id, k, item, "symbolic", sp.sstr(exact))
    if exact.is_real is False or exact.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return Entry(thm.id, k, item, sp.sstr(exact), "")
    text = sp.sstr(exact)
    return Entry(thm.id, k, item, str(sp.N(exact, DIGITS)), text if len(text) <= 60 else "")


def items(thm: Theorem) -> list[tuple[str, sp.Basic]]:
    """(name, expression) of every snapshotted item, in a fixed order."""
    out: list[tuple[str, sp.Basic]] = []
    for c in thm.conditions:
        out += [(f"condition {c.name} lhs", c.rel.lhs), (f"condition {c.name} rhs", c.rel.rhs)]
    out += [(f"term {t.name}", t.expr) for t in thm.bound]
    out += [(f"derived {s.name}", v) for s, v in thm.derived.items()]
    out += [(f"schedule {s.name}", v) for s, v in thm.schedule.items()]
    out += [(f"cost {k}", v) for k, v in thm.costs.items()]
    out += [(f"claimed {k}", v) for k, v in thm.claimed.items()]
    for sp_ in thm.specializations:
        out += [(f"specialization {sp_.name} {s.name}", v) for s, v in sp_.subs.items()]
        out += [(f"specialization {sp_.name} claimed {k}", v) for k, v in sp_.claimed.items()]
    return out


def snapshot(thm: Theorem, orders: bool = False) -> list[Entry]:
    """Every item of ``thm`` at every reference point; with ``orders``, also every derived
    complexity order of :func:`fedbounds.complexity.derive` (slow for some theorems)."""
    named = items(thm)
    if orders:
        from .complexity import derive

        report = derive(thm)
        if report.T_eps is not None:
            named.append(("complexity T_eps", report.T_eps))
        for regime in report.regimes:
            for row in regime.rows:
                if row.derived_order is not None:
                    named.append((f"complexity {regime.name} {row.cost}", row.derived_order))
    points = reference_points(thm)
    return [_entry(thm, k, name, expr, point) for k, point in enumerate(points, 1)
            for name, expr in named]


def write(path: Path, theorems: Iterable[Theorem], orders: bool = False) -> int:
    """Write the golden file; returns the number of values."""
    lines = [e.line() for thm in theorems for e in snapshot(thm, orders)]
    path.write_text(HEADER + "\n".join(lines) + "\n")
    return len(lines)


def read(path: Path) -> dict[tuple[str, int, str], Entry]:
    out = {}
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        theorem, point, item, decimal, exact = (line.split("\t") + [""])[:5]
        out[(theorem, int(point), item)] = Entry(theorem, int(point), item, decimal, exact)
    return out


def _same(a: str, b: str, rtol: float) -> bool:
    if a == b:
        return True
    with mpmath.workdps(DIGITS + 5):
        try:
            x, y = mpmath.mpf(a), mpmath.mpf(b)
        except (ValueError, TypeError):
            return False
        return bool(abs(x - y) <= rtol * max(abs(x), abs(y)))


def differences(expected: dict[tuple[str, int, str], Entry], actual: Iterable[Entry],
                rtol: float = 1e-15, theorems: set[str] | None = None) -> list[str]:
    """One line per value that changed, appeared or disappeared (limited to ``theorems``)."""
    got = {(e.theorem, e.point, e.item): e for e in actual}
    keys = set(got) | {k for k in expected if theorems is None or k[0] in theorems}
    out = []
    for key in sorted(keys, key=lambda k: (k[0], k[2], k[1])):
        theorem, point, item = key
        if key not in expected:
            out.append(f"{theorem}: {item} at point {point} is new ({got[key].decimal})")
        elif key not in got:
            out.append(f"{theorem}: {item} at point {point} is gone")
        elif not _same(expected[key].decimal, got[key].decimal, rtol):
            out.append(f"{theorem}: {item} at point {point} changed from "
                       f"{expected[key].decimal} to {got[key].decimal}")
    return out
