"""Algorithms as one unit (DESIGN "How things should be built"; optax's transforms).

An :class:`Algorithm` declares its name, paper, parameters (with defaults, declared once), the
problems it runs on, and a ``build(problem, config) -> Method`` that binds hyperparameters to a
problem instance. A :class:`Method` is the optax-style pair of pure functions over a named state
(a ``NamedTuple`` per algorithm, arrays shaped ``(replicas, clients, dim)``):

* ``init(replicas, seed) -> state`` (``seed`` only for an initial state that is itself random,
  e.g. SAGDA Option I's control variates at z_0; most algorithms ignore it)
* ``step(state, draws, t) -> (state, communicated)`` with ``draws`` one value per named random
  stream and ``communicated`` a ``(replicas,)`` array (1 where the replica communicated),

plus its random ``streams`` (name → ``draw(rng, replicas)``) and what it ``observes`` (metric
name → ``state -> (replicas,)``). Every algorithm runs through :func:`simulate` (the one
executor) and :func:`run_document` (the one DESIGN "Runs" document builder).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import numpy as np

from fedbounds.errors import BadInput

from .executor import Draw, Trace, execute

S = TypeVar("S")
Observe = Callable[[Any], np.ndarray]


def _show(value: Any) -> str:
    """A user's value as typed: 1/3 for a fraction, '...' for a string."""
    return repr(value) if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class Param:
    """A declared parameter: default (``None``: computed from the problem, e.g. a theorem's
    schedule), meaning, and kind (``int`` values must be integers, never truncated)."""

    default: float | int | str | None
    doc: str
    kind: type = float
    low: float | None = None  # lower limit (inclusive unless low_open)
    high: float | None = None  # inclusive upper limit
    choices: tuple[str, ...] = ()
    low_open: bool = False  # True: the value must be strictly above ``low`` (e.g. η > 0)

    def check(self, name: str, value: Any) -> Any:
        """The value if it is allowed, else :class:`BadInput` naming the parameter."""
        if self.kind is str:
            if not isinstance(value, str) or (self.choices and value not in self.choices):
                raise BadInput(f"--set {name}", f"{name} takes one of "
                               f"{', '.join(self.choices)}; got {_show(value)}")
            return value
        try:
            x = float(value)
        except (TypeError, ValueError):
            raise BadInput(f"--set {name}", f"{name} takes a number; got {_show(value)}") from None
        if not math.isfinite(x):
            raise BadInput(f"--set {name}", f"{name} must be finite; got {_show(value)}")
        if self.kind is int:
            if x != int(x):
                raise BadInput(f"--set {name}", f"{name} takes an integer; got {_show(value)}")
            x = int(x)
        if self.low is not None and (x < self.low or (self.low_open and x == self.low)):
            op = ">" if self.low_open else ">="
            raise BadInput(f"--set {name}", f"{name} must be {op} {self.low:g}; got {_show(value)}")
        if self.high is not None and x > self.high:
            raise BadInput(f"--set {name}", f"{name} must be <= {self.high:g}; got {_show(value)}")
        return x


@dataclass(frozen=True)
class Method(Generic[S]):
    """An algorithm bound to a problem and its hyperparameters: pure ``init`` and ``step``."""

    init: Callable[[int, int], S]  # (replicas, seed) -> state
    step: Callable[[S, Mapping[str, Any], int], tuple[S, np.ndarray]]
    observe: Mapping[str, Observe]
    streams: Mapping[str, Draw] = field(default_factory=dict)
    config: Mapping[str, Any] = field(default_factory=dict)  # resolved hyperparameters
    constants: Mapping[str, float] = field(default_factory=dict)  # exact constants it uses
    samples_per_step: float = 1.0  # stochastic gradients per client per step
    iterate: Callable[[S], np.ndarray] | None = None  # the point a theorem measures, (R, d)


@dataclass(frozen=True)
class Algorithm:
    """A runnable algorithm: declared parameters and a ``build`` that binds them."""

    name: str
    paper: str
    description: str
    build: Callable[[Any, Mapping[str, Any]], Method]
    params: Mapping[str, Param] = field(default_factory=dict)
    problems: tuple[str, ...] = ()  # problem names it accepts
    horizon: str | None = None  # a parameter that defaults to the run's --rounds (e.g. "T")
    module: str = ""  # the defining module (set by discovery helpers; optional)

    def config(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Declared defaults overridden by validated ``values`` (unknown names are refused)."""
        unknown = sorted(set(values) - set(self.params))
        if unknown:
            raise BadInput(f"--set {unknown[0]}", f"unknown parameter {unknown[0]!r} for "
                           f"{self.name}; allowed: {', '.join(sorted(self.params))}")
        out = {k: p.default for k, p in self.params.items()}
        out.update({k: self.params[k].check(k, v) for k, v in values.items()})
        return out

    def method(self, problem: Any, values: Mapping[str, Any] | None = None) -> Method:
        return self.build(problem, self.config(values or {}))


def simulate(method: Method, iterations: int, *, replicas: int = 1, seed: int = 0,
             record_every: int = 1, observe: Mapping[str, Observe] | None = None,
             state: Any = None, blowup: float = 1e100) -> Trace:
    """Run a method through the executor (``state`` overrides ``init``, e.g. to start at z*)."""
    return execute(method.init(replicas, seed) if state is None else state, method.step, iterations,
                   replicas=replicas, seed=seed, streams=method.streams,
                   metrics=method.observe if observe is None else observe,
                   record_every=record_every, blowup=blowup)


def summarize(trace: Trace, samples_per_step: float = 1.0) -> dict[str, Any]:
    """DESIGN "Runs" summary keys from a trace (replica means). After a divergence the
    ``final_`` values are those of the last record where every replica was finite, and
    ``diverged_at``/``reason`` say what happened after it."""
    means = {k: v.mean(axis=1) for k, v in trace.metrics.items()}
    finite = np.all([np.isfinite(v) for v in means.values()], axis=0) if means else np.array([])
    last = int(np.flatnonzero(finite)[-1]) if finite.size and finite.any() else None
    out: dict[str, Any] = {}
    if "grad_phi_sq" in means and last is not None:
        gp = means["grad_phi_sq"][: last + 1]
        out["avg_grad_phi_sq"] = float(gp[:-1].mean()) if gp.size > 1 else float(gp[0])
    for k, v in means.items():
        out[f"final_{k}"] = None if last is None else float(v[last])
    out.update(communications=float(trace.communications[-1].mean()),
               samples_per_client=float(samples_per_step * trace.iterations[-1]),
               iterations=int(trace.iterations[-1]), replicas=int(trace.communications.shape[1]),
               diverged=trace.diverged, diverged_at=trace.diverged_at, reason=trace.reason,
               seconds=trace.seconds)
    return out


def iterate_of(method: Method) -> Callable[[Any], np.ndarray]:
    """The point a run reports as its iterate: the method's own ``iterate``, else the
    conventions of the built-in units — the server model ``z`` (min-max methods) or the client
    average of ``x`` (ProxSkip-style local iterates, (R, n, d))."""
    if method.iterate is not None:
        return method.iterate

    def default(state: Any) -> np.ndarray:
        if hasattr(state, "z"):
            return np.asarray(state.z)
        x = np.asarray(state.x)
        return x.mean(axis=1) if x.ndim == 3 else x
    return default


def run_document(algorithm: Algorithm, problem_name: str, problem: Any,
                 values: Mapping[str, Any], rounds: int, seeds: int = 1, seed: int = 0,
                 record_every: int = 1, iterates: bool = False) -> dict[str, Any]:
    """The DESIGN "Runs" document: algorithm, problem, constants, config, metrics, summary;
    with ``iterates``, also ``metrics["iterate"]``: the replica-mean iterate at every record."""
    if algorithm.horizon and algorithm.horizon not in values:
        values = {**values, algorithm.horizon: rounds}
    method = algorithm.method(problem, values)
    observe = dict(method.observe)
    if iterates:
        point = iterate_of(method)
        d = int(np.shape(point(method.init(1, seed)))[-1])
        observe.update({f"iterate[{j}]": (lambda st, j=j: point(st)[:, j]) for j in range(d)})
    trace = simulate(method, rounds, replicas=seeds, seed=seed, record_every=record_every,
                     observe=observe)
    coords = [trace.metrics.pop(k).mean(axis=1) for k in list(trace.metrics)
              if k.startswith("iterate[")]
    metrics = {k: v.mean(axis=1).tolist() for k, v in trace.metrics.items()}
    if coords:
        metrics["iterate"] = np.stack(coords, axis=1).tolist()
    metrics["communications"] = trace.communications.mean(axis=1).tolist()
    metrics["round"] = trace.iterations.tolist()
    constants = {k: v for k, v in getattr(problem, "constants", {}).items() if np.ndim(v) == 0}
    constants.update(method.constants)
    return {"algorithm": algorithm.name, "problem": problem_name, "constants": constants,
            "config": dict(method.config), "metrics": metrics,
            "summary": summarize(trace, method.samples_per_step)}


@dataclass(frozen=True)
class Counterexample:
    """A theorem's counterexample that ``fedbounds counterexample ID`` runs: its cases, its
    declared parameters (``--set``), and ``run(case, values, rounds, **options) -> dict`` (the
    DESIGN "counterexample" document). ``options`` are the extra CLI choices (name → Param with
    ``kind=str`` and ``choices``)."""

    theorem: str
    description: str
    cases: tuple[str, ...]
    params: Mapping[str, Param]
    run: Callable[..., dict]
    options: Mapping[str, Param] = field(default_factory=dict)

    def values(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every declared parameter, validated; none may be missing (no silent defaults)."""
        for name in given:
            if name not in self.params:
                raise BadInput(f"--set {name}", f"unknown symbol {name!r}; allowed: " + ", ".join(
                    f"{k} ({p.doc})" for k, p in self.params.items()))
        for name, p in self.params.items():
            if name not in given and p.default is None:
                raise BadInput("--set", f"missing {name} ({p.doc})")
        return {k: p.check(k, given.get(k, p.default)) for k, p in self.params.items()}
