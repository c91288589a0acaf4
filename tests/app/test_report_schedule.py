"""The report's schedule: claims and theory jobs in one pool, longest first, and the opt-in
timing log."""

from __future__ import annotations

import math
import os
import time

import pytest

from fedbounds import registry
from fedbounds.app import report, runner
from fedbounds.app.runner import (
    DEFAULT_CLAIM_SECONDS,
    Computed,
    Job,
    Plan,
    TimingLog,
    claim_cost,
    longest_first,
    run_with_jobs,
)
from fedbounds.verify import catalog
from fedbounds.verify.claim import Verdict

CHEAP = "proxskip.p14"  # a quick claim (well under a second)


def declared() -> dict[str, float]:
    return {cid: spec.seconds for cid, spec in catalog.claims().items()}


def test_claim_cost_is_the_stores_measurement_else_the_declared_estimate() -> None:
    seconds = declared()
    slowest = max(seconds, key=seconds.get)
    assert claim_cost(slowest) == seconds[slowest] > DEFAULT_CLAIM_SECONDS
    assert claim_cost(slowest, {slowest: 0.25}) == 0.25  # measured on an earlier run
    assert claim_cost(slowest, {"other.p1": 9.0}) == seconds[slowest]
    assert claim_cost("no.such.claim") == DEFAULT_CLAIM_SECONDS


def test_longest_first_orders_claims_and_jobs_by_decreasing_cost() -> None:
    seconds = declared()
    slow, slower = sorted(seconds, key=seconds.get)[-2:]
    plan = Plan([(CHEAP, 0), (slow, 0), (slower, 0)])
    jobs = [Job("tiny", math.factorial, (3,), 0.01),
            Job("huge", math.factorial, (4,), seconds[slower] + 1),
            Job("tie", math.factorial, (5,), seconds[CHEAP])]
    order = longest_first(plan, [0, 1, 2], jobs)
    assert order == [("job", 1), ("claim", 2), ("claim", 1), ("claim", 0), ("job", 2),
                     ("job", 0)]
    # the store measured the slowest claim fast: it goes last among the claims
    measured = longest_first(plan, [0, 1, 2], (), {slower: 0.0})
    assert measured == [("claim", 1), ("claim", 0), ("claim", 2)]
    assert longest_first(plan, [0, 2]) == [("claim", 2), ("claim", 0)]  # only what is to do


def fake_compute(claim_id: str, profile: str, seed: int, instance_seed: int = 0,
                 figures: bool = False) -> Computed:
    """A worker's task without running the claim: a fixed verdict, timed in the worker."""
    now = time.time()
    return Computed(Verdict(claim_id, "confirmed", float(seed), 1.0, 0.1, {}), "s", "c", {},
                    None, os.getpid(), now, now)


@pytest.mark.forks_on_purpose
def test_process_pool_runs_jobs_beside_claims_and_logs_each_task(capsys, monkeypatch) -> None:
    monkeypatch.setattr(runner, "compute", fake_compute)  # the forked workers inherit it
    plan = Plan([(CHEAP, 7), ("sagda.p5", 3)], backend="process")
    jobs = [Job("six", math.factorial, (3,), 5.0), Job("24", math.factorial, (4,), 0.0)]
    results, values = run_with_jobs(plan, jobs=jobs, log=TimingLog(enabled=True))
    assert values == {"six": 6, "24": 24}
    assert [(r.verdict.id, r.verdict.statistic) for r in results] == [(CHEAP, 7.0),
                                                                       ("sagda.p5", 3.0)]
    err = capsys.readouterr().err
    parent = os.getpid()
    assert f"task claim {CHEAP} worker " in err and f"worker {parent} " not in err
    assert "task job six worker " in err and "task job 24 worker " in err
    assert err.count("[timings] worker ") in (1, 2)  # busy and idle seconds per worker


def test_timing_log_is_silent_unless_enabled(capsys, monkeypatch) -> None:
    monkeypatch.delenv("FEDBOUNDS_TIMINGS", raising=False)
    log = TimingLog()
    log.task("claim", "x", 1, 0.0, 1.0)
    log.phase("pages", 0.0)
    log.workers()
    assert not log.enabled and capsys.readouterr().err == ""
    monkeypatch.setenv("FEDBOUNDS_TIMINGS", "1")
    assert TimingLog().enabled


def test_theory_jobs_are_each_papers_theory_longest_first() -> None:
    keys = list(registry.papers())
    jobs = report.theory_jobs(keys, None, True)
    assert [job.key for job in jobs] == keys
    assert all(job.fn is report.theory_job and job.args == (job.key, None, True) for job in jobs)
    declared = {k: registry.papers()[k]["theory_seconds"] or 0 for k in keys}
    slowest = max(declared, key=declared.get)
    order = longest_first(Plan([(CHEAP, 0)]), [0], jobs)
    assert order[0] == ("job", keys.index(slowest))
