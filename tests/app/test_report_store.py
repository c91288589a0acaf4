"""The report over a result store: a second run reuses every verdict, derivation and figure
and writes the same bytes; ``--fresh`` recomputes and still writes the same bytes; the tracked files hold
results only (no seconds, times, host or backend).

The paper is the test plugin's ``gda`` (one small theorem with a claimed complexity) and its
claims are two seeded stand-ins, so each report takes a second or two."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fedbounds.app.cli import app
from fedbounds.app.report import write_report
from fedbounds.app.store import ResultStore


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def derivation_times(db: Path) -> dict[str, str]:
    with ResultStore(db) as store:
        return dict(store.db.execute("SELECT theorem, computed_at FROM derivations"))


def figure_times(db: Path) -> dict[str, str]:
    with ResultStore(db) as store:
        return dict(store.db.execute("SELECT key, computed_at FROM figures"))


def test_second_report_reuses_the_store_and_fresh_gives_the_same_bytes(gda, tmp_path: Path
                                                                       ) -> None:
    db = tmp_path / "results.sqlite"
    first = write_report(tmp_path / "a", papers=["gda"], store=db)
    assert [c["cached"] for c in first["claims"]] == [False, False]
    assert sorted(gda()) == ["gda.p901", "gda.p902"]
    derived = derivation_times(db)
    assert "gda.thm1" in derived
    rendered = figure_times(db)
    assert len(rendered) == 1  # both stand-ins draw the same data at seed 0: one rendering
    files = tree(tmp_path / "a")

    again = write_report(tmp_path / "a", papers=["gda"], store=db)
    assert [c["cached"] for c in again["claims"]] == [True, True]
    assert len(gda()) == 2  # nothing measured again
    assert derivation_times(db) == derived  # nor derived again
    assert figure_times(db) == rendered  # nor drawn again
    assert tree(tmp_path / "a") == files

    fresh = write_report(tmp_path / "b", papers=["gda"], store=db, fresh=True)
    assert [c["cached"] for c in fresh["claims"]] == [False, False] and len(gda()) == 4
    assert derivation_times(db)["gda.thm1"] > derived["gda.thm1"]
    assert all(figure_times(db)[k] > t for k, t in rendered.items())
    assert tree(tmp_path / "b") == files
    with ResultStore(db) as store:
        assert store.count() == 2


@pytest.mark.forks_on_purpose
def test_tracked_files_hold_results_only(gda, tmp_path: Path) -> None:
    write_report(tmp_path / "r", papers=["gda"], backend="process", store=tmp_path / "s.sqlite")
    doc = json.loads((tmp_path / "r" / "verdicts.json").read_text())
    assert [c["id"] for c in doc["claims"]] == ["gda.p901", "gda.p902"]
    assert all("seconds" not in c and "cached" not in c for c in doc["claims"])
    for name, data in tree(tmp_path / "r").items():
        text = data.decode()
        assert not re.search(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d", text), name  # no timestamp
        if name.endswith((".md", ".html", ".json")):
            assert "process" not in text, name  # no backend
            assert f">{socket.gethostname()}<" not in text, name
    md = (tmp_path / "r" / "gda.md").read_text()
    header = next(line for line in md.splitlines() if line.startswith("| claim |"))
    assert "verdict" in header and "statistic" in header and "seconds" not in header


def test_report_cli_second_run_is_cached_and_fresh_recomputes(gda, tmp_path: Path) -> None:
    argv = ["report", "--paper", "gda", "--out", str(tmp_path / "r"), "--json",
            "--store", str(tmp_path / "s.sqlite")]
    runs = [CliRunner().invoke(app, args) for args in (argv, argv, [*argv, "--fresh"])]
    assert all(r.exit_code == 0 for r in runs), [r.output for r in runs]
    cached = [[c["cached"] for c in json.loads(r.stdout)["claims"]] for r in runs]
    assert cached == [[False, False], [True, True], [False, False]]
    assert len(gda()) == 4
