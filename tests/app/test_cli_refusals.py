"""Inputs decided exactly and refusals that say so: each example of the reliability audit gives
exit 2 with a message naming the argument, or the exact answer.

* a domain is checked on the value typed (a Fraction), not its float: p = 1 + 10⁻¹⁷ is outside
  ProxSkip-VIP's p ∈ (0, 1] (Theorem 3.1: p is a probability), in ``check`` and in ``run``;
* a bound term whose float inputs are not the values typed is computed exactly: Fed-Norm-SGDA+
  Corollary 2.1's partial-participation term carries (n − P)/(P(n − 1)), which is
  1/(2⁵³·2⁵³) ≈ 1.2326e-32 at P = 2⁵³, n = 2⁵³ + 1, while float64 reads n as 2⁵³ and gives 0;
* a plugin that is not a paper package, a theorem file that exits or raises a BaseException,
  booleans in a problem file's arrays, and a table "exported" to a file: exit 2.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fedbounds import registry
from fedbounds.app.cli import app

PROXSKIP = ["A=1", "B=0", "C=0", "D_1=0", "D_2=0", "M=1", "T=10", "gamma=0.1", "mu=1", "rho=1",
            "V_0=1"]
FEDNORM = ["A_w=1", "B_w=1", "C_w=0", "D=0", "Delta_bar_Phi=1", "E_w=1", "F_w=0", "G_x=1",
           "L_f=1", "R=1", "S=1", "T=10", "a_l1_max=1", "beta_G=1", "beta_L=0", "eta_cx=0.001",
           "eta_cy=0.001", "gamma_sx=1", "gamma_sy=1", "sigma_G=1", "sigma_L=0", "tau_eff=1",
           "w_a_max=1", "xdiff_sq=0"]


def invoke(*args: str, env: dict | None = None):
    return CliRunner().invoke(app, list(args), env=env)


@pytest.mark.parametrize("argv", [
    ["check", "proxskip.thm3.1", "--set", *PROXSKIP, "p=1.00000000000000001"],
    ["run", "proxskip-gda-fl", "--problem", "proxskip-quadratic-game", "--set",
     "p=1.00000000000000001"],
])
def test_a_domain_is_checked_on_the_value_typed(argv: list[str]) -> None:
    result = invoke(*argv)
    assert result.exit_code == 2, result.output
    assert "--set p" in result.output and "1.00000000000000001" in result.output


def test_the_edge_itself_is_inside() -> None:
    assert invoke("check", "proxskip.thm3.1", "--set", *PROXSKIP, "p=1").exit_code in (0, 1)


def test_a_bound_term_is_exact_where_floats_are_not_the_inputs() -> None:
    P, n = 2**53, 2**53 + 1
    result = invoke("bound", "fednorm.cor2.1", "--set", *FEDNORM, f"P={P}", f"n={n}", "--json")
    assert result.exit_code == 0, result.output
    term = json.loads(result.stdout)["terms"]["1·eps'_opt: y-noise and partial participation"]
    # L_f γ_sy σ_G² E_w τ_eff (n − P)/((n − 1)P) with every other factor 1 (beta_L = 0)
    exact = Fraction(n - P, (n - 1) * P)
    assert term == float(exact) and term > 0


def test_a_plugin_that_is_not_a_paper_is_bad_input() -> None:
    registry.clear_caches()  # the papers found so far in this process
    try:
        result = invoke("list", env={"FEDBOUNDS_PAPERS": "os"})
    finally:
        registry.clear_caches()
    assert result.exit_code == 2, result.output
    assert "plugin os" in result.output and "not a paper package" in result.output


@pytest.mark.parametrize("body", ["import sys\nsys.exit(0)\n",
                                  "class Boom(BaseException):\n    pass\nraise Boom('no')\n"])
def test_a_theorem_file_that_exits_or_raises_is_bad_input(body: str, tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text(body)
    for argv in (["check", f"{path}:mine.thm1", "--set", "a=1"],
                 ["check", "proxskip.thm3.1", "--theorems", str(path), "--set", *PROXSKIP]):
        result = invoke(*argv)
        assert result.exit_code == 2, result.output
        assert str(path) in result.output.replace("\n", "")


@pytest.mark.parametrize("value", ["true", "false", "null", '"1"', "[1, 2]"])
def test_booleans_and_text_in_a_problem_file_are_bad_input(value: str, tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(f'{{"J": [[[1, 0], [0, {value}]]], "b": [[0, 0]]}}')
    result = invoke("constants", "--problem-file", str(path), "--json")
    assert result.exit_code == 2, result.output
    assert "--problem-file" in result.output and "'J'" in result.output


def test_a_table_is_not_exported_to_a_file(tmp_path: Path) -> None:
    out = tmp_path / "rows.txt"
    result = invoke("results", "--store", str(tmp_path / "none.sqlite"), "--out", str(out))
    assert result.exit_code == 2, result.output
    assert "--out" in result.output and "--format" in result.output
    assert not out.exists()


@pytest.mark.parametrize("argv, env", [
    (["verify", "proxskip.p14", "--store", "off", "--workers", "0"], {}),
    (["verify", "proxskip.p14", "--store", "off", "--workers", "1025"], {}),
    (["verify", "proxskip.p14", "--store", "off"], {"FEDBOUNDS_START_METHOD": "threads"}),
])
def test_worker_options_are_checked_before_anything_runs(argv: list[str], env: dict) -> None:
    result = invoke(*argv, env=env)
    assert result.exit_code == 2, result.output
    assert ("--workers" if "--workers" in argv else "FEDBOUNDS_START_METHOD") in result.output
