"""The CLI's numeric boundary against a hostile tester's inputs (one per defect class): wrong
algorithm/problem pairs, overflows and blow-ups, truncated or defaulted values, requests beyond
the work cap, bad seeds. Each gives exit 2 naming the argument, or exit 0 with ``diverged``, the
round and the reason — never exit 3. Every algorithm × problem pair is enumerated."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from click.testing import CliRunner
from typer.main import get_command

from fedbounds.app.cli import app
from fedbounds.verify import catalog

runner = CliRunner()
COMMAND = get_command(app)  # built once (typer's CliRunner rebuilds it for every call)
CAP = re.compile(r"above the cap [0-9.e+]+; (lower|use) .* or raise the cap with --max-work "
                 r"[0-9.e+]+")


def _invoke(*args: str):
    result = runner.invoke(COMMAND, list(args))
    assert result.exit_code in (0, 2), (args, result.exit_code, result.output)
    return result


def _refused(argument: str, *args: str) -> str:
    """The message of an exit-2 refusal naming ``argument``."""
    result = _invoke(*args)
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and f"error: {argument}:" in text, (args, result.output)
    return text


def _summary(*args: str) -> dict:
    result = _invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["summary"]


def test_a_wrong_pair_is_refused_listing_the_accepted_problems():
    text = _refused("--problem", "run", "fedsgda-m", "--problem", "proxskip-rls", "--rounds", "2")
    assert "allowed: minmax-quadratic, minmax-scalar, minmax-cos, minmax-ncc" in text


def test_an_overflow_is_diverged_not_a_crash():
    s = _summary("run", "proxskip-gda-fl", "--problem", "proxskip-g-norm", "--set", "gamma=1e155")
    assert s["diverged"] is True and s["diverged_at"] == 0 and "not finite" in s["reason"]
    assert s["final_V"] is None and "no finite record" in s["final_note"]  # said explicitly


def test_a_blow_up_reports_its_round_and_the_last_finite_values():
    s = _summary("run", "feddro", "--problem", "feddro-p1", "--set", "eta=1e200", "beta=0.5",
                 "--rounds", "50")
    assert s["diverged"] is True and s["diverged_at"] == 1 and "dist_sq" in s["reason"]
    # x̄⁰ = 0.5 on Φ = √(x² + 4): ‖∇Φ‖² = 0.25/4.25 = 1/17 and ‖x̄ − 0‖² = 0.25 at round 0
    assert s["final_round"] == 0 and s["final_grad_phi_sq"] == pytest.approx(1 / 17)
    assert s["final_dist_sq"] == pytest.approx(0.25)
    table = _invoke("run", "feddro", "--problem", "feddro-p1", "--set", "eta=1e200", "beta=0.5",
                    "--rounds", "50")
    assert "diverged at round 1: dist_sq is not finite" in " ".join(table.output.split())


def test_the_counterexample_diverges_with_its_round():
    result = _invoke("counterexample", "feddro.thm4.1", "--case", "I", "--set", "I=2",
                     "eta=1e307", "--json")
    doc = json.loads(result.stdout)
    assert doc["diverged"] is True and doc["diverged_at"] == 1 and "1e+100" in doc["reason"]
    assert doc["trajectory"] == [0.5] and doc["final"] == 0.5  # the last finite round


@pytest.mark.parametrize(("argument", "sets"), [
    ("--set K", ["K=1.5", "M=2.5"]), ("--set M", ["M=2.5"]), ("--set M", ["M=0"]),
    ("--set m", ["m=11"]), ("--set eta_xl", ["eta_xl=-1"])])
def test_integers_are_refused_not_truncated(argument, sets):
    _refused(argument, "run", "fsgda", "--problem", "minmax-quadratic", "--set", *sets)


@pytest.mark.parametrize(("algorithm", "problem", "value", "argument"), [
    ("proxskip-gda-fl", "proxskip-g-norm", "p=0", "--set p"),
    ("proxskip-gda-fl", "proxskip-g-norm", "n=0", "--set n"),
    ("proxskip-gda-fl", "proxskip-g-norm", "zeta_sq=-1", "--set zeta_sq"),
    ("projected-gda", "proxskip-quadratic-game", "zeta_sq=-1", "--set zeta_sq"),
    ("fednorm-sgda", "minmax-quadratic", "tau_max=0.5", "--set tau_max"),
    ("local-sgda", "minmax-quadratic", "rho=1", "--set rho"),
    ("feddro", "feddro-p1", "K=3", "--set K"),
    ("feddro", "feddro-kl-dro", "lam=0", "--set lam"),
    ("fsgda", "minmax-scalar", "dx=3", "--set dx")])
def test_values_outside_the_declared_domain_are_refused(algorithm, problem, value, argument):
    _refused(argument, "run", algorithm, "--problem", problem, "--rounds", "2", "--set", value)


@pytest.mark.parametrize(("argument", "args"), [
    ("--rounds", ["run", "fsgda", "--problem", "minmax-quadratic", "--rounds", "1000000000"]),
    ("--seeds", ["run", "fsgda", "--problem", "minmax-quadratic", "--seeds", "1000000000"]),
    ("--set M", ["run", "fsgda", "--problem", "minmax-quadratic", "--set", "M=100000",
                 "dx=1000"]),
    ("--set K", ["run", "fsgda", "--problem", "minmax-quadratic", "--set", "K=1000000"]),
    ("--set I", ["counterexample", "feddro.thm4.1", "--case", "I", "--set", "I=1e6", "eta=0.1"]),
    ("--rounds", ["counterexample", "feddro.thm4.1", "--case", "I", "--set", "I=1",
                  "eta=0.1", "--rounds", "1000000000"])])
def test_a_request_beyond_the_cap_names_the_parameter_the_cap_and_the_flag(argument, args):
    assert CAP.search(_refused(argument, *args))


def test_max_work_raises_the_cap():
    args = ["run", "proxskip-gda-fl", "--problem", "proxskip-g-norm", "--rounds", "200"]
    text = _refused("--rounds", *args, "--max-work", "1e7")  # 200 rounds × ≈ 1e5 each
    assert "above the cap 1e+07" in text
    assert _invoke(*args, "--max-work", "1e8").exit_code == 0
    _refused("--max-work", *args, "--max-work", "-5")


@pytest.mark.parametrize("args", [
    ["verify", "proxskip.p10", "--seed", "-1"], ["verify", "proxskip.p10", "--seed", str(2**63)],
    ["run", "fsgda", "--problem", "minmax-quadratic", "--seed", "-1"],
    ["run", "fsgda", "--problem", "minmax-quadratic", "--seed", str(2**64)],
    ["report", "--seed", "-1", "--out", "reports-never-written"]])
def test_seed_is_refused_before_anything_runs(args):
    text = _refused("--seed", *args)
    assert "[0, 2**63 - 1]" in text


def test_counts_must_be_positive():
    _refused("--seeds", "run", "fsgda", "--problem", "minmax-quadratic", "--seeds", "0")
    _refused("--rounds", "counterexample", "feddro.thm4.1", "--case", "I", "--set", "I=2",
             "eta=0.1", "--rounds", "-3")


@pytest.fixture
def built_once(monkeypatch):
    """Each problem instance is built once (the defaults of proxskip-rls take seconds): the
    every-pair run exercises every algorithm on it, not its construction six times."""
    table = catalog.problems()
    for name, entry in list(table.items()):
        made: dict = {}

        def make(values, seed, _make=entry.make, _made=made):
            key = (tuple(sorted(values.items(), key=lambda kv: kv[0])), seed)
            if key not in _made:
                _made[key] = _make(values, seed)
            return _made[key]

        monkeypatch.setitem(table, name, dataclasses.replace(entry, make=make))


def test_every_algorithm_problem_pair_runs_or_is_refused(built_once):
    algorithms, problems = catalog.algorithms(), catalog.problems()
    declared = 0
    for name, alg in algorithms.items():
        for problem in problems:
            result = runner.invoke(COMMAND, ["run", name, "--problem", problem, "--rounds",
                                             "2", "--json"])
            assert result.exit_code in (0, 2), (name, problem, result.output)
            if problem in alg.problems:
                declared += 1
                assert result.exit_code == 0 or "error: --" in result.output, (name, problem)
                if result.exit_code == 0:
                    assert json.loads(result.stdout)["summary"]["iterations"] == 2
            else:
                assert result.exit_code == 2 and "error: --problem:" in result.output, (name,
                                                                                       problem)
                assert ", ".join(alg.problems) in " ".join(result.output.split())
    assert declared == sum(len(a.problems) for a in algorithms.values()) >= 80


def test_problem_files_are_validated_too(tmp_path):
    game = {"A": [[[2.0]], [[1.0]]], "B": [[[1.0]], [[0.5]]], "C": [[[1.0]], [[3.0]]],
            "b": [[1.0], [-1.0]], "c": [[0.5], [2.0]]}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game))
    args = ["run", "fsgda", "--problem-file", str(path), "--rounds", "2"]
    assert _invoke(*args).exit_code == 0
    assert CAP.search(_refused("--problem-file", *args, "--max-work", "1e3"))
    _refused("--set K", *args, "--set", "K=2.5")
    huge = tmp_path / "huge.json"  # L_f² = 1e600 leaves the doubles: refused, not exit 3
    huge.write_text(json.dumps({**game, "A": [[[1e300]], [[1.0]]]}))
    assert "overflow" in _refused("--problem-file", "run", "fsgda", "--problem-file", str(huge))
