"""Discovery of papers and theorems: every module in :mod:`fedbounds.theorems` with ``THEOREMS``."""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from functools import cache

from . import theorems as _pkg
from .errors import BadInput
from .model import Theorem


@cache
def papers() -> dict[str, dict]:
    """Paper key → metadata dict (with its theorems under ``"theorems"``)."""
    out: dict[str, dict] = {}
    for info in sorted(pkgutil.iter_modules(_pkg.__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"{_pkg.__name__}.{info.name}")
        if hasattr(mod, "THEOREMS"):
            meta = dict(getattr(mod, "PAPER", {"key": info.name}))
            meta["theorems"] = list(mod.THEOREMS)
            out[meta["key"]] = meta
    return out


@cache
def theorems() -> dict[str, Theorem]:
    """Theorem id → theorem, over every paper."""
    out: dict[str, Theorem] = {}
    for meta in papers().values():
        for thm in meta["theorems"]:
            if thm.id in out:
                raise RuntimeError(f"duplicate theorem id {thm.id}")
            out[thm.id] = thm
    return out


def get(theorem_id: str, argument: str = "ID") -> Theorem:
    """The theorem with this id, or :class:`BadInput` suggesting the closest ids."""
    table = theorems()
    if theorem_id in table:
        return table[theorem_id]
    close = difflib.get_close_matches(theorem_id.lower(), list(table), n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else \
        "; run `fedbounds list` for the ids"
    raise BadInput(argument, f"unknown theorem id {theorem_id!r}{hint}")
