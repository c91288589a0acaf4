"""What every command of the CLI shares: the Typer app, consoles, options, JSON output and the
error guard that maps :class:`~fedbounds.errors.BadInput` to exit 2 and anything else to 3."""

from __future__ import annotations

import json
import math
import sys
import traceback
from collections.abc import Callable
from functools import wraps
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from fedbounds import registry
from fedbounds.errors import BadInput
from fedbounds.parse import parse_assignments

from .lifecycle import Terminated, signals_as_exceptions

EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 143  # 128 + SIGTERM

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Check published convergence theory for federated min-max and "
                       "compositional optimization: conditions, bounds, complexities, runs.")
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

JsonOpt = Annotated[bool, typer.Option("--json", help="JSON on stdout instead of a table.")]
SetOpt = Annotated[list[str] | None, typer.Option(
    "--set", help="NAME=VALUE (integers, decimals, 1e-3, fractions like 1/8); "
                  "`--set a=1 b=2` and `--set a=1 --set b=2` both work.")]
TheoremsOpt = Annotated[list[str] | None, typer.Option(
    "--theorems", metavar="FILE.py", help="also load the THEOREMS of this Python file (your own "
    "theorem; repeatable); `ID` may also be written FILE.py:ID")]
MoreOpt = Annotated[list[str] | None, typer.Argument(
    metavar="[NAME=VALUE]...", help="more NAME=VALUE pairs (continuing --set)", show_default=False)]


def load_theorem_files(files: list[str] | None) -> None:
    """Load user theorem files given with --theorems (exit 2 naming the file on any error)."""
    for file in files or []:
        registry.load_file(file, "--theorems")


def assignments(set_: list[str] | None, more: list[str] | None) -> dict:
    """--set values and the NAME=VALUE words that follow them, parsed exactly."""
    return parse_assignments([*(set_ or []), *(more or [])])


def _clean(x: Any) -> Any:
    if isinstance(x, float):
        return None if (math.isnan(x) or math.isinf(x)) else x
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x


def emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(_clean(obj), indent=2, allow_nan=False) + "\n")


def guarded(fn: Callable) -> Callable:
    """Map :class:`BadInput` to exit 2 and unexpected errors to exit 3, with a clear message;
    Ctrl-C (SIGINT) prints "interrupted" and exits 130, SIGTERM prints "terminated" and exits
    143 (128 + 15), after ``finally`` blocks stopped workers and removed temporary folders."""

    @wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            with signals_as_exceptions():
                return fn(*args, **kwargs)
        except BadInput as e:
            err.print(f"[bold red]error[/]: {escape(e.argument)}: {escape(e.message)}",
                      highlight=False)
            raise typer.Exit(2) from None
        except typer.Exit:
            raise
        except KeyboardInterrupt:
            err.print("interrupted", highlight=False)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except Terminated:
            err.print("terminated", highlight=False)
            raise typer.Exit(EXIT_TERMINATED) from None
        except Exception as e:  # pragma: no cover - reported, not hidden
            err.print(f"[bold red]internal error[/]: {type(e).__name__}: {escape(str(e))}",
                      highlight=False)
            if "--debug" in sys.argv or __import__("os").environ.get("FEDBOUNDS_DEBUG"):
                traceback.print_exc()
            raise typer.Exit(3) from None

    return wrapper


def esc(*xs: Any) -> list[str]:
    """Data shown in rich output is text, not markup ("[derived]" must stay visible)."""
    return [escape(str(x)) for x in xs]


def g(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.6g}"




ProfileOpt = Annotated[str, typer.Option("--profile", help="quick (minutes) or full (slow)")]
BackendOpt = Annotated[str, typer.Option("--backend", help="serial | process | dask")]
SeedOpt = Annotated[int, typer.Option("--seed", help="seed of the root SeedSequence")]


def fmt(x: Any) -> str:
    """A number as g() does, anything else as text."""
    return g(float(x)) if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x)
