"""The report's schedule: claims and theory jobs in one pool, longest first, and the opt-in
timing log."""

from __future__ import annotations

import math
import os
import time

from fedbounds import registry
from fedbounds.app import report, runner
from fedbounds.app.runner import (
    CLAIM_SECONDS,
    DEFAULT_CLAIM_SECONDS,
    Computed,
    Job,
    Plan,
    TimingLog,
    claim_cost,
    longest_first,
    run_with_jobs,
)
from fedbounds.verify.claim import Verdict

CHEAP = "proxskip.p14"  # a quick claim (well under a second)


def test_claim_cost_is_the_declared_estimate_or_the_default() -> None:
    slowest = max(CLAIM_SECONDS, key=CLAIM_SECONDS.get)
    assert claim_cost(slowest) == CLAIM_SECONDS[slowest] > DEFAULT_CLAIM_SECONDS
    assert claim_cost("no.such.claim") == DEFAULT_CLAIM_SECONDS


def test_longest_first_orders_claims_and_jobs_by_decreasing_cost() -> None:
    slow, slower = sorted(CLAIM_SECONDS, key=CLAIM_SECONDS.get)[-2:]
    plan = Plan([(CHEAP, 0), (slow, 0), (slower, 0)])
    jobs = [Job("tiny", math.factorial, (3,), 0.01),
            Job("huge", math.factorial, (4,), CLAIM_SECONDS[slower] + 1),
            Job("tie", math.factorial, (5,), DEFAULT_CLAIM_SECONDS)]
    order = longest_first(plan, [0, 1, 2], jobs)
    assert order == [("job", 1), ("claim", 2), ("claim", 1), ("claim", 0), ("job", 2),
                     ("job", 0)]
    assert longest_first(plan, [0, 2]) == [("claim", 2), ("claim", 0)]  # only what is to do


def fake_compute(claim_id: str, profile: str, seed: int, instance_seed: int = 0,
                 figures: bool = False) -> Computed:
    """A worker's task without running the claim: a fixed verdict, timed in the worker."""
    now = time.time()
    return Computed(Verdict(claim_id, "confirmed", float(seed), 1.0, 0.1, {}), "s", "c", {},
                    None, os.getpid(), now, now)


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
    slowest = max(report.THEORY_SECONDS, key=report.THEORY_SECONDS.get)
    order = longest_first(Plan([(CHEAP, 0)]), [0], jobs)
    assert order[0] == ("job", keys.index(slowest))
