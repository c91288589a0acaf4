"""Vectorized executor (DESIGN "How things should be built").

State is a tuple of arrays shaped ``(replicas, clients, dim)``; an algorithm is a pure step
function ``step(state, draws, t) -> (state, communicated)`` that advances every replica and every
client at once. Randomness comes from named streams: one :class:`numpy.random.SeedSequence`
spawns one :class:`numpy.random.Generator` per stream name, in the sorted order of the names, so
a run is reproducible bit for bit and two algorithms that share a stream name (e.g. ``"noise"``)
see the same random numbers (common random numbers).

A method may also give an in-place form of its step (``advance``, see :func:`execute`): the
executor then hands it a state it owns and a scratch dict for the run, and the step reuses
preallocated buffers instead of allocating new arrays each iteration (the same iterates).

The loop records each metric per iteration (``(iterations + 1, replicas)`` arrays), counts
communications per replica, and stops with ``diverged`` (iteration and reason) when a metric
becomes non-finite or exceeds ``blowup``, or when a step raises a floating-point error
(:data:`ARITHMETIC`: overflow, division by zero) — never a crash, never a silent NaN.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

State = tuple[np.ndarray, ...]
Draw = Callable[[np.random.Generator, int], Any]  # (generator, replicas) -> random variables
Step = Callable[[State, dict[str, Any], int], tuple[State, np.ndarray]]
Metric = Callable[[State], np.ndarray]  # state -> (replicas,)
Advance = Callable[[Any, dict[str, Any], int, dict], tuple[Any, np.ndarray]]  # in-place step
# several in-place steps: (state, {stream: [draw per step]}, t, steps, scratch)
AdvanceSteps = Callable[[Any, dict[str, list], int, int, dict], tuple[Any, np.ndarray]]

# replicas of one block of an in-place step: a block's arrays (about BLOCK_NUMBERS numbers
# each, 256 KiB: the block's state, buffers and the clients' products fit in a core's L2 cache)
# stay in cache through the step's passes, so the cost per replica does not grow with the
# replica count
BLOCK_NUMBERS = 1 << 15


def block_rows(replicas: int, per_replica: int) -> int:
    """Replicas per block, blocks of equal size of about :data:`BLOCK_NUMBERS` numbers per
    state array (``per_replica`` numbers each)."""
    size = max(1, BLOCK_NUMBERS // max(1, per_replica))
    count = -(-replicas // size)
    return -(-replicas // count)


@dataclass
class Trace:
    """Result of :func:`execute`: metric arrays shaped ``(recorded, replicas)``."""

    metrics: dict[str, np.ndarray]
    communications: np.ndarray  # (recorded, replicas), cumulative count at each record
    iterations: np.ndarray  # (recorded,), the iteration index t of each record
    state: State
    diverged: bool = False
    diverged_at: int | None = None
    reason: str | None = None
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def mean(self, name: str) -> np.ndarray:
        """Replica mean of a metric, per record."""
        return self.metrics[name].mean(axis=1)


def generators(seed: int, names: list[str] | tuple[str, ...]) -> dict[str, np.random.Generator]:
    """One generator per stream name, seeded by ``(seed, crc32(name))``: a stream's numbers
    depend on the seed and its own name only, so two algorithms that share a stream name see
    the same draws whatever other streams they declare."""
    return {n: np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(n.encode())]))
            for n in sorted(set(names))}


# floating-point errors a step may raise (Python-float ``**`` and ``math`` calls, a division by
# zero): each ends the run as ``diverged``, never as an exception
ARITHMETIC = (OverflowError, FloatingPointError, ZeroDivisionError)


def draws_of_steps(draw: Draw, rng: np.random.Generator, replicas: int, steps: int) -> Any:
    """A stream's draws of ``steps`` successive steps: ``draw.steps(rng, replicas, steps)``
    (the draws stacked on a first axis in one generator call, the same numbers as ``steps``
    calls of ``draw``) when the stream gives it, else a list of ``steps`` draws."""
    many = getattr(draw, "steps", None)
    if many is not None:
        return many(rng, replicas, steps)
    return [draw(rng, replicas) for _ in range(steps)]


def arithmetic_reason(error: ArithmeticError, where: str) -> str:
    """The divergence reason of a floating-point error: overflow, division by zero, …"""
    kind = {OverflowError: "overflow", ZeroDivisionError: "division by zero"}.get(
        type(error), "floating-point error")
    return f"{kind} in {where} ({type(error).__name__}: {error})"


def execute(state: State, step: Step, iterations: int, *, replicas: int, seed: int,
            streams: Mapping[str, Draw] | None = None, metrics: Mapping[str, Metric],
            record_every: int = 1, blowup: float = 1e100,
            advance: Advance | None = None, advance_steps: AdvanceSteps | None = None) -> Trace:
    """Run ``iterations`` steps of ``step`` on all replicas; record ``metrics`` every
    ``record_every`` steps (and at t = 0 and at the end).

    ``streams`` maps a stream name to ``draw(rng, replicas)``; each step receives
    ``draws = {name: draw(rng_name, replicas)}``. Divergence: the run stops at the first
    recorded iteration where a metric is NaN/inf or above ``blowup``, or at the first step (or
    record) that raises a floating-point error (overflow, division by zero); the trace then
    ends at the last complete record with ``diverged=True``, ``diverged_at=t`` (the iteration
    that diverged) and a reason.

    ``advance(state, draws, t, scratch)``, when given, replaces ``step``: the in-place form of
    the same step, which may overwrite ``state`` (the caller hands over a state it does not
    hold, e.g. a fresh ``init``) and keep buffers in ``scratch`` (one dict per run).
    ``advance_steps(state, draws, t, steps, scratch)``, when given, runs the ``steps`` > 1
    steps between two records at once (each stream's draws of those steps, drawn as the steps
    would draw them: :func:`draws_of_steps`): the same iterates and records, with one call
    instead of ``steps``.
    """
    import time

    if iterations < 0 or replicas < 1 or record_every < 1:
        raise ValueError("iterations >= 0, replicas >= 1 and record_every >= 1 are required")
    streams = dict(streams or {})
    rngs = generators(seed, list(streams))
    order = sorted(streams)
    n_rec = iterations // record_every + 1 + (iterations % record_every != 0)
    rec = {k: np.empty((n_rec, replicas)) for k in metrics}
    comm_rec = np.zeros((n_rec, replicas))
    its = np.zeros(n_rec, dtype=int)
    comm = np.zeros(replicas)
    start = time.perf_counter()

    def record(i: int, t: int, st: State) -> str | None:
        its[i] = t
        comm_rec[i] = comm
        bad = None
        try:
            for k, f in metrics.items():
                row = rec[k][i]
                row[...] = f(st)
                # one pass: the largest |value| is NaN, inf or above blowup if any value is
                peak = float(np.abs(row).max())
                if bad is None and not (peak <= blowup and peak != math.inf):
                    bad = (f"{k} is not finite" if not np.isfinite(row).all()
                           else f"{k} exceeds {blowup:g}")
        except ARITHMETIC as e:  # the record is not finite: NaN, and the run stops here
            for v in rec.values():
                v[i] = np.nan
            return arithmetic_reason(e, f"the metrics at t = {t}")
        return bad

    scratch: dict[str, Any] = {}
    if advance is None:
        def advance(state: Any, draws: dict[str, Any], t: int, scratch: dict) -> Any:
            return step(state, draws, t)

    i, t = 0, 0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        reason = record(0, 0, state)
        while reason is None and t < iterations:
            steps = min(record_every - t % record_every, iterations - t)
            try:
                if advance_steps is not None and steps > 1:
                    # each stream has its own generator: its draws of the steps, in order
                    block = {k: draws_of_steps(streams[k], rngs[k], replicas, steps)
                             for k in order}
                    state, communicated = advance_steps(state, block, t, steps, scratch)
                else:
                    steps = 1
                    draws = {k: streams[k](rngs[k], replicas) for k in order}
                    state, communicated = advance(state, draws, t, scratch)
            except ARITHMETIC as e:
                t += 1
                reason = arithmetic_reason(e, f"step {t}")
                break
            comm += communicated
            t += steps
            if t % record_every == 0 or t == iterations:
                i += 1
                reason = record(i, t, state)
    n = i + 1
    return Trace(metrics={k: v[:n] for k, v in rec.items()}, communications=comm_rec[:n],
                 iterations=its[:n], state=state, diverged=reason is not None,
                 diverged_at=t if reason is not None else None, reason=reason,
                 seconds=time.perf_counter() - start)


# ---- small shared helpers for client-stacked arrays (R, n, d) --------------------------------
def client_matvec(JT: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``y[r, i] = J_i x[r, i]`` for all replicas and clients at once, with ``JT = J.transpose(0,
    2, 1)`` of shape (n, d, d): one batched matmul of (n, R, d) @ (n, d, d)."""
    return np.matmul(x.swapaxes(0, 1), JT).swapaxes(0, 1)


def average(x: np.ndarray) -> np.ndarray:
    """Consensus prox Π: every client gets the client mean (one communication)."""
    return np.broadcast_to(x.mean(axis=1, keepdims=True), x.shape).copy()


def client_mean(a: np.ndarray) -> np.ndarray:
    """``a.mean(1)`` of a (R, k, d): the client mean, the same numbers (the same sequential sum
    over clients, then the division) without the overhead of numpy's reduction over a middle
    axis (d = 1, where einsum would sum along the clients in another order, is left to
    ``mean``)."""
    if a.shape[2] < 2:
        return a.mean(1)
    return np.einsum("rmi->ri", a) / a.shape[1]


def sq_norm(x: np.ndarray) -> np.ndarray:
    """Σ over clients and coordinates of x², per replica: (R, n, d) -> (R,); summed in the
    (R, n, d) memory order whatever the layout of ``x`` (the same rounding for a view of a
    client-major state)."""
    x = np.ascontiguousarray(x)
    return np.einsum("rnd,rnd->r", x, x)
