"""What a claim's measure function returns: the statistic and its interval, the series, the
evidence, the run that reproduces it (:class:`RunConfig`), side checks and the runs' theorem
inputs (:class:`verify.conditions.RunConditions`). Decided by :mod:`verify.rules`; wrapped into
a verdict by :func:`verify.claim.evaluate`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .conditions import RunConditions

Params = Mapping[str, Any]


@dataclass(frozen=True)
class RunConfig:
    """The ``fedbounds run`` call that reproduces a claim's experiment (or one configuration of a
    sweep: ``sweeps`` names the swept values). ``fedbounds run`` accepts it verbatim."""

    algorithm: str
    problem: str
    set: Mapping[str, float | int] = field(default_factory=dict)
    rounds: int = 100
    seeds: int = 1
    seed: int = 0  # the noise seed (--seed)
    sweeps: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    instance_seed: int = 0  # the instance seed (--instance-seed)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"algorithm": self.algorithm, "problem": self.problem,
                               "set": dict(self.set), "rounds": self.rounds,
                               "seeds": self.seeds, "seed": self.seed,
                               "instance_seed": self.instance_seed}
        if self.sweeps:
            out["sweeps"] = {k: list(v) for k, v in self.sweeps.items()}
        return out

    def command(self) -> str:
        line = f"fedbounds run {self.algorithm} --problem {self.problem}"
        if self.set:
            line += " --set " + " ".join(f"{k}={_num(v)}" for k, v in self.set.items())
        line += (f" --rounds {self.rounds} --seeds {self.seeds} --seed {self.seed}"
                 f" --instance-seed {self.instance_seed}")
        if self.sweeps:
            line += "  # swept: " + "; ".join(f"{k} in {list(v)}" for k, v in self.sweeps.items())
        return line


def _num(x: Any) -> str:
    return repr(x) if isinstance(x, float) else str(x)


@dataclass(frozen=True)
class Check:
    """A side condition of a claim's decision: when it fails the verdict becomes ``on_fail``
    (``refuted`` overrides any verdict but ``diverged``; ``inconclusive`` overrides
    ``confirmed``)."""

    name: str
    passed: bool
    on_fail: Literal["refuted", "inconclusive"] = "refuted"


@dataclass
class Measurement:
    """What a measure function computed: the statistic (with its confidence interval where it
    has one), a reference value the rule may compare against when the run computes it (e.g. a
    theorem's bound at the instance's constants), the figure's series and reference lines, the
    evidence, the run that reproduces it, side checks, and ``diverged`` / ``inconclusive``
    reasons when the experiment blew up or gave too little signal. ``bands`` (label → (x,
    lower, upper)) are confidence bands drawn around series (figure only: no rule reads them)."""

    statistic: float | None
    interval: tuple[float, float] | None = None
    reference: float | None = None
    series: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict)
    hlines: dict[str, float] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)
    run: RunConfig | None = None
    checks: Sequence[Check] = ()
    diverged: str | None = None
    inconclusive: str | None = None
    predicted: float | str | None = None  # shown instead of the rule's value when given
    tolerance: float | str | None = None
    bands: dict[str, tuple[list[float], list[float], list[float]]] = field(default_factory=dict)
    conditions: Sequence[RunConditions] = ()  # each run: the theorem tested, its inputs there

