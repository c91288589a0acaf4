"""What the report publishes of a measured number (:mod:`fedbounds.verify.publication`).

The promise: a number computed a few ulps apart on two machines is published the same, and a
published number is the measured one to the digits shown. Both are checked here on numbers
built to sit where rounding is hardest (decimal ties, values just above a floor)."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fedbounds.verify.claim import Figure, Verdict
from fedbounds.verify.publication import (
    CONFIG_DIGITS,
    DIGITS,
    EPS,
    FIGURE_DIGITS,
    TIE_DIGITS,
    Published,
    Publisher,
    publish,
    round_number,
)

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)


def _ulps(x: float, k: int) -> float:
    """``x`` moved by ``k`` ulps (towards +inf for k > 0)."""
    for _ in range(abs(k)):
        x = math.nextafter(x, math.inf if k > 0 else -math.inf)
    return x


@given(finite, st.integers(1, DIGITS))
def test_a_published_number_is_the_measured_one_to_its_last_digit(x: float, digits: int) -> None:
    # rounding to TIE_DIGITS and then to `digits` is off by at most half a unit of the last
    # digit shown plus half a unit of the TIE_DIGITS-th (the first rounding), plus the float
    # spacing of the result
    y = round_number(x, digits)
    if x == 0:
        assert y == 0
        return
    exponent = math.floor(math.log10(abs(x)))
    bound = 0.5 * 10.0 ** (exponent - digits + 1) * (1 + 10.0 ** (digits - TIE_DIGITS)) \
        + 4 * EPS * abs(x)
    assert abs(y - x) <= bound * (1 + 1e-12)
    assert len(Decimal(repr(y)).normalize().as_tuple().digits) <= max(digits, 1)


@given(st.integers(1, 10**10 - 1), st.integers(-30, 30), st.integers(-8, 8),
       st.integers(1, DIGITS))
def test_a_decimal_computed_a_few_ulps_apart_is_published_the_same(
        mantissa: int, exponent: int, ulps: int, digits: int) -> None:
    # a value that is a decimal of at most 10 digits in exact arithmetic (1/60·0.999999 =
    # 0.01666665 is a tie at 6 digits), computed 8 ulps or fewer away from it: 8 ulps are
    # below 2e-15 relative, far inside half a unit of the 12th digit, so the first rounding
    # lands on the decimal itself whichever side the computation fell
    exact = float(Decimal(mantissa).scaleb(exponent))
    assert round_number(_ulps(exact, ulps), digits) == round_number(exact, digits)


@pytest.mark.parametrize("exact", [0.01666665, 147.4375, 0.001953125, 2.5e-7, 1234565.0])
def test_ties_in_exact_arithmetic_round_one_way(exact: float) -> None:
    seen = {round_number(_ulps(exact, k), 6) for k in range(-4, 5)}
    assert len(seen) == 1


def test_the_floor_publishes_the_magnitude_bound_and_keeps_the_rest() -> None:
    # a value at the floor is published as the floor (a JSON number, a bound on its
    # magnitude), whatever its sign: the sign of rounding noise is noise too
    rule = Published(("gap",), why="zero in exact arithmetic", floor=2**10 * EPS)
    assert rule.number(2.2e-16) == 2.3e-13
    assert rule.number(-2.2e-16) == 2.3e-13
    assert rule.number(0.0) == 2.3e-13
    assert rule.number(2**10 * EPS) == 2.3e-13
    assert rule.number(3.00000001e-13) == 3e-13  # just above the floor: itself, six digits
    assert "2.3e-13" in rule.words
    assert math.isnan(rule.number(math.nan))  # non-finite values stay what they are
    assert rule.number(math.inf) == math.inf


def test_the_innermost_declared_key_wins_and_inputs_stay_as_typed() -> None:
    p = Publisher([Published(("rows",), why="solver accuracy", digits=3),
                   Published(("err",), why="zero in exact arithmetic", floor=1e-12)])
    evidence = {"rows": [{"value": 1.23456789, "err": 1e-15, "n": 12345678901234567890}],
                "value": 1.23456789, "err": 5e-13,
                "params": {"eta": 0.012345678901234, "T": 3}, "flag": True, "name": "x"}
    out = p.value(evidence)
    assert out["rows"][0]["value"] == 1.23  # under "rows": three digits
    assert out["rows"][0]["err"] == 1e-12  # "err" inside "rows": its own rule, at the floor
    assert out["rows"][0]["n"] == 12345678901234567890  # integers are never rounded
    assert out["value"] == 1.23457  # no rule: the default six digits
    assert out["err"] == 1e-12
    assert out["params"] == evidence["params"]  # inputs as typed
    assert out["flag"] is True and out["name"] == "x"
    assert p.value(np.float64(0.1234567891)) == 0.123457  # numpy scalars too


def test_publish_copies_the_verdict_and_clips_the_figure_at_its_floor() -> None:
    figure = Figure("t", "x", "y", {"err": ([1.0, 2.0, 3.0], [0.5, 1e-20, -3e-21])},
                    logy=True, hlines={"bound": 0.123456}, bands={})
    v = Verdict("toy.p1", "confirmed", 1.23456789e-3, "<= 1", 0.1234567891234,
                {"spread": 4e-16, "x": [0.1234567891]}, figure,
                config={"set": {"eta": 0.01234567890123456}, "rounds": 10**20})
    rules = [Published(("figure", "spread"), why="zero in exact arithmetic", floor=1e-12)]
    pub = publish(v, rules)
    assert pub.statistic == 0.00123457
    assert pub.predicted == "<= 1"
    assert pub.tolerance == 0.123457
    assert pub.evidence == {"spread": 1e-12, "x": [0.123457]}
    assert pub.config == {"set": {"eta": round_number(0.01234567890123456, CONFIG_DIGITS)},
                          "rounds": 10**20}
    assert pub.figure.series["err"] == ([1.0, 2.0, 3.0], [0.5, 1e-12, 1e-12])  # log axis
    assert pub.figure.hlines == {"bound": round_number(0.123456, FIGURE_DIGITS)}
    linear = publish(Verdict("toy.p1", "confirmed", 0.0, None, None, {},
                             Figure("t", "x", "y", {"e": ([1.0], [1e-20])}, logy=False)),
                     rules)
    assert linear.figure.series["e"] == ([1.0], [0.0])  # linear axis: at 0
    # the verdict the store keeps is not touched
    assert v.statistic == 1.23456789e-3 and v.evidence["spread"] == 4e-16
    assert v.figure.series["err"][1] == [0.5, 1e-20, -3e-21]


@pytest.mark.parametrize("bad, message", [
    (dict(keys="gap", why="w", floor=1e-12), "tuple of names"),
    (dict(keys=(), why="w", floor=1e-12), "tuple of names"),
    (dict(keys=("gap",), why="w", digits=7), "digits"),
    (dict(keys=("gap",), why="w", digits=0), "digits"),
    (dict(keys=("gap",), why="w", digits=True), "digits"),
    (dict(keys=("gap",), why="w", floor=-1.0), "floor"),
    (dict(keys=("gap",), why="w", floor=math.inf), "floor"),
    (dict(keys=("gap",), why="w"), "nothing beyond the default"),
    (dict(keys=("gap",), why=" ", floor=1e-12), "say why"),
])
def test_a_declaration_that_says_nothing_or_too_much_is_refused(bad: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Published(**bad)


def test_a_key_declared_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="declared twice"):
        Publisher([Published(("a",), why="w", digits=3), Published(("a",), why="v", digits=2)])


def test_every_claims_declarations_are_well_formed_and_distinct() -> None:
    from fedbounds.verify import catalog

    for spec in catalog.claims().values():
        Publisher(spec.published)  # refuses a key declared twice
        for rule in spec.published:
            assert isinstance(rule, Published), spec.id
            assert "machine" not in rule.why.lower() and "kernel" not in rule.why.lower(), (
                f"{spec.id}: a reason derives from the computation, not from where it ran")


def test_a_statistic_at_its_floor_is_named_so_and_the_declarations_travel() -> None:
    from fedbounds.verify.publication import at_floor, declarations

    rules = [Published(("statistic",), why="zero in exact arithmetic", floor=1e-12)]
    assert at_floor(3e-16, rules, "statistic") == 1e-12  # the pages show "≤ 1e-12"
    assert at_floor(2e-12, rules, "statistic") is None  # above it: the number itself
    assert at_floor(3e-16, [], "statistic") is None  # no floor declared: never
    assert at_floor(None, rules, "statistic") is None
    assert declarations(rules) == [{"keys": ["statistic"], "digits": DIGITS, "floor": 1e-12,
                                    "why": "zero in exact arithmetic"}]
