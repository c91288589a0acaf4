"""The ``fedbounds`` command line (DESIGN "CLI"): rich tables for people, ``--json`` for programs.

The commands live in :mod:`.theory` (list, show, check, max-step, bound, complexity) and
:mod:`.numeric` (run, verify, report, counterexample); importing them registers them on the one
Typer ``app``.

Exit codes: 0 done (``check``: feasible), 1 ``check`` infeasible, ``max-step`` without a feasible
value, ``verify --fail-on`` hit, 2 bad input, 3 internal error, 130 interrupted (Ctrl-C), 143
terminated (SIGTERM).
"""

from __future__ import annotations

from typing import Annotated

import typer

from . import numeric, pep, results, theory  # noqa: F401  (registers the commands)
from .common import app, out
from .version import version

EXIT_CODES = ("Exit codes: 0 done (check: feasible); 1 check infeasible, max-step without a "
              "feasible value, or verify --fail-on hit; 2 bad input; 3 internal error; "
              "130 interrupted.")


def _print_version(value: bool) -> None:
    if value:
        out.print(f"fedbounds {version()}", markup=False, highlight=False)
        raise typer.Exit(0)


@app.callback(epilog=EXIT_CODES)
def _root(show_version: Annotated[bool, typer.Option(
        "--version", help="Print the version and exit.", is_eager=True,
        callback=_print_version)] = False) -> None:
    """Check published convergence theory for federated min-max and compositional
    optimization: conditions, bounds, complexities, runs."""


def main() -> None:  # console script
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
