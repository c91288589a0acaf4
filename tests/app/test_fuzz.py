"""Fuzz test of the command line: every command, hostile inputs, in-process.

Hypothesis draws arguments for every command — valid ids and near misses, numbers from 1e-320 to
1e308 and malformed or hostile text, every algorithm × problem pair — and each invocation must:

* exit 0, 1 (``check``: infeasible) or 2 (bad input); never 3, never a traceback;
* on exit 2, print a message that names the argument it refuses;
* print JSON that parses without NaN/Infinity tokens;
* for ``check``, agree condition by condition with an exact rational re-evaluation
  (:func:`exact_holds`, independent of the engine's float path);
* for ``max-step``, answer a value that ``check`` accepts, as the float and as its decimal repr.

The default profile runs a few hundred inputs; ``FUZZ_EXAMPLES`` (per command) scales the long
profile behind the ``slow`` marker (>= 10,000 inputs in all), which also prints the outcome counts.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fedbounds import registry
from fedbounds.app.cli import app
from fedbounds.verify import catalog

THEOREMS = registry.theorems()
THEOREM_IDS = sorted(THEOREMS)
ALGORITHMS = catalog.algorithms()
PROBLEMS = catalog.problems()
COUNTEREXAMPLES = catalog.counterexamples()
CLAIM_IDS = sorted(catalog.claims())

OUTCOMES: Counter = Counter()  # (command, exit code) -> count, printed by the long profile
runner = CliRunner()

# an exit-2 message names what it refuses: "error: ARGUMENT: ..." (our BadInput) or click's
# usage errors ("Invalid value for '--rounds'", "Missing argument 'ID'", "No such option: --x")
_NAMED = re.compile(r"error: (--?[A-Za-z][\w-]*|[A-Z][A-Z_|\[\]]*|[A-Za-z][\w.]*\.py)\b"
                    r"|(Invalid value|Missing (argument|option)|No such option|Got unexpected"
                    r" extra argument)", re.IGNORECASE)

HOSTILE = ["", " ", "nan", "NaN", "inf", "-inf", "Infinity", "1e", "e5", "1//2", "1/0", "0/0",
           "1/2/3", "0x10", "1_000", "١٢", "1e99999", "1e-99999", "--", "-", "+", ".", "1..2",
           "$(id)", "`id`", "'; DROP TABLE t; --", "<script>x</script>", "{{7*7}}", "%s%n",
           "../../etc/passwd", "\x00", "1e308*10", "2**64", "sqrt(2)", "pi", "True", "None",
           "9" * 500]


# ---- strategies ------------------------------------------------------------------------------
def _near_misses(words: list[str]) -> st.SearchStrategy[str]:
    """Ids with one character dropped, doubled, changed in case, or a suffix added."""
    def mutate(word: str, k: int, how: int) -> str:
        k %= max(len(word), 1)
        return [word[:k] + word[k + 1:], word[:k] + word[k] * 2 + word[k:],
                word.swapcase(), word + ".x", word.replace(".", "_"), " " + word][how % 6]
    return st.builds(mutate, st.sampled_from(words), st.integers(0, 60), st.integers(0, 5))


def ids(words: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(words), st.sampled_from(words), _near_misses(words),
                     st.sampled_from(HOSTILE), st.text(max_size=12))


def _scientific(mantissa: float, exponent: int, negative: bool) -> str:
    return f"{'-' if negative else ''}{mantissa:.6g}e{exponent}"


numbers = st.one_of(
    st.builds(_scientific, st.floats(1, 9.99), st.integers(-320, 308), st.booleans()),
    st.builds(_scientific, st.floats(1, 9.99), st.integers(-6, 6), st.just(False)),
    st.builds(lambda p, q: f"{p}/{q}", st.integers(-5, 100), st.integers(1, 1000)),
    st.integers(-3, 10**6).map(str),
    st.sampled_from(["0", "1", "1/2", "1/3", "2", "1e-3", "0.5", "1.5", "-1", "1e308", "1e-308",
                     "2.3e-308", "1e-320", "5e-324", "1.7976931348623157e308"]),
    st.sampled_from(HOSTILE),
)


def domain_value(name: str, thm) -> st.SearchStrategy[str]:
    """Values mostly inside the symbol's declared domain, spread over 600 decades."""
    dom = thm.notation.spec(name).domain
    if dom.integer:
        lo = int(dom.lo) if math.isfinite(dom.lo) else -10
        inside = st.integers(lo, lo + 10**6).map(str)
    else:
        hi = dom.hi if math.isfinite(dom.hi) else None
        if hi is not None and hi <= 1:
            inside = st.builds(lambda p, q: str(Fraction(p, q) * Fraction(hi)),
                               st.integers(1, 997), st.integers(997, 1000))
        else:
            inside = st.builds(_scientific, st.floats(1, 9.99), st.integers(-320, 308),
                               st.just(False))
    return st.one_of(inside, inside, inside, numbers)


def valid_value(name: str, thm) -> st.SearchStrategy[str]:
    """A value inside the symbol's domain and the parser's range (normal doubles, exact
    fractions), edges included where the domain is closed."""
    dom = thm.notation.spec(name).domain
    if dom.integer:
        lo = int(dom.lo) if math.isfinite(dom.lo) else -10
        hi = int(dom.hi) if math.isfinite(dom.hi) else lo + 10**6
        return st.integers(lo + (1 if dom.lo_open and lo == dom.lo else 0), hi).map(str)
    if math.isfinite(dom.hi) and dom.hi <= 1:
        return st.builds(lambda p, q: str(Fraction(p, q) * Fraction(dom.hi)),
                         st.integers(1, 1000), st.integers(1000, 1001))
    edges = [str(Fraction(dom.lo))] if math.isfinite(dom.lo) and not dom.lo_open else []
    positive = st.builds(_scientific, st.floats(1, 9.99), st.integers(-300, 300), st.just(False))
    moderate = st.builds(lambda p, q: f"{p}/{q}", st.integers(1, 10**4), st.integers(1, 10**4))
    return st.one_of(positive, moderate, moderate, *([st.sampled_from(edges)] if edges else []))


@st.composite
def theorem_call(draw, command: str) -> list[str]:
    """``check``/``bound``/``max-step`` argument lists: an id and NAME=VALUE pairs; half of
    them valid (a known id, every value inside its domain), half hostile."""
    if draw(st.booleans()):
        return draw(valid_theorem_call(command))
    theorem_id = draw(ids(THEOREM_IDS))
    thm = THEOREMS.get(theorem_id)
    names = ((thm.condition_inputs() if command != "bound" else thm.inputs()) if thm else []) \
        or ["x"]
    argv = [command, theorem_id, "--json"]
    vary = None
    if command == "max-step":
        vary = draw(st.one_of(st.sampled_from(names), st.sampled_from(names), ids(names)))
        argv += ["--vary", vary]
    pairs = []
    for name in names:
        if name == vary or draw(st.integers(0, 40)) == 0:  # sometimes a value is missing
            continue
        value = draw(domain_value(name, thm)) if thm and name in thm.notation else draw(numbers)
        pairs.append(f"{name}={value}")
    if draw(st.integers(0, 15)) == 0:
        pairs.append(f"{draw(ids(names))}={draw(numbers)}")  # an unknown or repeated name
    return argv + (["--set", *pairs] if pairs else [])


@st.composite
def valid_theorem_call(draw, command: str) -> list[str]:
    theorem_id = draw(st.sampled_from(THEOREM_IDS))
    thm = THEOREMS[theorem_id]
    names = thm.condition_inputs() if command != "bound" else thm.inputs()
    argv = [command, theorem_id, "--json"]
    vary = None
    if command == "max-step" and names:
        vary = draw(st.sampled_from(names))
        argv += ["--vary", vary]
    pairs = [f"{name}={draw(valid_value(name, thm))}" for name in names if name != vary]
    if draw(st.booleans()):  # values violating a relation (μ ≤ L_f, P ≤ n …) evaluated anyway
        argv.append("--ignore-relations")
    return argv + (["--set", *pairs] if pairs else [])


def param_value(param) -> st.SearchStrategy[str]:
    """A value inside a declared parameter's domain."""
    if param.kind is str:
        return st.sampled_from(param.choices or ("x",))
    low = param.low if param.low is not None else -10.0
    high = param.high if param.high is not None else low + 100.0
    high = min(high, low + 100.0)
    if param.kind is int:
        return st.integers(math.ceil(low) + (1 if param.low_open and low == int(low) else 0),
                           max(math.floor(high), math.ceil(low) + 1)).map(str)
    return st.floats(low, high, exclude_min=param.low_open,
                     exclude_max=param.high_open).map(repr)


@st.composite
def run_call(draw) -> list[str]:
    """``run`` argument lists: half a declared pair with values inside their domains, small
    sizes and valid seeds; half hostile."""
    if draw(st.booleans()):
        algorithm = draw(st.sampled_from(sorted(ALGORITHMS)))
        declared = ALGORITHMS[algorithm].problems or tuple(sorted(PROBLEMS))
        problem = draw(st.sampled_from(sorted(declared)))
        params = {**PROBLEMS[problem].params, **ALGORITHMS[algorithm].params}
        pairs = [f"{name}={draw(param_value(p))}" for name, p in sorted(params.items())
                 if p.kind is not int and draw(st.integers(0, 3)) == 0]
        return (["run", algorithm, "--problem", problem, "--rounds", str(draw(st.integers(1, 3))),
                 "--seed", str(draw(st.integers(0, 5))), "--json"]
                + (["--set", *pairs] if pairs else []))
    algorithm = draw(st.one_of(st.sampled_from(sorted(ALGORITHMS)), ids(sorted(ALGORITHMS))))
    problem = draw(st.one_of(st.sampled_from(sorted(PROBLEMS)), ids(sorted(PROBLEMS))))
    params = dict(ALGORITHMS[algorithm].params) if algorithm in ALGORITHMS else {}
    params.update(PROBLEMS[problem].params if problem in PROBLEMS else {})
    pairs = [f"{name}={draw(numbers)}" for name in sorted(params) if draw(st.integers(0, 4)) == 0]
    rounds = draw(st.one_of(st.integers(1, 3), st.sampled_from([0, -1, 10**9, 10**12])))
    seeds = draw(st.one_of(st.just(1), st.integers(1, 2), st.sampled_from([0, 10**9])))
    seed = draw(st.one_of(st.integers(0, 5), st.sampled_from([-1, 2**63, 2**64, 10**30])))
    argv = ["run", algorithm, "--problem", problem, "--rounds", str(rounds), "--seeds",
            str(seeds), "--seed", str(seed), "--json"]
    return argv + (["--set", *pairs] if pairs else [])


@st.composite
def counterexample_call(draw) -> list[str]:
    """Half a known counterexample with every declared value inside its domain and a few
    rounds; half hostile (near-miss ids and cases, missing or malformed values, huge rounds)."""
    if draw(st.booleans()):
        theorem_id = draw(st.sampled_from(sorted(COUNTEREXAMPLES)))
        ce = COUNTEREXAMPLES[theorem_id]
        pairs = [f"{name}={draw(param_value(p))}" for name, p in sorted(ce.params.items())]
        return (["counterexample", theorem_id, "--case", draw(st.sampled_from(ce.cases)),
                 "--rounds", str(draw(st.integers(1, 30))), "--json", "--set", *pairs])
    theorem_id = draw(ids(sorted(COUNTEREXAMPLES)))
    ce = COUNTEREXAMPLES.get(theorem_id)
    case = draw(st.one_of(st.sampled_from(ce.cases), ids(list(ce.cases)))) if ce else "I"
    pairs = [f"{name}={draw(numbers)}" for name in (ce.params if ce else ["eta"])
             if draw(st.integers(0, 2)) == 0]
    rounds = draw(st.one_of(st.integers(1, 5), st.sampled_from([0, 10**9])))
    return (["counterexample", theorem_id, "--case", case, "--rounds", str(rounds), "--json"]
            + (["--set", *pairs] if pairs else []))


@st.composite
def other_call(draw) -> list[str]:
    """``show`` (valid ids and near misses), ``complexity`` and ``verify`` with bad input only
    (their valid runs take seconds each and are tested elsewhere)."""
    which = draw(st.integers(0, 3))
    if which == 0:
        return ["show", draw(ids(THEOREM_IDS)), "--json"]
    if which == 1:
        return ["complexity", draw(_near_misses(THEOREM_IDS)), "--json"]
    if which == 2:
        return ["verify", draw(_near_misses(CLAIM_IDS)), "--json"]
    return ["verify", draw(st.sampled_from(CLAIM_IDS)), "--json",
            *draw(st.sampled_from([["--seed", "-1"], ["--seed", str(2**64)],
                                   ["--profile", "fast"], ["--backend", "threads"]]))]


# ---- the oracle ------------------------------------------------------------------------------
def exact_holds(thm, values: dict[str, Fraction]) -> dict[str, bool | None]:
    """Each condition decided in exact arithmetic (rationals, then 100-digit evaluation for
    irrational values); None where the exact value is undefined (a division by zero, or a
    Min/Max of one)."""
    symbols = {s.name: s for c in thm.conditions for side in (c.rel.lhs, c.rel.rhs)
               for s in thm.expand(side).free_symbols}
    subs = {s: sp.Rational(values[n].numerator, values[n].denominator)
            for n, s in symbols.items()}
    out: dict[str, bool | None] = {}
    for c in thm.conditions:
        try:  # Min/Max of an undefined value (zoo, nan) raises while it is built
            lhs, rhs = (thm.expand(side).xreplace(subs) for side in (c.rel.lhs, c.rel.rhs))
        except (ValueError, TypeError, ZeroDivisionError):
            out[c.name] = None
            continue
        margin = (rhs - lhs) if isinstance(c.rel, (sp.Le, sp.Lt)) else (lhs - rhs)
        margin = sp.nsimplify(margin) if margin.has(sp.Float) else margin
        if margin.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            out[c.name] = None
            continue
        value = margin if margin.is_Rational else margin.evalf(100)
        if not value.is_real or not value.is_number:
            out[c.name] = None
            continue
        strict = isinstance(c.rel, (sp.Lt, sp.Gt))
        out[c.name] = bool(value > 0) if strict else bool(value >= 0)
    return out


def _values(argv: list[str]) -> dict[str, Fraction]:
    from fedbounds.parse import parse_assignments
    return parse_assignments(argv[argv.index("--set") + 1:] if "--set" in argv else [])


# ---- the invariants --------------------------------------------------------------------------
def invoke(argv: list[str]):
    result = runner.invoke(app, argv)
    OUTCOMES[(argv[0], result.exit_code)] += 1
    shown = " ".join(argv)[:300]
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{shown}: {type(result.exception).__name__}: {result.exception}")
    assert result.exit_code in (0, 1, 2), f"{shown}: exit {result.exit_code}: {result.output}"
    assert "Traceback" not in result.output, f"{shown}: {result.output}"
    if result.exit_code == 2:
        assert _NAMED.search(result.output), f"{shown}: exit 2 names no argument: {result.output}"
    doc = None
    if result.exit_code in (0, 1) and "--json" in argv:
        text = result.stdout
        doc = json.loads(text, parse_constant=lambda token: pytest.fail(
            f"{shown}: {token} in JSON"))
    return result, doc


def check_invariants(argv: list[str]) -> None:
    result, doc = invoke(argv)
    if doc is None:
        return
    command = argv[0]
    if command == "run":
        summary = doc["summary"]
        if summary.get("diverged"):
            assert isinstance(summary["diverged_at"], int) and summary["reason"], argv
    if command == "check":
        assert doc["feasible"] == (result.exit_code == 0)
        exact = exact_holds(THEOREMS[doc["theorem"]], _values(argv))
        for row in doc["conditions"]:
            if exact[row["name"]] is not None:
                assert row["holds"] == exact[row["name"]], (
                    f"{' '.join(argv)}: {row['name']} holds={row['holds']}, exact "
                    f"{exact[row['name']]}")
    if command == "max-step" and doc.get("value") is not None:
        value, vary = doc["value"], doc["vary"]
        others = [a for a in argv[argv.index("--set") + 1:] if not a.startswith(f"{vary}=")] \
            if "--set" in argv else []
        others += [f"{k}={v}" for k, v in (doc.get("chosen") or {}).items()]  # e.g. ProxSkip's M
        flags = ["--ignore-relations"] if "--ignore-relations" in argv else []
        for text in (repr(value), str(Fraction(value))):
            again, recheck = invoke(["check", doc["theorem"], "--json", *flags, "--set",
                                     f"{vary}={text}", *others])
            assert again.exit_code == 0, (f"{' '.join(argv)} answered {value!r}, which check "
                                          f"rejects: {again.output[:2000]}")


# ---- profiles --------------------------------------------------------------------------------
def _profile(examples: int):
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


SHORT = int(os.environ.get("FUZZ_SHORT", "30"))
LONG = int(os.environ.get("FUZZ_EXAMPLES", "1700"))  # per command: 6 x 1700 >= 10,000
CALLS = {"check": theorem_call("check"), "bound": theorem_call("bound"),
         "max-step": theorem_call("max-step"), "run": run_call(),
         "counterexample": counterexample_call(), "other": other_call()}


@pytest.mark.parametrize("command", list(CALLS))
def test_fuzz_short(command: str) -> None:
    _profile(SHORT)(given(CALLS[command])(check_invariants))()


@pytest.mark.slow
@pytest.mark.parametrize("command", list(CALLS))
def test_fuzz_long(command: str) -> None:
    _profile(LONG)(given(CALLS[command])(check_invariants))()
    counts = {f"{name} exit {code}": n for (name, code), n in sorted(OUTCOMES.items())}
    print(f"\nfuzz outcomes so far ({sum(OUTCOMES.values())} invocations): {counts}")
