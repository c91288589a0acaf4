"""The result store: one SQLite file of verdicts and symbolic derivations, keyed by content.

Where: ``--store PATH``, else the environment variable ``FEDBOUNDS_STORE``, else
``.fedbounds/results.sqlite`` under the current folder; ``off`` (option or variable) runs
without a store.

A verdict's **key** is a SHA-256 of what determines it: the claim id, profile, noise seed,
instance seed and parameter overrides, the fedbounds version, the claim's declaration (its
parameters, profiles, rule and figure) and :func:`source_hash`. The source hash is coarse on
purpose: it covers every ``.py`` file of ``fedbounds`` (but ``fedbounds/app``, the command line,
which computes no result), ``fedbounds.problems``, ``fedbounds.verify`` and the plugin packages.
A claim reaches into shared code (the executor, the problems' constants, the engine, the
theorems it checks) along paths no import list states reliably; hashing all of it means that
any change to the code that computes results invalidates every stored result, never that a
stale result is reused. A measure function defined outside those folders (a test's stand-in)
adds the hash of its own code and closure. Derivations of complexity
(:func:`fedbounds.complexity.derive`, as the report's rows: plain JSON, cheap to read back,
unlike pickled sympy expressions) are keyed by theorem id, version and source hash; the
report's SVG figures by their data and renderer.

A row holds the verdict, statistic, prediction, tolerance, rule, evidence, run config, figure
data, the verdict's other fields (``extra``, JSON), seconds, start and finish times (UTC), the
backend and the environment (Python, numpy, scipy, sympy, BLAS, platform, host). Writes are one
transaction per finished claim in WAL mode, so a crash or ``kill -9`` loses at most the claims
still running, never a finished one, and leaves the file consistent; a key has at most one row
(a recomputation replaces it).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable, Mapping
from functools import cache
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path
from types import CodeType, FunctionType
from typing import Any

from fedbounds.errors import BadInput
from fedbounds.verify.claim import ClaimSpec, Figure, Verdict

from . import files, store_rows
from .environment import environment, now
from .store_rows import (
    decoded,
    figure_from_json,
    figure_json,
    json_text,
    normalized,
    sql_value,
    storable,
    verdict_of_row,
)

__all__ = ["ResultStore", "cached_derivation", "decoded", "derivation_key", "figure_from_json",
           "figure_json", "figure_key", "normalized", "open_store", "result_key", "source_hash",
           "storable", "store_path", "version"]

ENV = "FEDBOUNDS_STORE"
DEFAULT_PATH = Path(".fedbounds") / "results.sqlite"
OFF = "off"
SCHEMA_VERSION = 2  # 2: every row carries a digest (schema 1 stores gain the column)
BUSY_TIMEOUT_MS = 60_000

ENVIRONMENT_COLUMNS = ("python", "numpy", "scipy", "sympy", "blas", "platform", "host")
RESULT_COLUMNS = (
    "key", "claim", "paper", "profile", "seed", "instance_seed", "overrides", "version",
    "source_hash", "verdict", "statistic", "predicted", "tolerance", "rule", "evidence",
    "config", "figure", "extra", "seconds", "started_at", "computed_at", "backend",
    *ENVIRONMENT_COLUMNS, "digest",
)
# a verdict's JSON fields with a column of their own; any other field is kept in ``extra``
_VERDICT_FIELDS = ("id", "verdict", "statistic", "predicted", "tolerance", "rule", "evidence",
                   "config", "seconds", "seed", "instance_seed")
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY, claim TEXT NOT NULL, paper TEXT NOT NULL, profile TEXT NOT NULL,
    seed INTEGER NOT NULL, instance_seed INTEGER NOT NULL, overrides TEXT NOT NULL,
    version TEXT NOT NULL, source_hash TEXT NOT NULL, verdict TEXT NOT NULL, statistic REAL,
    predicted TEXT, tolerance TEXT, rule TEXT, evidence TEXT NOT NULL, config TEXT NOT NULL,
    figure TEXT, extra TEXT NOT NULL, seconds REAL, started_at TEXT, computed_at TEXT NOT NULL,
    backend TEXT,
    {", ".join(f"{c} TEXT" for c in ENVIRONMENT_COLUMNS)}, digest TEXT);
CREATE INDEX IF NOT EXISTS results_claim ON results (claim, seed);
CREATE TABLE IF NOT EXISTS derivations (
    key TEXT PRIMARY KEY, theorem TEXT NOT NULL, version TEXT NOT NULL,
    source_hash TEXT NOT NULL, value TEXT NOT NULL, seconds REAL, computed_at TEXT NOT NULL,
    digest TEXT);
CREATE TABLE IF NOT EXISTS figures (key TEXT PRIMARY KEY, svg BLOB NOT NULL,
    computed_at TEXT NOT NULL, digest TEXT);
"""


# ---- where -------------------------------------------------------------------------------------


def store_path(option: str | None = None) -> Path | None:
    """The store file: ``--store`` (``option``), else ``$FEDBOUNDS_STORE``, else
    ``.fedbounds/results.sqlite``; None when either says ``off``."""
    chosen = option if option else os.environ.get(ENV) or str(DEFAULT_PATH)
    if chosen.strip().lower() == OFF:
        return None
    return Path(chosen).expanduser()


# ---- keys --------------------------------------------------------------------------------------


def version() -> str:
    """The installed fedbounds version."""
    try:
        return metadata.version("fedbounds")
    except metadata.PackageNotFoundError:
        return "(not installed)"


@cache
def source_roots() -> list[Path]:
    """The folders whose ``.py`` files determine results: ``fedbounds`` (less ``app``), its
    ``problems`` and ``verify`` packages, and every plugin package (found once per process,
    like :func:`source_hash`)."""
    from fedbounds import plugins

    names = ["fedbounds", "fedbounds.problems", "fedbounds.verify", *plugins.plugin_packages()]
    roots: list[Path] = []
    for name in names:
        try:
            spec = find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            continue
        if spec.submodule_search_locations:
            roots += [Path(p).resolve() for p in spec.submodule_search_locations]
        elif spec.origin:
            roots.append(Path(spec.origin).resolve())
    return list(dict.fromkeys(roots))


def _source_files() -> list[Path]:
    app = Path(__file__).resolve().parent
    files: set[Path] = set()
    for root in source_roots():
        found = [root] if root.is_file() else root.rglob("*.py")
        files |= {f for f in found if f.suffix == ".py" and app not in f.parents}
    return sorted(files)


@cache
def source_hash() -> str:
    """SHA-256 over the relative name and bytes of every file of :func:`source_roots`."""
    digest = hashlib.sha256()
    for path in _source_files():
        package_root = next(r for r in source_roots() if r == path or r in path.parents)
        name = path.name if package_root == path else str(path.relative_to(package_root))
        digest.update(f"{package_root.name}/{name}\0".encode())
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _stable_repr(value: Any) -> str:
    """``repr`` without memory addresses (a function in a closure names itself only)."""
    return _ADDRESS.sub("", repr(value))


def _code_digest(code: CodeType, digest: Any) -> None:
    digest.update(code.co_code)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            _code_digest(const, digest)
        else:
            digest.update(_stable_repr(const).encode())
    digest.update(" ".join(code.co_names).encode())


@cache
def _outside_sources(module_name: str) -> bool:
    """Whether a module's file is outside :func:`source_roots` (so not in the source hash)."""
    module = sys.modules.get(module_name)
    file = getattr(module, "__file__", None)
    if not file:
        return True
    path = Path(file).resolve()
    return not any(root == path or root in path.parents for root in source_roots())


def claim_fingerprint(spec: ClaimSpec) -> str:
    """A claim's declaration (parameters, profiles, rule, figure, perturbation), plus the code
    and closure of its measure function when that is defined outside the hashed sources."""
    digest = hashlib.sha256()
    for part in (spec.id, spec.params, spec.profiles, spec.rule, spec.figure, spec.perturb,
                 spec.theorems, spec.errata):
        digest.update(_stable_repr(part).encode() + b"\0")
    measure = spec.measure
    if isinstance(measure, FunctionType) and _outside_sources(measure.__module__):
        _code_digest(measure.__code__, digest)
        for cell in measure.__closure__ or ():
            try:
                digest.update(_stable_repr(cell.cell_contents).encode())
            except ValueError:  # an empty cell
                digest.update(b"<empty>")
    return digest.hexdigest()


def result_key(spec: ClaimSpec, profile: str, seed: int, instance_seed: int = 0,
               overrides: Mapping[str, Any] | None = None, version_: str | None = None,
               source: str | None = None) -> str:
    """The content hash under which a claim's verdict is stored (by this fedbounds and its
    sources, unless ``version_`` and ``source`` are given: a stored row's key derived again)."""
    parts = {"claim": spec.id, "profile": profile, "seed": seed,
             "instance_seed": instance_seed, "overrides": json_text(dict(overrides or {})),
             "version": version_ or version(), "source": source or source_hash(),
             "spec": claim_fingerprint(spec)}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def derivation_key(theorem_id: str, version_: str | None = None,
                   source: str | None = None) -> str:
    """The content hash under which a theorem's complexity derivation is stored (by this
    fedbounds and its sources, unless ``version_`` and ``source`` are given)."""
    parts = {"theorem": theorem_id, "version": version_ or version(),
             "source": source or source_hash()}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


# ---- the store ---------------------------------------------------------------------------------


def _store_errors(verb: str) -> Callable[[Callable], Callable]:
    """A method whose SQLite or file-system error (a full disk, a read-only file, a file
    corrupted after it was opened) is :class:`BadInput` naming the store, not a crash."""

    def wrap(method: Callable) -> Callable:
        @functools.wraps(method)
        def guarded(self: ResultStore, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except (sqlite3.DatabaseError, OSError) as e:
                raise BadInput("--store", f"cannot {verb} the result store {self.path}: "
                                          f"{files.refused(e) or e}") from None

        return guarded

    return wrap


class ResultStore:
    """One SQLite file (see the module docstring). Use as a context manager or :meth:`close`."""

    def __init__(self, path: Path | str, readonly: bool = False) -> None:
        """Open (and create, unless ``readonly``) the store at ``path``. ``readonly`` reads a
        store this process may not write (a read-only file or folder, an archive): nothing is
        created or upgraded. A file that is not a store, or is corrupt, is :class:`BadInput`
        (``--store``), as is a file system that refuses the store's writes."""
        self.path = Path(path)
        try:
            if readonly:
                self.db = self._connect_readonly()
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000,
                                          isolation_level=None)
            self.db.row_factory = sqlite3.Row
            self.db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            # a store is data: its schema may not run anything (no functions from views or
            # triggers, SQLite's "defense against the dark arts")
            self.db.execute("PRAGMA trusted_schema = OFF")
            self._refuse_active_schema()
            checked = self.db.execute("PRAGMA quick_check").fetchone()  # corrupt past its
            if checked is None or checked[0] != "ok":  # header: said now, not mid-run
                raise sqlite3.DatabaseError(f"database disk image is malformed "
                                            f"({checked and checked[0]})")
            if readonly:
                self._check_schema(("1", str(SCHEMA_VERSION)))
                return
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")  # WAL: a killed process loses nothing
            with self.transaction():
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    self.db.execute(statement)
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)",
                                (str(SCHEMA_VERSION),))
                self._upgrade()
            self._check_schema((str(SCHEMA_VERSION),))
        except (sqlite3.DatabaseError, OSError) as e:
            raise BadInput("--store", f"cannot use {self.path} as a result store: "
                                      f"{files.refused(e) or e}") from None

    def _connect_readonly(self) -> sqlite3.Connection:
        """A read-only connection; ``immutable`` where SQLite cannot even keep its shared
        memory beside the file (a read-only folder)."""
        if not self.path.is_file():
            raise BadInput("--store", f"no result store at {self.path}")
        uri = self.path.resolve().as_uri()
        for mode in ("mode=ro", "mode=ro&immutable=1"):
            db = sqlite3.connect(f"{uri}?{mode}", uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                                 isolation_level=None)
            try:
                db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            except sqlite3.OperationalError:  # no -shm beside it (read-only folder, full disk)
                if "immutable" in mode:
                    raise
                db.close()
            else:
                return db
        raise AssertionError("unreachable")  # pragma: no cover

    def _check_schema(self, readable: tuple[str, ...]) -> None:
        try:
            schema = self.db.execute("SELECT value FROM meta WHERE name = 'schema'").fetchone()
        except sqlite3.OperationalError:  # no meta table: not a store
            schema = None
        if schema is None or schema[0] not in readable:
            raise BadInput("--store", f"{self.path} has store schema {schema and schema[0]!r}; "
                                      f"this fedbounds reads schema {SCHEMA_VERSION}")

    def _refuse_active_schema(self) -> None:
        """A store with triggers or views is not one fedbounds wrote: refused (exit 2)."""
        active = self.db.execute("SELECT type, name FROM sqlite_master "
                                 "WHERE type IN ('trigger', 'view')").fetchone()
        if active is not None:
            raise BadInput("--store", f"{self.path} is not a fedbounds result store: it has "
                                      f"a {active[0]} ({active[1]!r})")

    def _upgrade(self) -> None:
        """Schema 1 (rows without a digest) to 2: the column is added; the old rows, having no
        digest, are not trusted and are recomputed when next needed."""
        schema = self.db.execute("SELECT value FROM meta WHERE name = 'schema'").fetchone()
        if schema is None or schema[0] != "1":
            return
        for table in ("results", "derivations", "figures"):
            columns = {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}
            if "digest" not in columns:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN digest TEXT")
        self.db.execute("UPDATE meta SET value = ? WHERE name = 'schema'", (str(SCHEMA_VERSION),))

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    class _Transaction:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> sqlite3.Connection:
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, kind: type | None, *rest: object) -> None:
            self.db.execute("COMMIT" if kind is None else "ROLLBACK")

    def transaction(self) -> ResultStore._Transaction:
        """``with store.transaction():`` one atomic write."""
        return ResultStore._Transaction(self.db)

    def _row(self, table: str, key: str) -> dict[str, Any] | None:
        """The row of ``table`` under ``key`` as a dict (before any check), if any."""
        row = self.db.execute(f"SELECT * FROM {table} WHERE key = ?", (key,)).fetchone()
        return None if row is None else dict(row)

    # -- verdicts

    @_store_errors("read")
    def get(self, key: str, spec: ClaimSpec | None = None) -> Verdict | None:
        """The stored verdict under ``key``, if any and valid (:func:`.store_rows.result_problem`;
        with ``spec``, the key is also derived again from the row's claim, profile, seeds,
        overrides, version and source hash); an invalid row is ignored with a warning."""
        row = self._row("results", key)
        if row is None:
            return None
        problem = store_rows.result_problem(row)
        if problem is None and spec is not None and (row["claim"] != spec.id or result_key(
                spec, row["profile"], row["seed"], row["instance_seed"],
                json.loads(row["overrides"]), row["version"], row["source_hash"]) != key):
            problem = "its claim, seeds, overrides or sources do not give its key"
        if problem is None and row["key"] != key:
            problem = "it is stored under another key"
        if problem is not None:
            store_rows.warn_ignored(self.path, "results", key, problem)
            return None
        return verdict_of_row(row)

    @_store_errors("write to")
    def put(self, key: str, verdict: Verdict, *, profile: str, overrides: Mapping[str, Any],
            started_at: str, computed_at: str, backend: str,
            env: Mapping[str, str] | None = None) -> None:
        """Store (or replace) one verdict in its own transaction."""
        env = dict(env or environment())
        doc = verdict.as_json()
        row = {
            "key": key, "claim": verdict.id, "paper": verdict.id.split(".", 1)[0],
            "profile": profile, "seed": verdict.seed, "instance_seed": verdict.instance_seed,
            "overrides": json_text(dict(overrides)), "version": version(),
            "source_hash": source_hash(), "verdict": verdict.verdict,
            "statistic": verdict.statistic, "predicted": json_text(verdict.predicted),
            "tolerance": json_text(verdict.tolerance), "rule": verdict.rule,
            "evidence": json_text(doc["evidence"]), "config": json_text(doc["config"]),
            "figure": figure_json(verdict.figure),
            "extra": json_text({k: v for k, v in doc.items() if k not in _VERDICT_FIELDS}),
            "seconds": verdict.seconds, "started_at": started_at, "computed_at": computed_at,
            "backend": backend, **{c: env.get(c) for c in ENVIRONMENT_COLUMNS}}
        row = {k: sql_value(v) for k, v in row.items()}
        for column in ("statistic", "seconds"):  # REAL columns give floats back
            row[column] = None if row[column] is None else float(row[column])
        row["digest"] = store_rows.digest("results", row)
        names = ", ".join(RESULT_COLUMNS)
        marks = ", ".join(f":{c}" for c in RESULT_COLUMNS)
        with self.transaction():
            self.db.execute(f"INSERT OR REPLACE INTO results ({names}) VALUES ({marks})", row)

    @_store_errors("read")
    def rows(self, *, claim: str | None = None, paper: str | None = None,
             seed: int | None = None, instance_seed: int | None = None,
             verdict: str | None = None, profile: str | None = None) -> list[dict[str, Any]]:
        """Stored results as plain rows (JSON columns as text), filtered, in claim order."""
        where, args = [], []
        for column, value in (("claim", claim), ("paper", paper), ("seed", seed),
                              ("instance_seed", instance_seed), ("verdict", verdict),
                              ("profile", profile)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        sql = "SELECT * FROM results" + (" WHERE " + " AND ".join(where) if where else "")
        rows = []
        for row in map(dict, self.db.execute(sql, args)):
            problem = store_rows.result_problem(row)
            if problem is None:
                rows.append(row)
            else:
                store_rows.warn_ignored(self.path, "results", row.get("key"), problem)
        return sorted(rows, key=lambda r: (_natural(r["claim"]), r["profile"], r["seed"],
                                           r["instance_seed"], r["computed_at"]))

    @_store_errors("read")
    def measured_seconds(self, profile: str) -> dict[str, float]:
        """Claim id → the median seconds of its stored runs at ``profile`` (what longest-first
        scheduling orders by; a claim never stored is absent)."""
        runs: dict[str, list[float]] = {}
        for claim, seconds in self.db.execute(
                "SELECT claim, seconds FROM results WHERE profile = ?", (profile,)):
            if isinstance(seconds, int | float) and math.isfinite(seconds) and seconds >= 0:
                runs.setdefault(claim, []).append(float(seconds))
        return {claim: statistics.median(values) for claim, values in runs.items()}

    @_store_errors("read")
    def derivation_seconds(self) -> dict[str, float]:
        """Theorem id → the seconds its stored complexity derivation took."""
        return {theorem: float(seconds) for theorem, seconds in self.db.execute(
                "SELECT theorem, seconds FROM derivations") if isinstance(seconds, int | float)
                and math.isfinite(seconds) and seconds >= 0}

    @_store_errors("read")
    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM results").fetchone()[0]

    # -- derivations and figures

    @_store_errors("read")
    def derivation(self, key: str, theorem_id: str,
                   check: Callable[[Any], str | None] = lambda value: None) -> Any | None:
        """A stored derivation of ``theorem_id`` (JSON data), if any and valid: its digest,
        its key derived again from its theorem, version and source hash, and ``check(value)``
        (the caller's shape check, None when it passes); an invalid row is ignored with a
        warning."""
        row = self._row("derivations", key)
        if row is None:
            return None
        problem = store_rows.cached_problem("derivations", row)
        if problem is None and (row["theorem"] != theorem_id or derivation_key(
                theorem_id, row["version"], row["source_hash"]) != key):
            problem = "its theorem, version or sources do not give its key"
        value = None
        if problem is None:
            try:
                value = json.loads(row["value"])
            except (ValueError, TypeError, RecursionError):
                problem = "its value is not JSON"
            else:
                problem = check(value)
        if problem is not None:
            store_rows.warn_ignored(self.path, "derivations", key, problem)
            return None
        return value

    @_store_errors("write to")
    def put_derivation(self, key: str, theorem_id: str, value: Any, seconds: float) -> None:
        row = {"key": key, "theorem": theorem_id, "version": version(),
               "source_hash": source_hash(), "value": json_text(value), "seconds": seconds,
               "computed_at": now()}
        row["digest"] = store_rows.digest("derivations", row)
        with self.transaction():
            self.db.execute("INSERT OR REPLACE INTO derivations (key, theorem, version, "
                            "source_hash, value, seconds, computed_at, digest) VALUES (:key, "
                            ":theorem, :version, :source_hash, :value, :seconds, :computed_at, "
                            ":digest)", row)

    @_store_errors("read")
    def figure_svg(self, key: str) -> bytes | None:
        """A stored rendering of a figure, if any and valid (its digest, and SVG as matplotlib
        writes it: :func:`.store_rows.svg_problem`); an invalid row is ignored with a
        warning."""
        row = self._row("figures", key)
        if row is None:
            return None
        problem = store_rows.cached_problem("figures", row)
        svg = row["svg"] if isinstance(row["svg"], bytes) else None
        if problem is None:
            problem = "its svg is not bytes" if svg is None else store_rows.svg_problem(svg)
        if problem is not None:
            store_rows.warn_ignored(self.path, "figures", key, problem)
            return None
        return svg

    @_store_errors("write to")
    def put_figure_svg(self, key: str, svg: bytes) -> None:
        row = {"key": key, "svg": bytes(svg), "computed_at": now()}
        row["digest"] = store_rows.digest("figures", row)
        with self.transaction():
            self.db.execute("INSERT OR REPLACE INTO figures (key, svg, computed_at, digest) "
                            "VALUES (:key, :svg, :computed_at, :digest)", row)


def open_store(path: Path | None) -> ResultStore | None:
    """A :class:`ResultStore` at ``path``, or None for no store."""
    return None if path is None else ResultStore(path)


def cached_derivation(theorem_id: str, path: Path | None, compute: Callable[[], Any],
                      fresh: bool = False,
                      check: Callable[[Any], str | None] = lambda value: None) -> Any:
    """``compute()`` (a theorem's complexity derivation as JSON data: plain lists, dicts and
    strings, so reading it back costs nothing), from the store at ``path`` when it holds it
    and the stored value passes ``check`` (None: it does; else why not) (unless ``fresh``),
    else computed and stored."""
    if path is None:
        return compute()
    with ResultStore(path) as store:
        key = derivation_key(theorem_id)
        if not fresh:
            found = store.derivation(key, theorem_id, check)
            if found is not None:
                return found
        start = time.perf_counter()
        value = json.loads(json_text(compute()))
        store.put_derivation(key, theorem_id, value, time.perf_counter() - start)
        return value


def figure_key(figure: Figure, renderer: str) -> str:
    """The content hash of a figure's rendering: its data and the renderer (its source and the
    plotting library's version, given as ``renderer``)."""
    return hashlib.sha256(f"{figure_json(figure)}\0{renderer}".encode()).hexdigest()




def _natural(claim_id: str) -> tuple:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p)
                 for p in re.split(r"(\d+)", claim_id))
