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

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

import numpy as np

from fedbounds.errors import BadInput
from fedbounds.params import (
    DEFAULT_MAX_WORK,
    MEMORY_SHARE,
    Param,
    check_values,
    memory_cap,
    within_cap,
)

from .executor import Draw, Trace, execute

__all__ = ["DEFAULT_MAX_WORK", "Algorithm", "Counterexample", "Method", "Param", "build_instance",
           "check_run", "iterate_of", "run_document", "simulate", "summarize"]

S = TypeVar("S")
Observe = Callable[[Any], np.ndarray]

# The cost model of one run (numbers touched; numpy touches about 1e9 a second):
# work = rounds × (STEP_COST + local steps × (LOCAL_COST + replicas × step numbers)
#                  + replicas × record numbers)
# the fixed costs stand for the Python work of an executor step and of a local step.
STEP_COST = 5e4
LOCAL_COST = 5e4


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
    # the cost model of :func:`check_run` (None: the size of one replica's state)
    local_steps: float = 1.0  # inner (local) iterations per executor step
    step_numbers: float | None = None  # numbers one replica touches per local iteration
    held_numbers: float | None = None  # numbers one replica holds at once (state, draws …)
    record_numbers: float = 0.0  # numbers one replica touches to record its metrics
    steps_param: str | None = None  # the parameter behind local_steps (named when too many)
    # optional in-place form of ``step`` for the executor: ``advance(state, draws, t, scratch)``
    # may overwrite the arrays of the state it is given (the executor's own copy) and keep
    # buffers in ``scratch`` (a dict that lives for one run); the same iterates as ``step``
    advance: Callable[[S, Mapping[str, Any], int, dict], tuple[S, np.ndarray]] | None = None
    # optional in-place form of several steps between two records:
    # ``advance_steps(state, draws, t, steps, scratch)`` with each stream's ``steps`` per-step
    # draws in a list, returning the state after them and each replica's communications summed
    # over them; the same iterates as ``steps`` calls of ``step``
    advance_steps: Callable[[S, Mapping[str, list], int, int, dict],
                            tuple[S, np.ndarray]] | None = None

    def pure(self) -> Method[S]:
        """The same method through its pure ``step`` alone (no in-place forms): the reference
        an in-place form is tested against."""
        return replace(self, advance=None, advance_steps=None)


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
        return check_values(self.params, values, self.name)

    def method(self, problem: Any, values: Mapping[str, Any] | None = None) -> Method:
        return self.build(problem, self.config(values or {}))


def simulate(method: Method, iterations: int, *, replicas: int = 1, seed: int = 0,
             record_every: int = 1, observe: Mapping[str, Observe] | None = None,
             state: Any = None, blowup: float = 1e100) -> Trace:
    """Run a method through the executor (``state`` overrides ``init``, e.g. to start at z*; it
    is not modified). The executor uses the method's in-place ``advance`` when it has one, and
    its ``advance_steps`` for the steps between two records when they are several."""
    if state is None:
        state = method.init(replicas, seed)
    elif method.advance is not None or method.advance_steps is not None:
        state = owned(state)
    return execute(state, method.step, iterations, replicas=replicas, seed=seed,
                   streams=method.streams, metrics=method.observe if observe is None else observe,
                   record_every=record_every, blowup=blowup, advance=method.advance,
                   advance_steps=method.advance_steps)


def owned(state: Any) -> Any:
    """A copy of a (nested) NamedTuple of arrays whose arrays the caller does not hold."""
    if isinstance(state, tuple):
        return type(state)(*(owned(v) for v in state))
    return np.array(state, copy=True) if isinstance(state, np.ndarray) else state


def _state_numbers(method: Method, seed: int) -> float:
    """Numbers in one replica's initial state (the cost model's default)."""
    return float(sum(np.size(a) for a in method.init(1, seed)))


def check_run(method: Method, rounds: int, replicas: int, metrics: int, *,
              max_work: float = DEFAULT_MAX_WORK, record_every: int = 1, seed: int = 0) -> None:
    """Refuse, before anything is allocated, a run whose work or memory exceeds the caps
    (:data:`~fedbounds.params.DEFAULT_MAX_WORK`, raised with ``--max-work``): work = rounds ×
    (STEP_COST + local steps × (LOCAL_COST + replicas × step numbers) + replicas × record
    numbers); numbers held at once (replicas × held numbers) and recorded ((records) ×
    replicas × metrics) at most max_work / MEMORY_SHARE. The refusal names ``--rounds``,
    ``--seeds``, the local-steps parameter or ``--problem``, whichever is to blame."""
    state = None if method.step_numbers is not None and method.held_numbers is not None \
        else _state_numbers(method, seed)
    step = method.step_numbers if method.step_numbers is not None else state
    held = method.held_numbers if method.held_numbers is not None else state
    local = method.local_steps

    def per_round(r: int) -> float:
        return STEP_COST + local * (LOCAL_COST + r * step) + r * method.record_numbers

    inner = f"--set {method.steps_param}" if method.steps_param else "--problem"
    work = rounds * per_round(replicas)
    formula = (f"the run's work, rounds × ({STEP_COST:g} + local steps {local:g} × "
               f"({LOCAL_COST:g} + replicas × {step:.3g}) + replicas × "
               f"{method.record_numbers:.3g})")
    # to blame: the rounds if one replica is too much, unless one round costs 100 ordinary
    # rounds (then the local steps, or the problem's size); else the replicas
    heavy = per_round(1) > 100 * (STEP_COST + LOCAL_COST)
    blame = "--seeds" if rounds * per_round(1) <= max_work else (inner if heavy else "--rounds")
    within_cap(blame, formula, work, max_work)
    cap = memory_cap(max_work)
    blame = inner if held > cap else "--seeds"
    within_cap(blame, f"the run's memory, replicas × {held:.3g} numbers held at once",
               replicas * held, cap, needed=replicas * held * MEMORY_SHARE)
    records = rounds // record_every + 2
    recorded = float(records) * replicas * metrics
    blame = "--rounds" if records * metrics > cap else "--seeds"
    within_cap(blame, f"the recorded numbers, (rounds + 1) × replicas × {metrics} metrics",
               recorded, cap, needed=recorded * MEMORY_SHARE)


def summarize(trace: Trace, samples_per_step: float = 1.0) -> dict[str, Any]:
    """DESIGN "Runs" summary keys from a trace (replica means). After a divergence the
    ``final_`` values are those of the last record where every metric of every replica was
    finite (``final_round`` says which), and ``diverged_at``/``reason`` say what happened;
    when no record is finite the ``final_`` values are None and ``final_note`` says so."""
    means = {k: v.mean(axis=1) for k, v in trace.metrics.items()}
    finite = np.all([np.isfinite(v) for v in means.values()], axis=0) if means \
        else np.ones(len(trace.iterations), dtype=bool)
    last = int(np.flatnonzero(finite)[-1]) if finite.size and finite.any() else None
    out: dict[str, Any] = {}
    if "grad_phi_sq" in means and last is not None:
        gp = means["grad_phi_sq"][: last + 1]
        out["avg_grad_phi_sq"] = float(gp[:-1].mean()) if gp.size > 1 else float(gp[0])
    for k, v in means.items():
        out[f"final_{k}"] = None if last is None else float(v[last])
    out["final_round"] = None if last is None else int(trace.iterations[last])
    if last is None:
        out["final_note"] = (f"no finite record: every recorded round has a non-finite metric "
                             f"(diverged at round {trace.diverged_at}: {trace.reason})")
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


def build_instance(entry: Any, given: Mapping[str, Any], seed: int, *,
                   max_work: float = DEFAULT_MAX_WORK) -> Any:
    """The instance of a problem family (:class:`fedbounds.problems.base.ProblemEntry`) at
    ``given``: its declared parameters validated, its footprint checked against the caps, then
    made; a defect is a :class:`BadInput` naming ``--set NAME``."""
    values = entry.values(given)
    numbers, work = entry.size(values)
    size_param = entry.size_parameter(values)
    blame = f"--set {size_param}" if size_param else "--problem"
    within_cap(blame, f"the size of {entry.name} (numbers it holds)", numbers,
               memory_cap(max_work),
               needed=numbers * MEMORY_SHARE)
    within_cap(blame, f"the work to build {entry.name}", work, max_work)
    try:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return entry.make(values, seed)
    except BadInput as e:
        name = e.argument.removeprefix("--set ").strip()
        raise BadInput(f"--set {name}" if name in entry.params else e.argument,
                       e.message) from None
    except (ValueError, ArithmeticError, np.linalg.LinAlgError) as e:
        raise BadInput("--set", f"{entry.name} has no valid instance at these parameters: "
                       f"{type(e).__name__}: {e}") from None


def run_document(algorithm: Algorithm, problem_name: str, problem: Any,
                 values: Mapping[str, Any], rounds: int, seeds: int = 1, seed: int = 0,
                 record_every: int = 1, iterates: bool = False, *,
                 max_work: float = DEFAULT_MAX_WORK) -> dict[str, Any]:
    """The DESIGN "Runs" document: algorithm, problem, constants, config, metrics, summary;
    with ``iterates``, also ``metrics["iterate"]``: the replica-mean iterate at every record.
    The run is checked against the caps (:func:`check_run`) before it starts."""
    if algorithm.horizon and algorithm.horizon not in values:
        values = {**values, algorithm.horizon: rounds}
    try:
        method = algorithm.method(problem, values)
    except np.linalg.LinAlgError as e:  # e.g. no unique solution to measure the distance to
        raise BadInput("--problem", f"{problem_name} at these parameters has a singular "
                       f"matrix ({e}); {algorithm.name} cannot run on it") from None
    observe = dict(method.observe)
    point = iterate_of(method)
    d = int(np.shape(point(method.init(1, seed)))[-1]) if iterates else 0
    check_run(method, rounds, seeds, len(observe) + d + 1, max_work=max_work,
              record_every=record_every, seed=seed)
    if iterates:
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
    DESIGN "counterexample" document, with ``diverged``/``diverged_at``/``reason``).
    ``options`` are the extra CLI choices (name → Param with ``kind=str`` and ``choices``);
    ``work(values, rounds)`` is the work of a call, checked against the cap before it runs."""

    theorem: str
    description: str
    cases: tuple[str, ...]
    params: Mapping[str, Param]
    run: Callable[..., dict]
    options: Mapping[str, Param] = field(default_factory=dict)
    work: Callable[[Mapping[str, Any], int], float] | None = None  # (values, rounds) -> work
    steps_param: str | None = None  # the parameter the work of one round grows with

    def check_work(self, values: Mapping[str, Any], rounds: int,
                   max_work: float = DEFAULT_MAX_WORK) -> None:
        """Refuse a call whose declared work exceeds ``max_work`` (names ``--rounds`` or the
        parameter one round's work grows with)."""
        if self.work is None:
            return
        one = self.work(values, 1)
        blame = f"--set {self.steps_param}" if self.steps_param and one > max_work \
            else "--rounds"
        within_cap(blame, f"the work of {self.theorem}'s counterexample", self.work(values, rounds),
                   max_work)

    def values(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every declared parameter, validated; none may be missing (no silent defaults)."""
        for name in given:
            if name not in self.params:
                raise BadInput(f"--set {name}", f"unknown symbol {name!r}; allowed: " + ", ".join(
                    f"{k} ({p.doc})" for k, p in self.params.items()))
        for name, p in self.params.items():
            if name not in given and p.default is None:
                raise BadInput(f"--set {name}", f"missing {name} ({p.doc}, {p.domain()})")
        return {k: p.check(k, given.get(k, p.default)) for k, p in self.params.items()}
