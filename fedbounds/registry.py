"""Discovery of papers and theorems: every theorems module (built in or a plugin's, see
:mod:`fedbounds.plugins`) that defines ``THEOREMS`` (and ``PAPER``, its metadata)."""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import pkgutil
import sys
from functools import cache
from pathlib import Path

from . import plugins
from . import theorems as _pkg
from .errors import BadInput, foreign_code_error, interrupts
from .model import Theorem


@cache
def papers() -> dict[str, dict]:
    """Paper key → metadata dict (with its theorems under ``"theorems"`` and the theorems
    module's ``THEORY_SECONDS``, the report's scheduling hint, under ``"theory_seconds"``)."""
    out: dict[str, dict] = {}
    for mod in plugins.modules(_pkg, "theorems"):
        if not hasattr(mod, "THEOREMS"):
            continue
        paper = getattr(mod, "PAPER", {"key": mod.__name__.rsplit(".", 1)[-1]})
        key = paper["key"]
        if key in out:  # a paper's statements may span modules that share its PAPER object
            if out[key]["paper"] is not paper:
                raise plugins.PluginError(mod.__name__, f"duplicate paper key {key!r}")
            out[key]["theorems"] += list(mod.THEOREMS)
            continue
        meta = dict(paper)
        meta["paper"] = paper
        meta["theorems"] = list(mod.THEOREMS)
        meta["module"] = mod.__name__
        meta["theory_seconds"] = getattr(mod, "THEORY_SECONDS", None)
        out[meta["key"]] = meta
    return out


_FILES: dict[str, dict] = {}  # theorems loaded from user files for this process (load_file)


def load_file(path: str | Path, argument: str = "--theorems") -> list[Theorem]:
    """Load the theorems of a user's Python file (a module defining ``THEOREMS`` and optionally
    ``PAPER``) for the rest of this process, e.g. ``fedbounds check my.py:mine.thm1``.

    Errors (missing file, import error, no ``THEOREMS``, not a Theorem, an id that clashes with
    a known one) are :class:`BadInput` naming ``argument`` and the file."""
    file = Path(path).expanduser().resolve()
    key = str(file)
    if key in _FILES:
        return _FILES[key]["theorems"]
    if file.suffix != ".py" or not file.is_file():
        raise BadInput(argument, f"{path}: not a Python file (expected FILE.py)")
    name = f"fedbounds_user_{abs(hash(key))}"
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as e:  # the user's code (an exit too): report it, do not crash
        sys.modules.pop(name, None)
        if interrupts(e):
            raise
        raise BadInput(argument, f"{path}: {foreign_code_error(e)}") from None
    found = getattr(module, "THEOREMS", None)
    if not isinstance(found, (list, tuple)) or not found:
        raise BadInput(argument, f"{path}: defines no THEOREMS list")
    known = theorems()
    for thm in found:
        if not isinstance(thm, Theorem):
            raise BadInput(argument, f"{path}: THEOREMS holds {thm!r}, not a fedbounds Theorem")
        if thm.id in known and known[thm.id] is not thm:
            raise BadInput(argument, f"{path}: theorem id {thm.id!r} is already defined")
    meta = dict(getattr(module, "PAPER", {"key": found[0].paper}))
    meta.update(theorems=list(found), module=str(file))
    _FILES[key] = meta
    theorems.cache_clear()
    return list(found)


@cache
def theorems() -> dict[str, Theorem]:
    """Theorem id → theorem, over every paper (and the files loaded with :func:`load_file`)."""
    out: dict[str, Theorem] = {}
    for meta in _FILES.values():
        for thm in meta["theorems"]:
            out[thm.id] = thm
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
    """The theorem with this id, or :class:`BadInput` suggesting the closest ids. ``FILE.py:ID``
    loads the theorems of FILE.py first (:func:`load_file`)."""
    if ".py:" in theorem_id:
        path, theorem_id = theorem_id.rsplit(":", 1)
        load_file(path, argument)
    found = _builtin(theorem_id)
    if found is not None:
        return found
    table = theorems()
    if theorem_id in table:
        return table[theorem_id]
    close = difflib.get_close_matches(theorem_id.lower(), list(table), n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else \
        "; run `fedbounds list` for the ids"
    raise BadInput(argument, f"unknown theorem id {theorem_id!r}{hint}")


@cache
def _plugins_installed() -> bool:
    """Whether any plugin package is configured (asked once per process: ~5 ms)."""
    return bool(plugins.plugin_packages())


@cache
def _builtin_papers(prefix: str) -> dict[str, Theorem]:
    """Id → theorem of the built-in modules named ``prefix`` or ``prefix_*``
    (``theorems/sagda.py`` and ``sagda_corollaries.py`` for ``sagda``), importing only those."""
    out: dict[str, Theorem] = {}
    for info in sorted(pkgutil.iter_modules(_pkg.__path__), key=lambda i: i.name):
        if info.name == prefix or info.name.startswith(f"{prefix}_"):
            module = importlib.import_module(f"{_pkg.__name__}.{info.name}")
            out.update((t.id, t) for t in getattr(module, "THEOREMS", ())
                       if isinstance(t, Theorem))
    return out


def _builtin(theorem_id: str) -> Theorem | None:
    """The built-in theorem with this id, importing only its paper's modules (``proxskip.…``
    in ``theorems/proxskip.py``), or None. A command about one theorem then does not import
    every paper (the CLI answers in about half the time). Only without plugins (whose ids the
    whole table checks against the built-in ones) and before the whole table is built (then it
    is the answer)."""
    if theorems.cache_info().currsize or _plugins_installed():
        return None
    return _builtin_papers(theorem_id.split(".", 1)[0]).get(theorem_id)


def clear_caches() -> None:
    """Forget discovered papers and loaded theorem files (after changing plugins, in tests)."""
    _FILES.clear()
    papers.cache_clear()
    theorems.cache_clear()
    _plugins_installed.cache_clear()
    _builtin_papers.cache_clear()
