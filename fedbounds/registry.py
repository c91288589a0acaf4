"""Discovery of papers and theorems: every theorems module (built in or a plugin's, see
:mod:`fedbounds.plugins`) that defines ``THEOREMS`` (and ``PAPER``, its metadata)."""

from __future__ import annotations

import difflib
from functools import cache

from . import plugins
from . import theorems as _pkg
from .errors import BadInput
from .model import Theorem


@cache
def papers() -> dict[str, dict]:
    """Paper key → metadata dict (with its theorems under ``"theorems"``)."""
    out: dict[str, dict] = {}
    for mod in plugins.modules(_pkg, "theorems"):
        if not hasattr(mod, "THEOREMS"):
            continue
        meta = dict(getattr(mod, "PAPER", {"key": mod.__name__.rsplit(".", 1)[-1]}))
        if meta["key"] in out:
            raise plugins.PluginError(mod.__name__, f"duplicate paper key {meta['key']!r}")
        meta["theorems"] = list(mod.THEOREMS)
        meta["module"] = mod.__name__
        out[meta["key"]] = meta
    return out


@cache
def theorems() -> dict[str, Theorem]:
    """Theorem id → theorem, over every paper."""
    out: dict[str, Theorem] = {}
    for meta in papers().values():
        for thm in meta["theorems"]:
            if not isinstance(thm, Theorem):
                raise plugins.PluginError(meta["module"], f"THEOREMS holds {thm!r}, which is "
                                          "not a fedbounds Theorem")
            if thm.id in out:
                raise plugins.PluginError(meta["module"], f"duplicate theorem id {thm.id!r}")
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


def clear_caches() -> None:
    """Forget discovered papers (after changing plugins, e.g. in tests)."""
    papers.cache_clear()
    theorems.cache_clear()
