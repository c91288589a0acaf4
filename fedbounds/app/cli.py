"""The ``fedbounds`` command line (DESIGN "CLI"): rich tables for people, ``--json`` for programs.

The commands live in :mod:`.theory` (list, show, check, max-step, bound, complexity) and
:mod:`.numeric` (run, verify, report, counterexample); importing them registers them on the one
Typer ``app``.

Exit codes: 0 done (``check``: feasible), 1 ``check`` infeasible, 2 bad input, 3 internal error,
130 interrupted (Ctrl-C), 143 terminated (SIGTERM).
"""

from __future__ import annotations

from . import numeric, pep, results, theory  # noqa: F401  (registers the commands)
from .common import app


def main() -> None:  # console script
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
