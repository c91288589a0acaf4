"""The result store: content keys, round trips, one row per key, reuse and --fresh, derivations,
and a run killed with SIGKILL part-way that resumes without recomputing finished claims."""

from __future__ import annotations

import json
import math
import os
import signal
import sqlite3
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from fedbounds.app import store as result_store
from fedbounds.app.runner import Plan, run_tasks
from fedbounds.app.store import ResultStore, cached_derivation, result_key, store_path
from fedbounds.verify import catalog
from fedbounds.verify.claim import (
    Figure,
    FigureSpec,
    Interval,
    Measurement,
    RunConfig,
    Verdict,
    claim,
)


def noisy_claim(claim_id: str, log: Path | None = None, pause: float = 0.0, centre: float = 0.5):
    """A claim whose statistic is the mean of 8 uniform draws (seeded by the noise seed), shifted
    by the instance seed; each run appends its id and seeds to ``log``."""

    @claim(claim_id, title="mean of U(0,1)", prediction="about 1/2", source="test",
           provenance="conjecture", rule=Interval("centre", 0.5), params={"centre": centre},
           figure=FigureSpec("noise", "i", "x"))
    def measure(params, seed):
        if log is not None:
            with open(log, "a") as f:
                f.write(f"{claim_id} {seed} {params['instance_seed']}\n")
        time.sleep(pause)
        x = np.random.default_rng(seed).random(8) + params["instance_seed"]
        return Measurement(float(x.mean()), series={"x": (np.arange(8), x)},
                           hlines={"half": 0.5}, evidence={"draws": x.tolist(), "pair": (1, 2)},
                           run=RunConfig("a", "b", {"eta": 0.1}, rounds=8, seed=seed))

    return measure


def install(monkeypatch, *specs) -> None:
    table = {s.id: s for s in specs}
    monkeypatch.setattr(catalog, "claims", lambda: table)


def runs(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


# ---- keys --------------------------------------------------------------------------------------


def test_key_changes_with_every_input_and_only_then(monkeypatch) -> None:
    spec = noisy_claim("proxskip.p901")
    base = result_key(spec, "quick", 0, 0, {})
    assert base == result_key(noisy_claim("proxskip.p901"), "quick", 0, 0, {})
    others = {result_key(spec, "full", 0, 0, {}), result_key(spec, "quick", 1, 0, {}),
              result_key(spec, "quick", 0, 1, {}), result_key(spec, "quick", 0, 0, {"centre": 0.4}),
              result_key(noisy_claim("proxskip.p901", centre=0.6), "quick", 0, 0, {}),
              result_key(noisy_claim("proxskip.p902"), "quick", 0, 0, {})}
    assert base not in others and len(others) == 6
    monkeypatch.setattr(result_store, "version", lambda: "9.9.9")
    assert result_key(spec, "quick", 0, 0, {}) != base
    monkeypatch.undo()
    monkeypatch.setattr(result_store, "source_hash", lambda: "0" * 64)
    assert result_key(spec, "quick", 0, 0, {}) != base


def test_closure_of_a_stand_in_measure_is_part_of_the_key() -> None:
    """Same declaration, different captured value: different keys (a test's stand-ins)."""
    a, b = noisy_claim("proxskip.p901", pause=0.0), noisy_claim("proxskip.p901", pause=1e-9)
    assert result_key(a, "quick", 0) != result_key(b, "quick", 0)


def test_source_hash_covers_the_code_that_computes_results() -> None:
    files = {str(p) for p in result_store._source_files()}
    root = Path(result_store.__file__).resolve().parents[2]
    for name in ("fedbounds/engine.py", "fedbounds/complexity.py", "verify/claim.py",
                 "verify/executor.py", "problems/base.py"):
        assert str(root / name) in files, name
    assert not any("/fedbounds/app/" in f for f in files)  # the command line computes nothing


def test_source_hash_follows_file_contents(monkeypatch, tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    module = tmp_path / "pkg" / "a.py"
    module.write_text("X = 1\n")
    monkeypatch.setattr(result_store, "source_roots", lambda: [tmp_path / "pkg"])
    result_store.source_hash.cache_clear()
    try:
        first = result_store.source_hash()
        module.write_text("X = 2\n")
        result_store.source_hash.cache_clear()
        assert result_store.source_hash() != first
    finally:
        result_store.source_hash.cache_clear()


def test_store_path_option_then_environment_then_default(monkeypatch) -> None:
    monkeypatch.delenv(result_store.ENV, raising=False)
    assert store_path(None) == Path(".fedbounds/results.sqlite")
    monkeypatch.setenv(result_store.ENV, "/tmp/elsewhere.sqlite")
    assert store_path(None) == Path("/tmp/elsewhere.sqlite")
    assert store_path("mine.sqlite") == Path("mine.sqlite")
    assert store_path("off") is None
    monkeypatch.setenv(result_store.ENV, "OFF")
    assert store_path(None) is None


def test_a_file_that_is_not_a_store_is_bad_input(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.sqlite"
    bogus.write_text("not a database, just notes\n" * 100)
    with pytest.raises(result_store.BadInput) as error:
        ResultStore(bogus)
    assert error.value.argument == "--store"


# ---- rows --------------------------------------------------------------------------------------


def test_verdict_round_trips_through_the_store(tmp_path: Path) -> None:
    verdict = Verdict("proxskip.p901", "refuted", 0.25, "<= 0.1", 1e-3,
                      {"draws": [0.5, math.nan], "pair": (1, 2), "n": np.int64(3)},
                      Figure("t", "x", "y", {"s": (np.arange(3), np.array([1.0, np.inf, 3.0]))},
                             hlines={"h": 0.5}),
                      {"algorithm": "a"}, 1.5, "a rule", seed=7, instance_seed=3)
    with ResultStore(tmp_path / "s.sqlite") as db:
        db.put("k1", verdict, profile="quick", overrides={}, started_at="2026-01-01T00:00:00", computed_at="2026-01-01T00:00:01",
               backend="serial")
        back = db.get("k1")
        (row,) = db.rows()
    assert back.as_json() == verdict.as_json()  # NaN in evidence is null either way
    assert back.evidence == {"draws": [0.5, None], "pair": [1, 2], "n": 3}
    assert back.figure.series["s"][0] == [0, 1, 2]
    assert back.figure.series["s"][1][0] == 1.0 and math.isinf(back.figure.series["s"][1][1])
    assert (back.seed, back.instance_seed, back.seconds) == (7, 3, 1.5)
    assert back.as_json() == result_store.normalized(verdict).as_json()
    assert row["backend"] == "serial" and row["paper"] == "proxskip"
    for column in result_store.ENVIRONMENT_COLUMNS:
        assert row[column], column
    assert row["numpy"] == np.__version__


def test_one_row_per_key_the_latest_wins(tmp_path: Path) -> None:
    first = Verdict("feddro.p901", "confirmed", 1.0, 1.0, 0.1, {})
    second = Verdict("feddro.p901", "refuted", 2.0, 1.0, 0.1, {})
    with ResultStore(tmp_path / "s.sqlite") as db:
        for verdict, at in ((first, "2026-01-01T00:00:01"), (second, "2026-01-01T00:00:02")):
            db.put("k", verdict, profile="quick", overrides={}, started_at=at, computed_at=at,
                   backend="serial")
        assert db.count() == 1
        assert db.get("k").verdict == "refuted"


def test_runs_reuse_stored_results_and_fresh_recomputes(tmp_path: Path, monkeypatch) -> None:
    log = tmp_path / "runs.log"
    install(monkeypatch, noisy_claim("proxskip.p901", log), noisy_claim("proxskip.p902", log))
    db = tmp_path / "s.sqlite"
    plan = Plan([("proxskip.p901", 0), ("proxskip.p902", 0), ("proxskip.p901", 1)], store=db)
    first = run_tasks(plan)
    assert [r.cached for r in first] == [False, False, False] and len(runs(log)) == 3
    again = run_tasks(plan)
    assert [r.cached for r in again] == [True, True, True] and len(runs(log)) == 3
    assert [r.verdict.as_json() for r in again] == [r.verdict.as_json() for r in first]
    other = run_tasks(Plan([("proxskip.p901", 0)], instance_seed=1, store=db))
    assert not other[0].cached and len(runs(log)) == 4  # a new instance is a new key
    assert other[0].verdict.statistic == pytest.approx(first[0].verdict.statistic + 1)
    plan.fresh = True
    fresh = run_tasks(plan)
    assert [r.cached for r in fresh] == [False] * 3 and len(runs(log)) == 7
    with ResultStore(db) as opened:
        assert opened.count() == 4  # replaced, not added


def test_a_claim_that_raises_is_not_stored(tmp_path: Path, monkeypatch) -> None:
    @claim("proxskip.p903", title="broken", prediction="—", source="test",
           provenance="conjecture", rule=Interval(0, 1), figure=FigureSpec("t", "x", "y"))
    def broken(params, seed):
        raise FloatingPointError("overflow in round 7")

    install(monkeypatch, broken)
    (result,) = run_tasks(Plan([("proxskip.p903", 0)], store=tmp_path / "s.sqlite"))
    assert result.verdict.verdict == "inconclusive"
    assert "round 7" in result.verdict.evidence["error"]
    with ResultStore(tmp_path / "s.sqlite") as db:
        assert db.count() == 0


def test_derivations_are_cached_by_theorem(tmp_path: Path) -> None:
    calls: list[str] = []

    def derive(theorem_id: str):
        calls.append(theorem_id)
        return [{"theorem": theorem_id, "derived": f"O(1/{theorem_id})"}]

    db = tmp_path / "s.sqlite"
    first = cached_derivation("x.thm1", db, lambda: derive("x.thm1"))
    assert first == [{"theorem": "x.thm1", "derived": "O(1/x.thm1)"}]
    assert cached_derivation("x.thm1", db, lambda: derive("x.thm1")) == first
    cached_derivation("x.thm2", db, lambda: derive("x.thm2"))
    assert calls == ["x.thm1", "x.thm2"]
    cached_derivation("x.thm1", db, lambda: derive("x.thm1"), fresh=True)
    assert calls == ["x.thm1", "x.thm2", "x.thm1"]
    cached_derivation("x.thm1", None, lambda: derive("x.thm1"))  # no store: always computed
    assert len(calls) == 4


def test_figure_renderings_are_keyed_by_data_and_renderer() -> None:
    figure = Figure("t", "x", "y", {"s": ([0, 1], [1.0, 2.0])})
    other = Figure("t", "x", "y", {"s": ([0, 1], [1.0, 2.5])})
    key = result_store.figure_key(figure, "renderer 1")
    assert key == result_store.figure_key(Figure("t", "x", "y", {"s": ((0, 1), (1.0, 2.0))}),
                                          "renderer 1")
    assert key != result_store.figure_key(other, "renderer 1")
    assert key != result_store.figure_key(figure, "renderer 2")


# ---- killed part-way ---------------------------------------------------------------------------

KILL_CLAIMS = [f"proxskip.p9{i:02d}" for i in range(10)]


def _stored(db: Path) -> dict[str, str]:
    """claim → computed_at of the rows in the store (read-only, while another process writes)."""
    if not db.exists():
        return {}
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as con:
        try:
            return dict(con.execute("SELECT claim, computed_at FROM results"))
        except sqlite3.OperationalError:  # the schema is being created
            return {}


def _verify_in_child(argv: list[str], output: Path) -> int:
    """``fedbounds verify …`` in a forked child (this process's stand-in claims), its stdout to
    ``output``; returns the child's pid."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            from fedbounds.app.cli import app

            sys.stdout = open(output, "w", encoding="utf-8")
            sys.stderr = open(os.devnull, "w")
            app(argv, standalone_mode=False)
            code = 0
        finally:
            sys.stdout.flush()
            os._exit(code)
    return pid


@pytest.mark.forks_on_purpose
def test_sigkill_part_way_then_resume_recomputes_nothing_finished(tmp_path: Path,
                                                                  monkeypatch) -> None:
    """``verify proxskip --backend process`` (ten 0.3 s stand-in claims) is SIGKILLed once some
    claims are stored; the rerun takes those from the store (same row, cached) and computes
    only the others; the store ends with one row per claim."""
    log, db = tmp_path / "runs.log", tmp_path / "results.sqlite"
    install(monkeypatch, *(noisy_claim(cid, log, pause=0.3) for cid in KILL_CLAIMS))
    monkeypatch.setenv(result_store.ENV, str(db))
    result_store.source_hash()  # hashed once, here: both runs key by the same code
    argv = ["verify", "proxskip", "--backend", "process", "--json"]
    child = _verify_in_child(argv, tmp_path / "first.json")
    deadline = time.monotonic() + 60
    while len(_stored(db)) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(child, signal.SIGKILL)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == -signal.SIGKILL
    before = _stored(db)
    assert 3 <= len(before) < len(KILL_CLAIMS), before  # killed part-way, finished ones kept
    ran_before = len(runs(log))

    child = _verify_in_child(argv, tmp_path / "second.json")
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    doc = json.loads((tmp_path / "second.json").read_text())
    cached = {c["id"] for c in doc["claims"] if c["cached"]}
    assert cached == set(before)
    after = _stored(db)
    assert {cid: after[cid] for cid in before} == before  # the same rows, not rewritten
    rerun = [line.split()[0] for line in runs(log)[ran_before:]]
    assert not set(rerun) & set(before)  # nothing stored was computed again
    assert set(rerun) >= set(KILL_CLAIMS) - set(before)
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT claim, COUNT(*) FROM results GROUP BY key").fetchall()
    assert sorted(claim_id for claim_id, _ in rows) == sorted(KILL_CLAIMS)
    assert all(count == 1 for _, count in rows)


@pytest.mark.slow  # ProxSkip's claims for real, in fresh programs: a minute or more
def test_sigkill_of_the_real_command_then_resume(tmp_path: Path) -> None:
    """The installed ``fedbounds verify proxskip --backend process``, SIGKILLed once two claims
    are stored, then rerun: the stored rows are reused as they were, one row per claim."""
    import subprocess

    db = tmp_path / "results.sqlite"
    env = {**os.environ, result_store.ENV: str(db)}
    command = [str(Path(sys.executable).with_name("fedbounds")), "verify", "proxskip",
               "--backend", "process", "--json"]
    first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while len(_stored(db)) < 2 and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.05)
    first.kill()
    first.wait(30)
    before = _stored(db)
    assert len(before) >= 2
    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    assert second.returncode == 0, second.stderr
    claims = json.loads(second.stdout)["claims"]
    assert {c["id"] for c in claims if c["cached"]} == set(before)
    after = _stored(db)
    assert {cid: after[cid] for cid in before} == before
    assert sorted(after) == sorted(c["id"] for c in claims)
