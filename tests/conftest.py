"""Shared fixtures. ``quick_verdict(cid)`` runs a claim's quick profile at seed 0 once per test
session: the contract tests and the per-paper claim tests read the same computed verdict
instead of recomputing it (a verdict is still computed from its run in every session, never
stored between sessions). Under pytest-xdist the workers of one session share it through a
folder of that session's temporary directory: the first worker to need a claim computes it
(holding the claim's lock), the others read its pickle. With the verdict it keeps the run's
measurement and the parameters its measure read (:class:`QuickMeasurement`): a perturbation of
parameters the measure did not read is decided on that measurement instead of running the
same measure on the same inputs again.

The fixture ``theory_once(patch, *papers)`` lets the reports a test writes reuse one computed theory page
per paper (statements, errata, complexity derivations) within a test process."""

from __future__ import annotations

import os

# as the command line does before numpy loads (fedbounds.app.entry): one BLAS thread, so that
# the test processes have no BLAS pool and fork their workers single-threaded
from fedbounds.app.lifecycle import BLAS_THREAD_VARIABLES, START_METHOD_ENV  # no numpy

for _name in BLAS_THREAD_VARIABLES:
    os.environ.setdefault(_name, "1")
# no test reads or writes the checkout's own result store (make's warm-up fills it for the
# first report); a test that wants a store names one
os.environ.setdefault("FEDBOUNDS_STORE", "off")

import copy
import fcntl
import pickle
from pathlib import Path

import pytest

from fedbounds.verify import catalog

_THEORIES: dict[str, dict] = {}
_UNPATCHED: dict[str, object] = {}  # report.theory as first seen (before any patch of ours)


def _theory_once(patch: pytest.MonkeyPatch, *papers: str) -> None:
    """Through ``patch``: ``report.theory`` of each of ``papers`` computed once in this process
    (here, before any worker forks) and every later call without a store given its own deep
    copy (the pages append claims to its errata). Only for tests about the claims and pages of
    a report, with the real theory (``derive``, ``findings`` not replaced)."""
    from fedbounds.app import report

    computed = _UNPATCHED.setdefault("theory", report.theory)
    for paper in papers:
        if paper not in _THEORIES:
            _THEORIES[paper] = computed(paper)

    def once(paper: str, store: Path | None = None, fresh: bool = False) -> dict:
        if store is None and paper in _THEORIES:
            return copy.deepcopy(_THEORIES[paper])
        return computed(paper, store, fresh)

    patch.setattr(report, "theory", once)


@pytest.fixture(scope="session")
def theory_once():
    """:func:`_theory_once`, for a test or a module's fixture to call with its own patch."""
    return _theory_once


def _shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This session's folder shared by its xdist workers (each worker's base temp is a
    subfolder of the session's), or the session's own base temp without xdist."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder = base / "quick-verdicts"
    folder.mkdir(exist_ok=True)
    return folder


class ReadTracking(dict):
    """A claim's parameters that note in ``reads`` every name its measure looks at: by
    ``[]``, ``get``, ``in``, ``setdefault`` or ``pop``; iterating, copying, unpacking
    (``{**params}``), comparing or printing them notes every name."""

    def __init__(self, values: dict, reads: set[str]) -> None:
        super().__init__(values)
        self.reads = reads

    def _all(self) -> dict:
        """Every name noted; the values as a plain dict."""
        self.reads.update(dict.keys(self))
        return dict(dict.items(self))

    def copy(self) -> dict:
        return self._all()

    def __or__(self, other):
        return self._all() | other

    def __ror__(self, other):
        return other | self._all()

    def __reduce__(self):
        return (dict, (self._all(),))

    __hash__ = None  # type: ignore[assignment]


def _reading(name: str, every: bool):
    """``dict.<name>`` that first notes its key (the first argument), or every name."""
    method = getattr(dict, name)

    def read(self, *args):
        if every:
            self.reads.update(dict.keys(self))
        else:
            self.reads.add(args[0])
        return method(self, *args)

    read.__name__ = name
    return read


for _name in ("__getitem__", "get", "__contains__", "setdefault", "pop"):
    setattr(ReadTracking, _name, _reading(_name, every=False))
for _name in ("__iter__", "__reversed__", "keys", "values", "items", "popitem", "__eq__",
              "__repr__"):
    setattr(ReadTracking, _name, _reading(_name, every=True))


class QuickMeasurement:
    """The measurement of a claim's quick run at one seed, with the parameters its measure read
    (and those it looked up and did not find)."""

    def __init__(self, params: dict, reads: set[str], seed: int, measurement: object) -> None:
        self.read = {k: params[k] for k in reads if k in params}
        self.absent = frozenset(k for k in reads if k not in params)
        self.seed = seed
        self.measurement = measurement

    def same_inputs(self, params: dict, seed: int) -> bool:
        """Whether a measure given ``params`` and ``seed`` reads exactly what this one read."""
        if seed != self.seed or any(k in params for k in self.absent):
            return False
        for name, value in self.read.items():
            if name not in params:
                return False
            other = params[name]
            try:
                if type(other) is not type(value) or bool(other != value):
                    return False
            except (TypeError, ValueError):  # no plain equality (an array): not the same
                return False
        return True

    def replaying(self, spec):
        """``spec`` whose measure gives this measurement when its inputs are the same (a
        measure is a function of the parameters it reads and the seed: the reproducibility
        contract) and runs otherwise."""
        from dataclasses import replace

        def measure(params, seed):
            if self.same_inputs(params, seed):
                return self.measurement  # evaluate reads it and copies what it keeps
            return spec.measure(params, seed)

        return replace(spec, measure=measure)


def _quick_run(cid: str) -> tuple[object, QuickMeasurement | None]:
    """The quick verdict of ``cid`` at seed 0, and its measurement with what the measure read."""
    from dataclasses import replace

    spec = catalog.claims()[cid]
    records: list[QuickMeasurement] = []

    def tracked(params, seed):
        reads: set[str] = set()
        measurement = spec.measure(ReadTracking(params, reads), seed)
        records.append(QuickMeasurement(dict(params), reads, seed, measurement))
        return measurement

    verdict = replace(spec, measure=tracked).run("quick", 0)
    return verdict, records[0] if len(records) == 1 else None


def _write(path: Path, value: object) -> None:
    """``value`` pickled into ``path`` whole (written aside, then renamed); nothing when it
    does not pickle (each worker then computes its own)."""
    try:
        data = pickle.dumps(value)
    except (pickle.PicklingError, TypeError, AttributeError):
        return
    partial = path.with_suffix(".partial")
    partial.write_bytes(data)
    partial.replace(path)


@pytest.fixture(scope="session")
def quick_runs(tmp_path_factory: pytest.TempPathFactory):
    """``get(cid)`` → (quick verdict, :class:`QuickMeasurement` or None), computed once per
    test session and shared by the xdist workers (see the module docstring)."""
    cache: dict[str, tuple[object, QuickMeasurement | None]] = {}
    folder = _shared_folder(tmp_path_factory)

    def get(cid: str) -> tuple[object, QuickMeasurement | None]:
        if cid not in cache:
            verdict_file, record_file = folder / f"{cid}.pickle", folder / f"{cid}.record"
            with open(folder / f"{cid}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
                if verdict_file.exists():
                    record = (pickle.loads(record_file.read_bytes())
                              if record_file.exists() else None)
                    cache[cid] = (pickle.loads(verdict_file.read_bytes()), record)
                else:
                    cache[cid] = _quick_run(cid)
                    if cache[cid][1] is not None:
                        _write(record_file, cache[cid][1])
                    _write(verdict_file, cache[cid][0])
        return cache[cid]

    return get


@pytest.fixture(scope="session")
def quick_verdict(quick_runs):
    """``get(cid)`` → the claim's quick verdict at seed 0 (:func:`quick_runs`)."""
    return lambda cid: quick_runs(cid)[0]


@pytest.fixture(scope="session")
def read_tracking():
    """(:class:`ReadTracking`, :class:`QuickMeasurement`), for the tests of the two."""
    return ReadTracking, QuickMeasurement


# ---- forks_on_purpose: a test whose stand-in claims live in this process -------------------
_FORK_WARNING = "ignore:This process .* is multi-threaded, use of fork:DeprecationWarning"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("forks_on_purpose"):
            item.add_marker(pytest.mark.filterwarnings(_FORK_WARNING))


@pytest.fixture(autouse=True)
def _forks_on_purpose(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``@pytest.mark.forks_on_purpose`` the workers fork, so that they inherit the test's
    stand-ins (a test process has threads, so the default would be a forkserver)."""
    if request.node.get_closest_marker("forks_on_purpose"):
        monkeypatch.setenv(START_METHOD_ENV, "fork")
