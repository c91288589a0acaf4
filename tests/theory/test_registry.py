"""A command about one theorem imports only that theorem's paper (``registry.get``), and finds
the same theorem as the whole table."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fedbounds import plugins, registry
from fedbounds.model import Theorem

BUILTIN_PAPERS = ("feddro", "fednorm", "fedsgda", "proxskip", "sagda")


@pytest.fixture
def empty_registry():
    registry.clear_caches()
    yield
    registry.clear_caches()


def test_one_theorem_imports_its_paper_only() -> None:
    code = ("import json, sys; from fedbounds import registry; "
            "t = registry.get('proxskip.thm3.1'); "
            "print(json.dumps([t.id, sorted(m for m in sys.modules "
            "if m.startswith('fedbounds.theorems.'))]))")
    found, loaded = json.loads(subprocess.run([sys.executable, "-c", code], check=True,
                                              capture_output=True, text=True).stdout)
    assert found == "proxskip.thm3.1"
    assert loaded == ["fedbounds.theorems.proxskip"]


def test_every_builtin_id_is_found_as_the_whole_table_finds_it(empty_registry,
                                                               monkeypatch) -> None:
    monkeypatch.setattr(plugins, "plugin_packages", lambda: [])
    table = registry.theorems()
    ids = [tid for tid, t in table.items() if t.paper in BUILTIN_PAPERS]
    assert len(ids) > 20
    registry.clear_caches()  # the modules stay imported: the same objects
    fast = {tid: registry._builtin(tid) for tid in ids}
    assert all(isinstance(t, Theorem) for t in fast.values())
    assert all(fast[tid] is table[tid] for tid in ids)
    assert registry._builtin("proxskip.no.such.theorem") is None


def test_plugins_and_a_built_table_use_the_whole_table(empty_registry, monkeypatch) -> None:
    monkeypatch.setattr(plugins, "plugin_packages", lambda: ["some_plugin"])
    assert registry._builtin("proxskip.thm3.1") is None
    monkeypatch.setattr(plugins, "plugin_packages", lambda: [])
    registry.clear_caches()  # plugins are looked for once per process
    assert registry._builtin("proxskip.thm3.1") is not None
    registry.theorems()
    assert registry._builtin("proxskip.thm3.1") is None
    assert registry.get("proxskip.thm3.1") is registry.theorems()["proxskip.thm3.1"]
