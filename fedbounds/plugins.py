"""Paper discovery: the built-in folders, the ``fedbounds.papers`` entry-point group, and the
``FEDBOUNDS_PAPERS`` environment variable (comma-separated importable package names).

A paper is one module per layer. Built in, those are ``fedbounds/theorems/<paper>.py``,
``problems/<paper>.py``, ``verify/algorithms/<paper>.py`` and ``verify/claims/<paper>.py``; a
plugin is a package with the submodules ``theorems``, ``problems``, ``algorithms`` and ``claims``
(any may be missing). Each layer's discovery asks this module for its modules, passing its own
built-in package, so no layer imports another to find papers.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
from importlib.metadata import entry_points
from types import ModuleType

from .errors import BadInput, foreign_code_error, interrupts

GROUP = "fedbounds.papers"
ENV = "FEDBOUNDS_PAPERS"
LAYERS = ("theorems", "problems", "algorithms", "claims")


class PluginError(BadInput):
    """A paper plugin that cannot be loaded (exit 2, naming the plugin)."""

    def __init__(self, plugin: str, message: str) -> None:
        super().__init__(f"plugin {plugin}", message)


def plugin_packages() -> list[str]:
    """Importable names of the plugin packages, entry points first, then ``FEDBOUNDS_PAPERS``."""
    names = [ep.value.split(":")[0] for ep in entry_points(group=GROUP)]
    names += [n.strip() for n in os.environ.get(ENV, "").split(",") if n.strip()]
    return list(dict.fromkeys(names))


def _import(name: str, plugin: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except BaseException as e:  # an import error (or exit) inside a plugin is the plugin's
        if interrupts(e):
            raise
        raise PluginError(plugin, f"cannot import {name}: {foreign_code_error(e)}") from None


def modules(builtin: ModuleType, layer: str) -> list[ModuleType]:
    """The modules of one layer: every module of the built-in package ``builtin`` (sorted by
    name), then ``<plugin>.<layer>`` of every plugin package that has one."""
    out = [importlib.import_module(f"{builtin.__name__}.{info.name}")
           for info in sorted(pkgutil.iter_modules(builtin.__path__), key=lambda i: i.name)]
    for package in plugin_packages():
        if not hasattr(_import(package, package), "__path__"):
            raise PluginError(package, f"{package} is a module, not a paper package (a "
                              f"package with {', '.join(LAYERS)} submodules; set by {ENV} or "
                              f"the {GROUP} entry points)")
        name = f"{package}.{layer}"
        if importlib.util.find_spec(name) is not None:
            out.append(_import(name, package))
    return out
