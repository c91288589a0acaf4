"""``fedbounds results``: list, filter and export what the result store holds.

Every stored row is shown, whatever its seed, so a verdict's spread over seeds is visible (a
second table counts each claim's verdicts over its noise seeds); ``current`` says whether a row
was computed by the code installed now (same version and source hash). ``--format csv|json|
parquet`` exports the rows (every column; evidence, config, figure and the like as JSON text in
CSV and Parquet, as JSON values in JSON) to stdout or ``--out FILE`` (Parquet needs
``--out`` and pyarrow).
"""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from fedbounds.errors import BadInput

from . import store as result_store
from .common import app, esc, fmt, g, guarded, out
from .files import atomic_file, write_atomic

VERDICTS = ("confirmed", "refuted", "inconclusive", "diverged")
FORMATS = ("table", "csv", "json", "parquet")
EXPORT_COLUMNS = (*result_store.RESULT_COLUMNS, "current")

StoreOpt = Annotated[str | None, typer.Option(
    "--store", metavar="PATH", help=f"the result store (default ${result_store.ENV} or "
    f"{result_store.DEFAULT_PATH}; 'off' for none)")]


@app.command()
@guarded
def results(target: Annotated[str | None, typer.Argument(
                metavar="[CLAIM|PAPER]", help="only this claim id or paper")] = None,
            claim: Annotated[str | None, typer.Option("--claim", help="only this claim id")] = None,
            paper: Annotated[str | None, typer.Option("--paper", help="only this paper")] = None,
            seed: Annotated[int | None, typer.Option("--seed", help="only this noise seed")] = None,
            instance_seed: Annotated[int | None, typer.Option(
                "--instance-seed", help="only this instance seed")] = None,
            verdict: Annotated[str | None, typer.Option(
                "--verdict", help="only this verdict: " + ", ".join(VERDICTS))] = None,
            profile: Annotated[str | None, typer.Option("--profile", help="only this profile")
                               ] = None,
            current: Annotated[bool, typer.Option(
                "--current", help="only rows computed by the code installed now")] = False,
            format_: Annotated[str, typer.Option(
                "--format", help="table (default), csv, json or parquet")] = "table",
            out_file: Annotated[Path | None, typer.Option(
                "--out", metavar="FILE", help="write the export here instead of stdout")] = None,
            store: StoreOpt = None) -> None:
    """List and export stored results (every seed: a verdict's spread is visible)."""
    if format_ not in FORMATS:
        raise BadInput("--format", f"{format_!r} is not a format; allowed: {', '.join(FORMATS)}")
    if verdict is not None and verdict not in VERDICTS:
        raise BadInput("--verdict", f"{verdict!r} is not a verdict; allowed: "
                                    f"{', '.join(VERDICTS)}")
    for name, value in (("--seed", seed), ("--instance-seed", instance_seed)):
        if value is not None and value < 0:
            raise BadInput(name, f"must be a non-negative integer, got {value}")
    if format_ == "parquet" and out_file is None:
        raise BadInput("--out", "parquet is binary: give --out FILE")
    if format_ == "table" and out_file is not None:
        raise BadInput("--out", "the table is for the terminal; export a file with --format "
                                "csv, json or parquet")
    if target is not None:
        if "." in target:
            claim = claim or target
        else:
            paper = paper or target
    rows = read_rows(result_store.store_path(store), claim=claim, paper=paper, seed=seed,
                     instance_seed=instance_seed, verdict=verdict, profile=profile)
    if current:
        rows = [r for r in rows if r["current"]]
    if format_ == "table":
        show(rows)
    elif format_ == "parquet":
        write_parquet(rows, out_file)
    else:
        text = to_json(rows) if format_ == "json" else to_csv(rows)
        if out_file is None:
            sys.stdout.write(text)
        else:
            _check_writable(out_file)
            write_atomic(out_file, text, "--out")


def read_rows(path: Path | None, **filters: Any) -> list[dict[str, Any]]:
    """Stored rows (filtered), each with ``current``; the store must exist (it is not made)."""
    if path is None:
        raise BadInput("--store", "the result store is off; name one with --store PATH")
    if not path.is_file():
        raise BadInput("--store", f"no result store at {path} (verify and report create it)")
    with result_store.ResultStore(path, readonly=True) as db:
        rows = db.rows(**filters)
    version, source = result_store.version(), result_store.source_hash()
    for row in rows:
        row["current"] = row["version"] == version and row["source_hash"] == source
    return rows


def spread(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per claim, profile and instance seed: verdict counts over the stored noise seeds, the
    most common verdict and the share of seeds that gave it (its agreement)."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["claim"], row["profile"], row["instance_seed"]), []).append(row)
    summary = []
    for (claim_id, profile, instance_seed), members in groups.items():
        counts = Counter(r["verdict"] for r in members)
        top, top_count = counts.most_common(1)[0]
        summary.append({"claim": claim_id, "profile": profile, "instance_seed": instance_seed,
                        "seeds": sorted({r["seed"] for r in members}),
                        "counts": {k: counts.get(k, 0) for k in VERDICTS},
                        "verdict": top, "agreement": top_count / len(members)})
    return summary


def show(rows: list[dict[str, Any]]) -> None:
    """The rows as a table, then the spread of claims stored at more than one seed."""
    t = Table(title=f"{len(rows)} stored result(s)")
    for col in ("claim", "profile", "seed", "inst", "verdict", "statistic", "s",
                "computed (UTC)", "current"):
        t.add_column(col, no_wrap=col in ("claim", "verdict"))
    for r in rows:
        t.add_row(*esc(r["claim"], r["profile"], r["seed"], r["instance_seed"], r["verdict"],
                       fmt(r["statistic"]), g(r["seconds"]), r["computed_at"][:19],
                       "yes" if r["current"] else "no"))
    out.print(t)
    wide = [s for s in spread(rows) if len(s["seeds"]) > 1]
    if not wide:
        return
    s = Table(title="spread over noise seeds")
    for col in ("claim", "profile", "inst", "seeds", *VERDICTS, "agreement"):
        s.add_column(col, no_wrap=col == "claim")
    for row in wide:
        s.add_row(*esc(row["claim"], row["profile"], row["instance_seed"], len(row["seeds"]),
                       *(row["counts"][k] for k in VERDICTS), f"{row['agreement']:.0%}"))
    out.print(s)


def to_json(rows: list[dict[str, Any]]) -> str:
    """``{"results": [...]}`` with JSON columns as values (non-finite numbers as null)."""
    return json.dumps({"results": [_finite(result_store.decoded(r)) for r in rows]}, indent=1,
                      allow_nan=False) + "\n"


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def to_csv(rows: list[dict[str, Any]]) -> str:
    """Every column, JSON columns as JSON text."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=EXPORT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def arrow_table(rows: list[dict[str, Any]]) -> Any:
    """The rows as a pyarrow Table with a fixed schema (JSON columns as strings)."""
    try:
        import pyarrow as pa
    except ImportError:
        raise BadInput("--format", "parquet needs pyarrow: pip install 'fedbounds[parquet]'"
                       ) from None
    integers = {"seed", "instance_seed"}
    floats = {"statistic", "seconds"}
    fields = [pa.field(c, pa.int64() if c in integers else pa.float64() if c in floats
                       else pa.bool_() if c == "current" else pa.string())
              for c in EXPORT_COLUMNS]
    return pa.Table.from_pylist([{c: r.get(c) for c in EXPORT_COLUMNS} for r in rows],
                                schema=pa.schema(fields))


def write_parquet(rows: list[dict[str, Any]], path: Path) -> None:
    table = arrow_table(rows)
    import pyarrow.parquet as pq

    _check_writable(path)
    with atomic_file(path, "--out") as tmp:
        pq.write_table(table, tmp)


def _check_writable(path: Path) -> None:
    if path.is_dir():
        raise BadInput("--out", f"{path} is a folder")
    if not path.parent.exists():
        raise BadInput("--out", f"{path.parent} does not exist")

