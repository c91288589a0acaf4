"""User-typed numbers and NAME=VALUE pairs: exact parsing, precise rejections, and proof that
nothing a user types reaches ``eval``, ``sympify`` or sympy's string parser (DESIGN "CLI")."""

from __future__ import annotations

import builtins
import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
import sympy.parsing.sympy_parser
from typer.testing import CliRunner

from fedbounds.errors import BadInput
from fedbounds.parse import parse_assignments, parse_number


@pytest.mark.parametrize("text,expected", [
    ("10", Fraction(10)),
    ("0", Fraction(0)),
    ("-3", Fraction(-3)),
    ("+2", Fraction(2)),
    ("0.25", Fraction(1, 4)),
    (".5", Fraction(1, 2)),
    ("5.", Fraction(5)),
    ("1e-3", Fraction(1, 1000)),
    ("2.5E+4", Fraction(25000)),
    ("1/8", Fraction(1, 8)),
    (" 1 / 8 ", Fraction(1, 8)),
    ("3/2e3", Fraction(3, 2000)),
    ("0.1", Fraction(1, 10)),  # exact decimal, not the double 0.1000000000000000055...
    ("1e308", Fraction(10) ** 308),
    ("1/3", Fraction(1, 3)),
])
def test_accepts(text: str, expected: Fraction) -> None:
    assert parse_number(text) == expected
    assert isinstance(parse_number(text), Fraction)


@pytest.mark.parametrize("text,fragment", [
    ("1+1", "malformed number"),
    ("__import__('os')", "malformed number"),
    ("__import__('os').system('true')", "malformed number"),
    ("abc", "malformed number"),
    ("", "malformed number"),
    ("1/2/3", "malformed number"),
    ("2**3", "malformed number"),
    ("1e", "malformed number"),
    ("nan", "malformed number"),
    ("inf", "malformed number"),
    ("0x10", "malformed number"),
    ("1_000", "malformed number"),
    ("sqrt(2)", "malformed number"),
    ("pi", "malformed number"),
    ("\u0661", "malformed number"),  # Arabic-Indic digit one: ASCII digits only
    ("1/0", "division by zero"),
    ("3/0.0", "division by zero"),
    ("1e999999999", "exponent too large"),
    ("1" * 500, "too long"),
    ("1e309", "outside the range of a double"),
    ("1e-400", "outside the range of a double"),
])
def test_rejects(text: str, fragment: str) -> None:
    with pytest.raises(BadInput) as e:
        parse_number(text, "--set gamma")
    assert e.value.argument == "--set gamma"
    assert fragment in e.value.message
    assert len(e.value.message) < 300  # a huge input is not echoed in full


def test_assignments_and_errors() -> None:
    assert parse_assignments(["gamma=1/8", "mu = 2", "L_g=1e-3"]) == {
        "gamma": Fraction(1, 8), "mu": Fraction(2), "L_g": Fraction(1, 1000)}
    assert parse_assignments(["a=1", "a=2"]) == {"a": Fraction(2)}  # later overrides
    assert parse_assignments(None) == {}
    with pytest.raises(BadInput, match="expected NAME=VALUE") as e:
        parse_assignments(["gamma"])
    assert e.value.argument == "--set"
    with pytest.raises(BadInput, match="expected NAME=VALUE"):
        parse_assignments(["1x=3"])
    with pytest.raises(BadInput, match="expected NAME=VALUE"):
        parse_assignments(["a.b=3"])
    with pytest.raises(BadInput) as e:
        parse_assignments(["mu=1+1"])
    assert e.value.argument == "--set mu"


# ---------------------------------------------------------------------------------------------
# nothing typed reaches eval / sympify / parse_expr
# ---------------------------------------------------------------------------------------------
USER_TOKENS = ["0.0123456", "3.21", "17/13", "1+1", "__import__", "os.system", "pwned"]


class Spy:
    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def offending(self) -> list[tuple[str, object]]:
        out = []
        for kind, arg in self.calls:
            texts = [arg] if isinstance(arg, str) else [
                c for c in getattr(arg, "co_consts", ()) if isinstance(c, str)] + list(
                getattr(arg, "co_names", ()))
            if any(tok in t for t in texts for tok in USER_TOKENS):
                out.append((kind, arg))
        return out


@pytest.fixture()
def spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    s = Spy()
    real_sympify, real_eval = sympy.sympify, builtins.eval
    real_parse = sympy.parsing.sympy_parser.parse_expr

    def sympify(a, *args, **kw):
        if isinstance(a, str):
            s.calls.append(("sympify", a))
        return real_sympify(a, *args, **kw)

    def parse_expr(a, *args, **kw):
        s.calls.append(("parse_expr", a))
        if any(tok in str(a) for tok in USER_TOKENS):
            raise AssertionError(f"parse_expr called with user text {a!r}")
        return real_parse(a, *args, **kw)

    def eval_(src, globals_=None, locals_=None):
        # keep eval's implicit caller scope (typing evaluates annotations this way)
        frame = sys._getframe(1)
        if globals_ is None:
            globals_, locals_ = frame.f_globals, frame.f_locals if locals_ is None else locals_
        s.calls.append(("eval", src))
        if isinstance(src, str) and any(tok in src for tok in USER_TOKENS):
            raise AssertionError(f"eval called with user text {src!r}")
        return real_eval(src, globals_, locals_)

    monkeypatch.setattr(sympy, "sympify", sympify)
    # the module (sympy.core.sympify the attribute is the function itself)
    monkeypatch.setattr(sys.modules["sympy.core.sympify"], "sympify", sympify)
    monkeypatch.setattr(sympy.parsing.sympy_parser, "parse_expr", parse_expr)
    monkeypatch.setattr(builtins, "eval", eval_)
    return s


SET31 = ["mu=3.21", "A=17/13", "M=4", "C=1/2", "B=1", "rho=1/2"]


def test_user_input_never_reaches_eval_or_sympify(spy: Spy, tmp_path: Path) -> None:
    from fedbounds.app.cli import app

    runner = CliRunner()
    marker = tmp_path / "pwned"
    runs = [
        (["check", "proxskip.thm3.1", "--set", "gamma=0.0123456", *SET31, "--json"], 0),
        (["max-step", "proxskip.thm3.1", "--vary", "gamma", "--set", *SET31, "--json"], 0),
        (["max-step", "proxskip.thm3.1", "--vary", "gamma", "--set", *SET31], 0),
        (["bound", "proxskip.thm3.1", "--set", "gamma=0.0123456", *SET31, "p=1/2", "D_1=1",
          "D_2=0", "V_0=1", "T=3", "--json"], 0),
        (["bound", "proxskip.thm3.1", "--set", "gamma=0.0123456", *SET31, "p=1/2", "D_1=1",
          "D_2=0", "V_0=1", "T=3"], 0),
        (["complexity", "proxskip.cor3.6", "--json"], 0),
        (["complexity", "proxskip.thm4.4"], 0),
        (["check", "proxskip.thm3.1", "--set", "gamma=1+1", *SET31], 2),
        (["check", "proxskip.thm3.1", "--set",
          f"gamma=__import__('os').system('touch {marker}')", *SET31], 2),
        (["bound", "proxskip.thm3.1", "--set", "gamma=__import__('os')", *SET31], 2),
        (["max-step", "proxskip.thm3.1", "--vary", "__import__('os')", "--set", *SET31], 2),
        (["check", "__import__('os').system('true')", "--set", *SET31], 2),
    ]
    for args, code in runs:
        r = runner.invoke(app, args)
        assert r.exit_code == code, (args, r.stdout, r.stderr)
    assert not marker.exists()
    # sympy may parse its own constant strings (e.g. unit prefixes on import); none of the
    # strings or code objects given to eval / sympify / parse_expr holds user-typed text
    assert spy.calls, "the spies were not reached at all"
    assert spy.offending() == []


def test_boundary_modules_have_no_eval_or_sympify() -> None:
    root = Path(__file__).resolve().parents[2] / "fedbounds"
    pattern = re.compile(r"\b(eval|exec|sympify|parse_expr|S)\s*\(|\bsp\.S\(|sympy\.S\(")
    for name in ["parse.py", "engine.py", "app/cli.py", "app/numeric.py", "registry.py", "errors.py"]:
        src = (root / name).read_text()
        hits = [m.group(0) for m in pattern.finditer(src)]
        assert hits == [], (name, hits)
