"""One-line human forms of expressions for tables: Greek letters, ln, √, ^, max{…}."""

from __future__ import annotations

import sympy as sp

_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "zeta": "ζ",
          "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "lam": "λ", "mu": "μ",
          "nu": "ν", "xi": "ξ", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "chi": "χ",
          "psi": "ψ", "omega": "ω", "ell": "ℓ", "Delta": "Δ", "Phi": "Φ"}


class _Pretty(sp.printing.str.StrPrinter):
    """Compact one-line orders for people: Greek letters, ln, √, ^ (JSON keeps sstr)."""

    def _print_Symbol(self, expr: sp.Symbol) -> str:
        base, _, sub = expr.name.partition("_")
        base = _GREEK.get(base, base)
        sub = {"star": "⋆", "hat": "̂"}.get(sub, sub)
        if sub == "̂":
            return base + sub
        return f"{base}_{sub}" if sub else base

    def _print_log(self, expr: sp.log) -> str:
        return f"ln({self._print(expr.args[0])})"

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        if expr.exp == sp.Rational(1, 2):
            inner = self._print(expr.base)
            return f"√{inner}" if expr.base.is_Atom else f"√({inner})"
        return super()._print_Pow(expr, rational).replace("**", "^")

    def _print_Max(self, expr: sp.Max) -> str:
        return "max{" + ", ".join(self._print(a) for a in expr.args) + "}"

    def _print_Min(self, expr: sp.Min) -> str:
        return "min{" + ", ".join(self._print(a) for a in expr.args) + "}"


def pretty(e: sp.Expr) -> str:
    """One-line human form of an expression (√, ln, Greek letters)."""
    e = sp.powsimp(e, force=True)
    return _Pretty().doprint(e).replace("**", "^").replace("*", "·")


def fmt_order(e: sp.Expr | None) -> str:
    if e is None:
        return "—"
    return f"O({pretty(e)})"
