"""``fedbounds results``: listing, filters, the spread over seeds, and CSV / JSON / Parquet
exports that round-trip in pandas and pyarrow."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from fedbounds.app.cli import app
from fedbounds.app.store import ResultStore
from fedbounds.verify.claim import Figure, Verdict

# claim → verdict per noise seed 0, 1, 2 (instance seed 0); p2 at seed 0 also at instance seed 5
OUTCOMES = {"proxskip.p901": ["confirmed", "refuted", "confirmed"],
            "feddro.p902": ["refuted", "refuted", "refuted"]}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "results.sqlite"
    with ResultStore(path) as db:
        for claim_id, verdicts in OUTCOMES.items():
            for seed, kind in enumerate(verdicts):
                verdict = Verdict(claim_id, kind, 0.1 * (seed + 1), "<= 0.15", 1e-3,
                                  {"seed": seed, "ratio": [1.0, None]},
                                  Figure("t", "x", "y", {"s": ([0, 1], [1.0, math.nan])}),
                                  {"algorithm": "a", "seed": seed}, 2.5 + seed, "rule",
                                  seed=seed)
                day = f"2026-01-0{seed + 1}"
                db.put(f"{claim_id}-{seed}", verdict, profile="quick", overrides={},
                       started_at=f"{day}T00:00:00", computed_at=f"{day}T00:00:01",
                       backend="serial")
        db.put("inst", Verdict("feddro.p902", "confirmed", 0.5, "<= 0.15", 1e-3, {},
                               seed=0, instance_seed=5),
               profile="quick", overrides={}, started_at="2026-01-02T00:00:00", computed_at="2026-01-02T00:00:01", backend="dask")
    return path


def invoke(*args: str):
    return CliRunner().invoke(app, ["results", *args])


def exported(store: Path, *args: str) -> list[dict]:
    result = invoke("--store", str(store), "--format", "json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["results"]


def test_json_lists_every_seed_with_decoded_columns(store: Path) -> None:
    rows = exported(store)
    assert len(rows) == 7
    assert [(r["claim"], r["seed"], r["instance_seed"]) for r in rows] == [
        ("feddro.p902", 0, 0), ("feddro.p902", 0, 5), ("feddro.p902", 1, 0),
        ("feddro.p902", 2, 0), ("proxskip.p901", 0, 0), ("proxskip.p901", 1, 0),
        ("proxskip.p901", 2, 0)]
    first = rows[4]
    assert first["evidence"] == {"seed": 0, "ratio": [1.0, None]}
    assert first["figure"]["series"]["s"] == [[0, 1], [1.0, None]]  # NaN exported as null
    assert first["predicted"] == "<= 0.15" and first["tolerance"] == 1e-3
    assert first["seconds"] == 2.5 and first["backend"] == "serial"
    assert first["python"] and first["numpy"] and first["current"] is True


@pytest.mark.parametrize(("args", "expected"), [
    (["proxskip"], {("proxskip.p901", 0), ("proxskip.p901", 1), ("proxskip.p901", 2)}),
    (["--claim", "feddro.p902", "--instance-seed", "5"], {("feddro.p902", 0)}),
    (["--verdict", "refuted"], {("proxskip.p901", 1), ("feddro.p902", 0), ("feddro.p902", 1),
                                ("feddro.p902", 2)}),
    (["--seed", "2", "--paper", "feddro"], {("feddro.p902", 2)}),
    (["--profile", "full"], set()),
])
def test_filters(store: Path, args: list[str], expected: set) -> None:
    assert {(r["claim"], r["seed"]) for r in exported(store, *args)} == expected


def test_table_shows_the_spread_over_seeds(store: Path) -> None:
    result = CliRunner().invoke(app, ["results", "--store", str(store)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "7 stored result(s)" in result.output and "spread over noise seeds" in result.output
    spread = result.output.split("spread over noise seeds")[1]
    line = next(x for x in spread.splitlines() if "proxskip.p901" in x)
    cells = [c.strip() for c in line.strip("│ ").split("│")]
    assert cells[3:] == ["3", "2", "1", "0", "0", "67%"]  # seeds, counts, agreement 2/3
    line = next(x for x in spread.splitlines() if "feddro.p902" in x)
    assert line.rstrip(" │").endswith("100%")


def test_csv_round_trips_in_pandas(store: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    result = invoke("--store", str(store), "--format", "csv", "--out", str(target))
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(target)
    rows = exported(store)
    assert list(frame["claim"]) == [r["claim"] for r in rows]
    assert list(frame["seed"]) == [r["seed"] for r in rows]
    assert list(frame["verdict"]) == [r["verdict"] for r in rows]
    assert list(frame["statistic"]) == pytest.approx([r["statistic"] for r in rows])
    assert [json.loads(e) for e in frame["evidence"]] == [r["evidence"] for r in rows]


def test_parquet_round_trips_in_pyarrow(store: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.parquet"
    result = invoke("--store", str(store), "--format", "parquet", "--out", str(target))
    assert result.exit_code == 0, result.output
    table = pq.read_table(target)
    assert str(table.schema.field("seed").type) == "int64"
    assert str(table.schema.field("statistic").type) == "double"
    back = table.to_pylist()
    rows = exported(store)
    assert len(back) == len(rows)
    for parquet_row, json_row in zip(back, rows, strict=True):
        for column in ("key", "claim", "seed", "instance_seed", "verdict", "statistic",
                       "seconds", "computed_at", "blas", "current"):
            assert parquet_row[column] == json_row[column], column
        assert json.loads(parquet_row["config"]) == json_row["config"]


@pytest.mark.parametrize(("args", "argument"), [
    (["--format", "xml"], "--format"),
    (["--format", "parquet"], "--out"),
    (["--verdict", "maybe"], "--verdict"),
    (["--seed", "-1"], "--seed"),
])
def test_bad_input_exits_2(store: Path, args: list[str], argument: str) -> None:
    result = invoke("--store", str(store), *args)
    assert result.exit_code == 2 and argument in result.output


def test_missing_store_is_bad_input_and_not_created(tmp_path: Path) -> None:
    result = invoke("--store", str(tmp_path / "none.sqlite"))
    assert result.exit_code == 2 and "--store" in result.output
    assert not (tmp_path / "none.sqlite").exists()
