"""The claim runner gives the same verdicts and statistics on every backend (reproducible)."""

from __future__ import annotations

import pytest

from fedbounds.app.runner import run_claims
from fedbounds.errors import BadInput

IDS = ["proxskip.p11", "feddro.p15"]  # two fast claims from two papers


def _key(verdicts) -> list[tuple]:
    return [(v.id, v.verdict, v.statistic) for v in verdicts]


def test_process_backend_equals_serial() -> None:
    assert _key(run_claims(IDS, backend="process")) == _key(run_claims(IDS, backend="serial"))


def test_dask_backend_equals_serial() -> None:
    """On a LocalCluster the runner starts itself (dask[distributed] is in the test extra)."""
    assert _key(run_claims(IDS, backend="dask")) == _key(run_claims(IDS, backend="serial"))


def test_dask_backend_listens_on_loopback_only(monkeypatch) -> None:
    """Every socket this process and its children listen on during a dask run (scheduler,
    workers, nannies, and no dashboard) is bound to a loopback address."""
    import ipaddress

    import psutil

    from fedbounds.app import runner

    listening: list[tuple[str, int]] = []
    submit_all = runner._submit_all

    def watching(client, *args):
        me = psutil.Process()
        for process in [me, *me.children(recursive=True)]:
            listening.extend(c.laddr for c in process.net_connections(kind="inet")
                             if c.status == psutil.CONN_LISTEN)
        return submit_all(client, *args)

    monkeypatch.setattr(runner, "_submit_all", watching)
    run_claims(IDS[:1], backend="dask")
    assert listening  # the scheduler at least
    outside = [a for a in listening if not ipaddress.ip_address(a.ip).is_loopback]
    assert not outside, outside


def test_unknown_backend_is_bad_input() -> None:
    with pytest.raises(BadInput) as e:
        run_claims(IDS, backend="gpu")
    assert e.value.argument == "--backend"


# ---- verify --seeds N: noise seeds seed … seed + N − 1, the instance fixed ----------------------


def _coin_claim():
    """Mean of 8 uniforms (noise seed) plus the instance seed / 100, against 0.5 ± 0.08: some
    noise seeds confirm, others refute."""
    import numpy as np

    from fedbounds.verify.claim import FigureSpec, Interval, Measurement, claim

    @claim("proxskip.p905", title="coin", prediction="mean near 1/2", source="test",
           provenance="conjecture", rule=Interval(0.5, 0.08), figure=FigureSpec("x", "i", "x"))
    def measure(params, seed):
        x = np.random.default_rng(seed).random(8)
        return Measurement(float(x.mean()) + params["instance_seed"] / 100)

    return measure


def test_verify_seeds_counts_verdicts_over_noise_seeds_with_the_instance_fixed(monkeypatch
                                                                                ) -> None:
    import json

    from typer.testing import CliRunner

    from fedbounds.app.cli import app
    from fedbounds.verify import catalog

    spec = _coin_claim()
    monkeypatch.setattr(catalog, "claims", lambda: {spec.id: spec})
    expected = [spec.run("quick", seed=s, instance_seed=2) for s in range(3, 15)]
    kinds = [v.verdict for v in expected]
    assert {"confirmed", "refuted"} <= set(kinds)  # the test needs a spread to count
    result = CliRunner().invoke(app, ["verify", spec.id, "--seeds", "12", "--seed", "3",
                                      "--instance-seed", "2", "--store", "off", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["seeds"] == list(range(3, 15)) and doc["instance_seed"] == 2
    (row,) = doc["claims"]
    assert [r["seed"] for r in row["runs"]] == list(range(3, 15))
    assert {r["instance_seed"] for r in row["runs"]} == {2}
    assert [r["statistic"] for r in row["runs"]] == [v.statistic for v in expected]
    assert row["counts"]["confirmed"] == kinds.count("confirmed")
    assert row["counts"]["refuted"] == kinds.count("refuted")
    assert row["refutation_rate"] == kinds.count("refuted") / 12
    top = max(set(kinds), key=kinds.count)
    assert row["verdict"] == top and row["agreement"] == kinds.count(top) / 12
    stats = [v.statistic for v in expected]
    assert (row["statistic"]["min"], row["statistic"]["max"]) == (min(stats), max(stats))
    table = CliRunner().invoke(app, ["verify", spec.id, "--seeds", "12", "--seed", "3",
                                     "--instance-seed", "2", "--store", "off"],
                               terminal_width=200)
    assert table.exit_code == 0 and "over 12 noise seeds 3–14" in table.output
    assert f"{kinds.count('refuted') / 12:.0%}" in table.output


@pytest.mark.parametrize(("args", "argument"), [
    (["--seeds", "0"], "--seeds"),
    (["--seed", str(2**63 - 1), "--seeds", "2"], "--seeds"),
    (["--instance-seed", "-1"], "--instance-seed"),
    (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler"),  # without --backend dask
])
def test_verify_seed_options_bad_input(args: list[str], argument: str) -> None:
    from typer.testing import CliRunner

    from fedbounds.app.cli import app

    result = CliRunner().invoke(app, ["verify", "proxskip.p11", *args, "--store", "off"])
    assert result.exit_code == 2 and argument in result.output, result.output
