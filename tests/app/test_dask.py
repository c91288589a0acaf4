"""The dask backend on a real LocalCluster (dask[distributed] is in the test extra, so these run
in ``make test``): the same verdicts and statistics as the serial backend, results written to
the store by the client as futures complete, ``--scheduler`` for an existing cluster."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from distributed import LocalCluster
from typer.testing import CliRunner

from fedbounds.app import runner
from fedbounds.app.cli import app
from fedbounds.app.runner import Plan, run_tasks
from fedbounds.app.store import ResultStore
from fedbounds.errors import BadInput

SUBSET = ["proxskip.p10", "proxskip.p11", "proxskip.p14"]  # three of ProxSkip's fastest claims


@pytest.fixture(scope="module")
def scheduler():
    """The address of a 2-worker LocalCluster (an "existing cluster" to connect to)."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      silence_logs=logging.ERROR) as cluster:
        yield cluster.scheduler_address


def without_seconds(verdicts) -> list[dict]:
    return [{k: v for k, v in verdict.as_json().items() if k != "seconds"}
            for verdict in verdicts]


def test_existing_cluster_gives_serial_verdicts_and_fills_the_store(scheduler: str,
                                                                    tmp_path: Path) -> None:
    serial = [r.verdict for r in run_tasks(Plan([(c, 0) for c in SUBSET]))]
    done: list[str] = []
    store = tmp_path / "s.sqlite"
    plan = Plan([(c, 0) for c in SUBSET], backend="dask", scheduler=scheduler, store=store)
    results = run_tasks(plan, done.append)
    assert without_seconds(r.verdict for r in results) == without_seconds(serial)
    assert sorted(done) == sorted(SUBSET)  # progress: one step per completed future
    with ResultStore(store) as db:
        rows = db.rows()
    assert sorted(r["claim"] for r in rows) == sorted(SUBSET)
    assert {r["backend"] for r in rows} == {"dask"}
    again = run_tasks(plan)
    assert all(r.cached for r in again)


def test_verify_cli_with_scheduler(scheduler: str, tmp_path: Path) -> None:
    argv = ["verify", "proxskip.p10", "--json", "--store", str(tmp_path / "s.sqlite")]
    on_dask = CliRunner().invoke(app, [*argv, "--backend", "dask", "--scheduler", scheduler])
    assert on_dask.exit_code == 0, on_dask.output
    serial = CliRunner().invoke(app, [*argv, "--fresh"])
    assert serial.exit_code == 0, serial.output
    (a,), (b,) = json.loads(on_dask.stdout)["claims"], json.loads(serial.stdout)["claims"]
    assert (a["verdict"], a["statistic"], a["evidence"]) == (b["verdict"], b["statistic"],
                                                             b["evidence"])
    assert a["cached"] is False and b["cached"] is False


def test_unreachable_scheduler_is_bad_input(monkeypatch) -> None:
    monkeypatch.setattr(runner, "SCHEDULER_TIMEOUT_S", 1)
    with pytest.raises(BadInput) as error:
        run_tasks(Plan([("proxskip.p10", 0)], backend="dask", scheduler="tcp://127.0.0.1:9"))
    assert error.value.argument == "--scheduler"


def test_scheduler_needs_the_dask_backend() -> None:
    with pytest.raises(BadInput) as error:
        run_tasks(Plan([("proxskip.p10", 0)], backend="process", scheduler="tcp://x:8786"))
    assert error.value.argument == "--scheduler"


@pytest.mark.slow  # ProxSkip's claims take about a minute on 2 cores
def test_whole_proxskip_paper_on_dask_equals_serial(tmp_path: Path) -> None:
    """Same verdicts; statistics equal up to rounding: dask's workers run single-threaded BLAS
    (its nanny sets OMP/OPENBLAS threads to 1), which sums some products in another order
    (proxskip.p4 and p9 differ in the 12th–16th digit)."""
    argv = ["verify", "proxskip", "--json", "--store", "off"]
    on_dask = CliRunner().invoke(app, [*argv, "--backend", "dask"])
    serial = CliRunner().invoke(app, argv)
    assert on_dask.exit_code == 0 and serial.exit_code == 0, on_dask.output + serial.output
    dask_claims = json.loads(on_dask.stdout)["claims"]
    serial_claims = json.loads(serial.stdout)["claims"]
    assert [(c["id"], c["verdict"]) for c in dask_claims] == \
        [(c["id"], c["verdict"]) for c in serial_claims]
    for a, b in zip(dask_claims, serial_claims, strict=True):
        if b["statistic"] is None:
            assert a["statistic"] is None, a["id"]
        else:
            assert a["statistic"] == pytest.approx(b["statistic"], rel=1e-9, abs=1e-12), a["id"]
