"""The command line (DESIGN "CLI"): JSON shapes, exit codes 0/1/2, messages naming the argument.

Expected numbers are hand-computed from the ProxSkip-VIP paper (arXiv:2306.05100; theorem numbers and text lines cited).
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from fedbounds.app.cli import app

PROXSKIP_IDS = [
    "proxskip.thm3.1", "proxskip.cor3.2", "proxskip.cor3.2.corrected", "proxskip.cor3.5",
    "proxskip.cor3.5.corrected", "proxskip.cor3.6", "proxskip.cor3.6.corrected",
    "proxskip.cor3.9", "proxskip.cor3.9.corrected", "proxskip.thm4.2",
    "proxskip.thm4.2.corrected", "proxskip.thm4.4", "proxskip.thm4.4.corrected",
]
# L140: gamma <= min{1/mu, 1/(2(A+MC))} with mu=1, A=1, M=4, C=1/2 -> min{1, 1/6}; B/rho = 2
SET31 = ["mu=1", "A=1", "M=4", "C=1/2", "B=1", "rho=1/2"]

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def flat(text: str) -> str:
    """Rich wraps long lines at the console width: compare on collapsed whitespace."""
    return " ".join(text.split())


def run_json(*args: str, code: int = 0) -> dict:
    r = run(*args, "--json")
    assert r.exit_code == code, (args, r.stdout, r.stderr)
    return json.loads(r.stdout)


def bad(*args: str) -> str:
    r = run(*args)
    assert r.exit_code == 2, (args, r.stdout, r.stderr)
    assert "internal error" not in r.stderr
    return flat(r.stderr)


# ---------------------------------------------------------------------------------------------
# list / show
# ---------------------------------------------------------------------------------------------
def test_list_json_has_every_proxskip_id() -> None:
    d = run_json("list")
    rows = {t["id"]: t for t in d["theorems"]}
    assert set(PROXSKIP_IDS) <= set(rows)
    for tid in PROXSKIP_IDS:
        assert rows[tid]["paper"] == "proxskip"
        assert re.search(r"\[L\d+", rows[tid]["source"])  # the paper's numbering, then [Lnnn]
        assert rows[tid]["corrected_of"] == (tid.removesuffix(".corrected")
                                             if tid.endswith(".corrected") else None)
    r = run("list")
    assert r.exit_code == 0 and "proxskip.thm4.4.corrected" in r.stdout


def test_show_thm31_human() -> None:
    r = run("show", "proxskip.thm3.1")
    assert r.exit_code == 0, r.stderr
    out = r.stdout
    # symbols with domains (L107: A..D >= 0, rho in (0, 1]; p a probability)
    rows = {m.group(1): m.group(2) for m in
            re.finditer(r"^│ (\w+)\s+│ ([^│]*?)\s+│", out, flags=re.MULTILINE)}
    assert rows["rho"] == "(0, 1]" and rows["p"] == "(0, 1]"
    assert rows["A"] == "[0, inf)" and rows["D_2"] == "[0, inf)"
    assert rows["gamma"] == "(0, inf)" and rows["T"] == "integer >= 1"
    # every condition with its source line L140, the bound terms with L142
    for name in ["gamma <= 1/mu", "gamma <= 1/(2(A+MC))", "M > B/rho"]:
        assert any(name in ln and "L140" in ln for ln in out.splitlines()), name
    assert any("contraction" in ln and "L142" in ln for ln in out.splitlines())
    assert any("neighborhood" in ln and "L142" in ln for ln in out.splitlines())
    assert "errata" in out
    # rich must not swallow bracketed text as markup
    assert "[derived]" in flat(out)


def test_show_json_shape_and_errata() -> None:
    d = run_json("show", "proxskip.thm3.1")
    syms = {s["name"]: s for s in d["symbols"]}
    assert syms["rho"]["domain"] == "(0, 1]" and syms["p"]["domain"] == "(0, 1]"
    assert syms["T"]["domain"] == "integer >= 1"
    assert "tau" not in syms and [x["name"] for x in d["derived"]] == ["tau"]
    assert [(c["name"], c["source"]) for c in d["conditions"]] == [
        ("gamma <= 1/mu", "Theorem 3.1 [L140]"), ("gamma <= 1/(2(A+MC))", "Theorem 3.1 [L140]"),
        ("M > B/rho", "Theorem 3.1 [L140]")]
    assert [t["name"] for t in d["bound"]["terms"]] == ["contraction", "neighborhood"]
    assert isinstance(d["errata"], list)
    d = run_json("show", "proxskip.cor3.6")
    assert {e["id"] for e in d["errata"]} == {"ell-kappa-L", "cor3.6-step"}
    assert {re.search(r"\[(L\d+)", e["source"]).group(1) for e in d["errata"]} == {"L184", "L182"}
    r = run("show", "proxskip.cor3.6")
    assert "ell-kappa-L" in r.stdout and "[derived]" in flat(r.stdout)


# ---------------------------------------------------------------------------------------------
# check
# ---------------------------------------------------------------------------------------------
def test_check_json_shape_feasible_exit_0() -> None:
    d = run_json("check", "proxskip.thm3.1", "--set", "gamma=1/6", *SET31)
    assert d["theorem"] == "proxskip.thm3.1" and d["feasible"] is True
    assert len(d["conditions"]) == 3
    for c in d["conditions"]:
        assert {"name", "lhs", "rhs", "margin", "holds", "source"} <= set(c)
        for k in ("lhs", "rhs", "margin"):
            assert isinstance(c[k], float | int) and not isinstance(c[k], bool)
        assert c["holds"] is True and c["source"] == "Theorem 3.1 [L140]"
    by = {c["name"]: c for c in d["conditions"]}
    # L140: 1/(2(1 + 4/2)) = 1/6 -> margin 0 (equality holds); 1/mu = 1 -> margin 5/6
    assert by["gamma <= 1/(2(A+MC))"]["rhs"] == pytest.approx(1 / 6, rel=1e-12)
    assert by["gamma <= 1/(2(A+MC))"]["margin"] == pytest.approx(0.0, abs=1e-15)
    assert by["gamma <= 1/mu"]["margin"] == pytest.approx(5 / 6, rel=1e-12)
    # L140: M - B/rho = 4 - 2
    assert by["M > B/rho"]["margin"] == pytest.approx(2.0, rel=1e-12)


def test_check_infeasible_exit_1() -> None:
    d = run_json("check", "proxskip.thm3.1", "--set", "gamma=1/5", *SET31, code=1)
    assert d["feasible"] is False
    by = {c["name"]: c for c in d["conditions"]}
    # L140: 1/5 > 1/6 by 1/30
    assert by["gamma <= 1/(2(A+MC))"]["holds"] is False
    assert by["gamma <= 1/(2(A+MC))"]["margin"] == pytest.approx(-1 / 30, rel=1e-12)
    assert by["gamma <= 1/mu"]["holds"] is True
    r = run("check", "proxskip.thm3.1", "--set", "gamma=1/5", *SET31)
    assert r.exit_code == 1 and "INFEASIBLE" in r.stdout


def test_set_forms_are_equivalent() -> None:
    one = run_json("check", "proxskip.thm3.1", "--set", "gamma=1/6", *SET31)
    rep = [x for kv in ["gamma=1/6", *SET31] for x in ("--set", kv)]
    two = run_json("check", "proxskip.thm3.1", *rep)
    mixed = run_json("check", "proxskip.thm3.1", "--set", "gamma=1/6", "mu=1", "--set", "A=1",
                     "M=4", "--set", "C=1/2", "B=1", "rho=1/2")
    dec = run_json("check", "proxskip.thm3.1", "--set", "gamma=0.5e-1", "mu=1e0", "A=1.0",
                   "M=4", "C=.5", "B=1", "rho=5/10")
    assert one == two == mixed
    assert dec["conditions"][0]["lhs"] == pytest.approx(0.05)


def test_check_exact_borderline() -> None:
    # L140: gamma = 1/mu exactly (mu = 3) holds; 1/3 + 1e-25 exceeds it though equal in double
    base = ["A=0", "M=1", "C=0", "B=0", "rho=1"]
    assert run("check", "proxskip.thm3.1", "--set", "gamma=1/3", "mu=3", *base).exit_code == 0
    r = run("check", "proxskip.thm3.1", "--set",
            "gamma=10000000000000000000000001/30000000000000000000000000", "mu=3", *base)
    assert r.exit_code == 1


# ---------------------------------------------------------------------------------------------
# max-step / bound
# ---------------------------------------------------------------------------------------------
def test_max_step_json_and_binding() -> None:
    d = run_json("max-step", "proxskip.thm3.1", "--vary", "gamma", "--set", *SET31)
    assert {"theorem", "vary", "value", "binding"} <= set(d)
    assert d["theorem"] == "proxskip.thm3.1" and d["vary"] == "gamma"
    # L140: min{1/mu, 1/(2(A+MC))} = min{1, 1/6} = 1/6
    assert d["value"] == pytest.approx(1 / 6, rel=1e-12)
    assert d["binding"] == "gamma <= 1/(2(A+MC))"
    d = run_json("max-step", "proxskip.thm3.1", "--vary", "gamma", "--set", "mu=5", "A=0",
                 "M=1", "C=0", "B=0", "rho=1")
    # L140: A + MC = 0 leaves 1/mu = 1/5
    assert d["value"] == pytest.approx(0.2, rel=1e-12) and d["binding"] == "gamma <= 1/mu"
    # no feasible gamma when M <= B/rho (L140): value null, the set empty, exit 1
    d = run_json("max-step", "proxskip.thm3.1", "--vary", "gamma", "--set", "mu=1", "A=1",
                 "M=1", "C=1", "B=1", "rho=1/2", code=1)
    assert d["value"] is None and d["binding"] == "M > B/rho" and d["intervals"] == []


def test_max_step_human_value_pastes_into_check() -> None:
    # 1/(2*1000) = 1/2000: the printed value must itself pass `check` (exit 0)
    s = ["mu=1", "A=1000", "M=1", "C=0", "B=0", "rho=1"]
    r = run("max-step", "proxskip.thm3.1", "--vary", "gamma", "--set", *s)
    assert r.exit_code == 0
    assert "binding: gamma <= 1/(2(A+MC))" in flat(r.stdout)
    value = flat(r.stdout).split("largest gamma = ")[1].split()[0]
    assert float(value) == pytest.approx(1 / 2000, rel=1e-12)
    assert run("check", "proxskip.thm3.1", "--set", f"gamma={value}", *s).exit_code == 0


def test_bound_json_terms() -> None:
    d = run_json("bound", "proxskip.thm3.1", "--set", "gamma=1/6", *SET31, "p=1/2", "D_1=1",
                 "D_2=1/4", "V_0=2", "T=3")
    assert d["theorem"] == "proxskip.thm3.1"
    assert set(d["terms"]) == {"contraction", "neighborhood"}
    # L140: tau = min{1/6, 1/4, 1/2 - 1/4} = 1/6; L142: (5/6)^3 * 2 = 125/108,
    # gamma^2 (D_1 + M D_2)/tau = (1/36)(2)(6) = 1/3
    assert d["terms"]["contraction"] == pytest.approx(125 / 108, rel=1e-12)
    assert d["terms"]["neighborhood"] == pytest.approx(1 / 3, rel=1e-12)
    assert d["value"] == pytest.approx(161 / 108, rel=1e-12)
    r = run("bound", "proxskip.thm3.1", "--set", "gamma=1/6", *SET31, "p=1/2", "D_1=1",
            "D_2=1/4", "V_0=2", "T=3")
    assert r.exit_code == 0 and "contraction" in r.stdout and "neighborhood" in r.stdout


def test_bound_warns_when_conditions_fail() -> None:
    r = run("bound", "proxskip.thm3.1", "--set", "gamma=1", *SET31, "p=1/2", "D_1=1",
            "D_2=0", "V_0=1", "T=1")
    assert r.exit_code == 0
    assert "conditions violated" in flat(r.stderr) and "gamma <= 1/(2(A+MC))" in flat(r.stderr)


# ---------------------------------------------------------------------------------------------
# complexity
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("tid", ["proxskip.cor3.6", "proxskip.thm4.2", "proxskip.thm4.4"])
def test_complexity_kappa_and_agree(tid: str) -> None:
    d = run_json("complexity", tid)
    assert d["theorem"] == tid
    kappa_regimes = [g for g in d["regimes"]
                     if any("kappa" in (o["claimed"] or "") for o in g["orders"])]
    assert kappa_regimes, "a regime stated in terms of kappa (l = kappa L, L184)"
    for g in d["regimes"]:
        for o in g["orders"]:
            assert o["verdict"] == "agree", (g["name"], o)
    # L184 / L54: with l = kappa L (min-max), communications are O(kappa ln 1/eps)
    if tid != "proxskip.thm4.2":
        minmax = next(g for g in d["regimes"] if g["name"].startswith("min-max"))
        comm = next(o for o in minmax["orders"] if o["cost"] == "communications")
        assert comm["claimed"] == "kappa*log(1/epsilon)"
        assert comm["derived_order"] == "kappa*log(1/epsilon)"
    r = run("complexity", tid)
    assert r.exit_code == 0
    # the table and the note state the min-max orders in terms of kappa (κ), e.g. O(κ·ln(1/ε))
    assert "κ" in r.stdout or "kappa" in r.stdout
    assert re.search(r"ℓ̂? = κL|ℓ/μ = κ²|ℓ = κL", r.stdout), r.stdout
    assert "agree" in r.stdout and "disagree" not in r.stdout


# ---------------------------------------------------------------------------------------------
# bad input: exit 2 and a message naming the problem
# ---------------------------------------------------------------------------------------------
def test_unknown_id_suggests_closest() -> None:
    msg = bad("show", "proxskip.thm31")
    assert "unknown theorem id 'proxskip.thm31'" in msg and "'proxskip.thm3.1'" in msg
    msg = bad("check", "proxskip.cor36", "--set", "gamma=1")
    assert "ID" in msg and "proxskip.cor3.6" in msg
    msg = bad("complexity", "nothing-like-it")
    assert "fedbounds list" in msg


def test_unknown_and_missing_symbols() -> None:
    msg = bad("check", "proxskip.thm3.1", "--set", "gama=1/6", *SET31)
    assert "--set gama" in msg and "unknown symbol 'gama'" in msg and "did you mean 'gamma'" in msg
    msg = bad("check", "proxskip.thm3.1", "--set", "gamma=1/6", "mu=1", "A=1", "M=4", "C=1/2",
              "B=1")
    assert "missing value for rho" in msg and "(0, 1]" in msg
    msg = bad("bound", "proxskip.thm3.1", "--set", "gamma=1/6", *SET31)
    assert "missing value for" in msg and "D_1" in msg and "T" in msg
    msg = bad("check", "proxskip.thm3.1", "--set", "gamma=1/6", "tau=1", *SET31)
    assert "tau" in msg and "derived" in msg


@pytest.mark.parametrize("args,fragments", [
    (["check", "proxskip.thm3.1", "--set", "gamma=1/6", "mu=-1", "A=1", "M=4", "C=1/2", "B=1",
      "rho=1/2"], ["--set mu", "mu=-1 is outside its domain (0, inf)"]),
    (["check", "proxskip.cor3.5", "--set", "gamma=1/6", "mu=1", "L_g=-2", "epsilon=1",
      "sigma_star=0"], ["--set L_g", "L_g=-2 is outside its domain (0, inf)"]),
    (["check", "proxskip.thm3.1", "--set", "gamma=1/6", *SET31[:-1], "rho=0"],
     ["--set rho", "rho=0 is outside its domain (0, 1]"]),
    (["check", "proxskip.thm3.1", "--set", "gamma=1/6", *SET31[:-1], "rho=3/2"],
     ["--set rho", "rho=3/2 is outside its domain (0, 1]"]),
    (["bound", "proxskip.thm3.1", "--set", "gamma=1/6", *SET31, "p=2", "D_1=0", "D_2=0",
      "V_0=1", "T=1"], ["--set p", "p=2 is outside its domain (0, 1]"]),
    (["bound", "proxskip.thm3.1", "--set", "gamma=1/6", *SET31, "p=1", "D_1=0", "D_2=0",
      "V_0=1", "T=3/2"], ["--set T", "integer >= 1"]),
    (["check", "proxskip.thm3.1", "--set", "gamma=1..2", *SET31],
     ["--set gamma", "malformed number '1..2'", "fractions like 1/8"]),
    (["check", "proxskip.thm3.1", "--set", "gamma=1/0", *SET31],
     ["--set gamma", "division by zero"]),
    (["check", "proxskip.thm3.1", "--set", "gamma=1e999", *SET31],
     ["--set gamma", "outside the range of a double"]),
    (["check", "proxskip.thm3.1", "--set", "gamma", *SET31], ["--set", "expected NAME=VALUE"]),
    (["max-step", "proxskip.thm3.1", "--set", *SET31], ["--vary", "required"]),
    (["max-step", "proxskip.thm3.1", "--vary", "D_1", "--set", *SET31],
     ["--vary", "'D_1' does not appear in the conditions", "allowed:"]),
    (["max-step", "proxskip.thm3.1", "--vary", "gamma", "--set", "gamma=1", *SET31],
     ["--vary", "must not also be given"]),
    (["check", "proxskip.thm3.1", "--set", "gamma=[/x]", *SET31],
     ["--set gamma", "malformed number '[/x]'"]),
])
def test_bad_values_exit_2(args: list[str], fragments: list[str]) -> None:
    msg = bad(*args)
    for f in fragments:
        assert f in msg, (f, msg)


def test_json_errors_still_exit_2_with_empty_stdout() -> None:
    r = run("check", "proxskip.thm3.1", "--set", "gamma=abc", *SET31, "--json")
    assert r.exit_code == 2 and r.stdout == ""
    assert "malformed number 'abc'" in flat(r.stderr)
