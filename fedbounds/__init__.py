"""fedbounds: convergence theory of federated min-max and compositional optimization, runnable.

The public API for encoding your own theorem and asking it questions::

    import sympy as sp
    from fedbounds import (POSITIVE, POSITIVE_INTEGER, Condition, Notation, Term, Theorem,
                           bound, check, derive, max_step)

    N = Notation("gda")
    gamma, mu, L = (N.add(n, POSITIVE, d) for n, d in
                    [("gamma", "step size"), ("mu", "strong monotonicity"), ("L", "Lipschitz")])
    T = N.add("T", POSITIVE_INTEGER, "iterations")
    D_0 = N.add("D_0", POSITIVE, "initial squared distance")
    thm = Theorem(id="gda.thm1", paper="gda", title="GDA", source="Theorem 1",
                  statement="γ ≤ μ/L² ⇒ ‖z_T − z*‖² ≤ (1 − γμ)^T ‖z_0 − z*‖²", notation=N,
                  conditions=[Condition("gamma <= mu/L^2", sp.Le(gamma, mu / L**2), "Thm 1")],
                  bound=[Term("contraction", (1 - gamma * mu) ** T * D_0, "Thm 1")], horizon=T)
    check(thm, {"gamma": 0.1, "mu": 1, "L": 3})          # (True, [ConditionResult(...)])
    max_step(thm, "gamma", {"mu": 1, "L": 3}).value      # 0.111… = μ/L²
    bound(thm, {"gamma": 0.1, "mu": 1, "L": 3, "T": 10, "D_0": 1}).value

``docs/tutorial.md`` walks through the same theorem with the CLI (``fedbounds check
my_theorem.py:gda.thm1 …``). Names listed in ``__all__`` are stable.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names load on first use
    from .complexity import derive, schedule_values
    from .engine import bound, check, max_step
    from .errors import BadInput
    from .model import (
        NONNEGATIVE,
        NONNEGATIVE_INTEGER,
        OPEN_UNIT,
        POSITIVE,
        POSITIVE_INTEGER,
        PROBABILITY,
        REAL,
        UNIT,
        Condition,
        Domain,
        Erratum,
        Notation,
        Relation,
        Specialization,
        Term,
        Theorem,
    )
    from .registry import get as theorem
    from .registry import load_file, theorems

# public name -> (module, attribute): loaded on first use (PEP 562), so `import fedbounds` and
# the command line's entry point start without sympy, and Ctrl-C while starting is answered
_EXPORTS: dict[str, tuple[str, str]] = {
    **{name: ("complexity", name) for name in ("derive", "schedule_values")},
    **{name: ("engine", name) for name in ("bound", "check", "max_step")},
    "BadInput": ("errors", "BadInput"),
    **{name: ("model", name) for name in (
        "NONNEGATIVE", "NONNEGATIVE_INTEGER", "OPEN_UNIT", "POSITIVE", "POSITIVE_INTEGER",
        "PROBABILITY", "REAL", "UNIT", "Condition", "Domain", "Erratum", "Notation",
        "Relation", "Specialization", "Term", "Theorem")},
    "theorem": ("registry", "get"),
    "load_file": ("registry", "load_file"),
    "theorems": ("registry", "theorems"),
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'fedbounds' has no attribute {name!r}")
    module, attribute = _EXPORTS[name]
    value = getattr(import_module(f".{module}", __name__), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


__version__ = "0.1.0"

__all__ = [
    "BadInput", "Condition", "Domain", "Erratum", "NONNEGATIVE", "NONNEGATIVE_INTEGER",
    "Notation", "OPEN_UNIT", "POSITIVE", "POSITIVE_INTEGER", "PROBABILITY", "REAL", "Relation",
    "Specialization", "Term", "Theorem", "UNIT", "__version__", "bound", "check", "derive",
    "load_file", "max_step", "schedule_values", "theorem", "theorems",
]
