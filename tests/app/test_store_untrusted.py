"""A result store is data, never code: payloads planted in every column of every table of a
store (and in a problem file, a ``--theorems`` value and ``--set`` values) run nothing, and the
answers stay right: a tampered row is ignored with a warning naming the store and recomputed,
so the report is byte for byte the one a clean store gives.

The paper is the test plugin's ``gda`` with two seeded stand-in claims (``conftest.py``): its
theorem has a claimed complexity, so the store holds all three tables (results, derivations,
figures)."""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fedbounds.app import store_rows
from fedbounds.app.cli import app
from fedbounds.app.complexity_rows import complexity_rows_problem
from fedbounds.app.report import write_report
from fedbounds.app.store import ResultStore, derivation_key, result_key
from fedbounds.verify import catalog
from fedbounds.verify.publication import round_number

TABLES = ("results", "derivations", "figures")


def payload(sentinel: Path) -> str:
    """Python that creates ``sentinel`` if anything evaluates it (the issue's reproduction)."""
    return f"__import__('os').system('touch {sentinel}') or Symbol('x')"


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in db.execute(f"PRAGMA table_info({table})")]


def plant(path: Path, table: str, column: str, value: object, redigest: bool = False) -> int:
    """Set ``column`` of every row of ``table`` to ``value`` (with ``redigest``, as a forger
    would: the row's digest computed again so that only the shape checks can catch it)."""
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    rows = [dict(r) for r in db.execute(f"SELECT * FROM {table}")]
    for i, row in enumerate(rows):
        new = {**row, column: f"{value}{i}" if column == "key" else value}  # keys stay unique
        if redigest:
            new["digest"] = store_rows.digest(table, new)
        db.execute(f"DELETE FROM {table} WHERE key = ?", (row["key"],))
        names = ", ".join(new)
        db.execute(f"INSERT INTO {table} ({names}) VALUES ({', '.join('?' * len(new))})",
                   tuple(new.values()))
    db.commit()
    db.close()
    return len(rows)


@pytest.fixture
def clean(gda, tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """A store written by a report over ``gda``, and the report's files."""
    db = tmp_path / "clean.sqlite"
    write_report(tmp_path / "clean", papers=["gda"], store=db, readme=False)
    with ResultStore(db) as store:
        counts = {t: store.db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}
    assert all(counts.values()), counts  # every table has rows to plant in
    with ResultStore(db) as store:
        FIGURE_KEYS[:] = [r[0] for r in store.db.execute("SELECT key FROM figures")]
    return db, folder_bytes(tmp_path / "clean")


FIGURE_KEYS: list[str] = []  # the figures' keys in the clean store: what a report looks up


def read_everything(path: Path) -> tuple[list, list, list, list]:
    """What the store gives back through every reading path: each claim's verdict (its key
    derived again), the listing, the derivation and the figures under the keys a report looks
    up (those of the clean store)."""
    table = catalog.claims()
    with ResultStore(path) as store:
        verdicts = [store.get(k, table[c]) if c in table else store.get(k)
                    for k, c in store.db.execute("SELECT key, claim FROM results").fetchall()]
        derivations = [store.derivation(derivation_key("gda.thm1"), "gda.thm1",
                                        lambda rows: complexity_rows_problem(rows, "gda.thm1"))]
        figures = [store.figure_svg(key) for key in FIGURE_KEYS]
        return verdicts, store.rows(), derivations, figures


def test_every_column_of_every_table_is_checked(clean, tmp_path: Path, caplog) -> None:
    """A payload in any one column (as it is, or as a JSON string) of every row: every
    reading path ignores the row, warns naming the store, and runs nothing."""
    db, _ = clean
    sentinel = tmp_path / "PWNED"
    with sqlite3.connect(db) as conn:
        planted = [(t, c) for t in TABLES for c in columns(conn, t)]
    assert len(planted) > 35
    for table, column in planted:
        for value in (payload(sentinel), json.dumps(payload(sentinel))):
            copy = tmp_path / f"{table}-{column}.sqlite"
            shutil.copy(db, copy)
            plant(copy, table, column, value)
            caplog.clear()
            with caplog.at_level(logging.WARNING, logger="fedbounds.store"):
                verdicts, rows, derivations, figures = read_everything(copy)
            got = {"results": verdicts + rows, "derivations": derivations,
                   "figures": figures}[table]
            assert not any(got), (table, column)
            if column != "key" or table == "results":  # else the row is not found: not read
                assert str(copy) in caplog.text, (table, column)
            assert not sentinel.exists()


# columns whose value is free text: a forged row with a valid digest may say anything there
# (it is shown escaped, never evaluated); every other column has a shape a payload fails
FREE_TEXT = {"rule", "python", "numpy", "scipy", "sympy", "blas", "platform", "host"}


def test_a_forged_digest_does_not_pass_the_shape_checks(clean, tmp_path: Path) -> None:
    """A forger who also writes a matching digest: the payload still fails the column's shape
    (claim id, key derived again, verdict kind, JSON object, ISO time, SVG, expression tree),
    except in free-text columns, where it is kept as text and runs nothing."""
    db, _ = clean
    sentinel = tmp_path / "PWNED"
    with sqlite3.connect(db) as conn:
        planted = [(t, c) for t in TABLES for c in columns(conn, t) if c != "digest"]
    for table, column in planted:
        copy = tmp_path / f"forged-{table}-{column}.sqlite"
        shutil.copy(db, copy)
        plant(copy, table, column, payload(sentinel), redigest=True)
        verdicts, rows, derivations, figures = read_everything(copy)
        got = {"results": verdicts, "derivations": derivations, "figures": figures}[table]
        if column in FREE_TEXT:  # kept as text, the verdicts unchanged
            assert all(got) and len(rows) == len(got), column
            assert all(payload(sentinel) in (v.rule, *r.values())
                       for v, r in zip(got, rows, strict=True)), column
        else:
            assert not any(got), (table, column)
        assert not sentinel.exists()


def test_forged_expression_trees_are_not_evaluated(clean, tmp_path: Path) -> None:
    """The stored complexity orders are trees rebuilt from a fixed vocabulary: a payload as a
    node name, a symbol name, an integer or a float is refused, with or without a digest."""
    db, _ = clean
    sentinel = tmp_path / "PWNED"
    text = payload(sentinel)
    with ResultStore(db) as store:
        rows = store.derivation(derivation_key("gda.thm1"), "gda.thm1")
    assert rows and any(r.get("derived_tree") for r in rows)
    for tree in ([text], ["Symbol", text, {}], ["Integer", text], ["Float", text],
                 ["Function", text, ["Integer", "1"]], ["Symbol", "x", {text: True}],
                 ["Integer", "9" * 1001], "x" * 10):
        forged = [{**r, "derived_tree": tree} if r.get("derived_tree") else r for r in rows]
        copy = tmp_path / "tree.sqlite"
        shutil.copy(db, copy)
        plant(copy, "derivations", "value", json.dumps(forged), redigest=True)
        assert read_everything(copy)[2] == [None], tree
    assert not sentinel.exists()


def test_a_tampered_store_gives_the_clean_report(clean, tmp_path: Path, caplog) -> None:
    """Every column of every table planted at once: the report recomputes what it needs and
    writes the same bytes as from the clean store; ``results`` lists no tampered row and
    ``verify`` gives the clean verdicts; nothing ran."""
    db, files = clean
    sentinel = tmp_path / "PWNED"
    for table in TABLES:
        with sqlite3.connect(db) as conn:
            names = [c for c in columns(conn, table) if c not in ("key", "digest")]
        for column in names:
            plant(db, table, column, payload(sentinel))
    with caplog.at_level(logging.WARNING, logger="fedbounds.store"):
        summary = write_report(tmp_path / "again", papers=["gda"], store=db, readme=False)
    assert [c["cached"] for c in summary["claims"]] == [False, False]
    assert folder_bytes(tmp_path / "again") == files
    assert str(db) in caplog.text
    listed = CliRunner().invoke(app, ["results", "--store", str(db), "--format", "json"])
    assert listed.exit_code == 0, listed.output
    assert all(payload(sentinel) not in json.dumps(r) for r in json.loads(listed.stdout)["results"])
    verified = CliRunner().invoke(app, ["verify", "gda", "--store", str(db), "--json"])
    assert verified.exit_code == 0, verified.output
    clean_verdicts = json.loads((tmp_path / "clean" / "verdicts.json").read_text())["claims"]
    # the report publishes DIGITS significant digits (gda's claims declare nothing else);
    # `verify --json` gives the full-precision statistic
    assert [round_number(c["statistic"]) for c in json.loads(verified.stdout)["claims"]] == [
        c["statistic"] for c in clean_verdicts]
    assert not sentinel.exists()


def test_an_older_store_with_srepr_payloads_runs_nothing(gda, clean, tmp_path: Path) -> None:
    """The issue's reproduction on a schema-1 store (``srepr`` text that used to be parsed by
    ``sympify``): its rows have no digest, so they are recomputed; the report is the clean
    one."""
    _, files = clean
    sentinel = tmp_path / "PWNED"
    old = tmp_path / "old.sqlite"
    conn = sqlite3.connect(old)
    conn.executescript("""
        CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema', '1');
        CREATE TABLE derivations (key TEXT PRIMARY KEY, theorem TEXT NOT NULL,
            version TEXT NOT NULL, source_hash TEXT NOT NULL, value TEXT NOT NULL,
            seconds REAL, computed_at TEXT NOT NULL);""")
    rows = [{"theorem": "gda.thm1", "regime": "general", "cost": "communications",
             "derived": "x", "claimed": "x", "derived_srepr": payload(sentinel),
             "claimed_srepr": payload(sentinel), "verdict": "agree", "note": "", "detail": ""}]
    from fedbounds.app.store import source_hash, version

    conn.execute("INSERT INTO derivations VALUES (?, 'gda.thm1', ?, ?, ?, 0.1, "
                 "'2026-01-01T00:00:00')",
                 (derivation_key("gda.thm1"), version(), source_hash(), json.dumps(rows)))
    conn.commit()
    conn.close()
    write_report(tmp_path / "from-old", papers=["gda"], store=old, readme=False)
    assert folder_bytes(tmp_path / "from-old") == files
    assert not sentinel.exists()


def test_a_store_with_triggers_or_a_bad_schema_is_refused(clean, tmp_path: Path) -> None:
    """A store fedbounds did not write (a trigger, a view, an unknown schema): exit 2 naming
    it, before anything is read."""
    db, _ = clean
    sentinel = tmp_path / "PWNED"
    for sql in ("CREATE TRIGGER t AFTER INSERT ON results BEGIN DELETE FROM figures; END",
                "CREATE VIEW v AS SELECT * FROM results",
                f"UPDATE meta SET value = \"{payload(sentinel)}\" WHERE name = 'schema'"):
        copy = tmp_path / "refused.sqlite"
        shutil.copy(db, copy)
        with sqlite3.connect(copy) as conn:
            conn.execute(sql)
        result = CliRunner().invoke(app, ["results", "--store", str(copy)])
        assert result.exit_code == 2, (sql, result.output)
        assert "--store" in result.output and str(copy) in result.output.replace("\n", "")
    assert not sentinel.exists()


def test_the_key_is_derived_again_from_the_row(clean) -> None:
    """A row moved under another claim's key is not that claim's verdict."""
    db, _ = clean
    table = catalog.claims()
    with ResultStore(db) as store:
        one, two = (table[c] for c in ("gda.p901", "gda.p902"))
        key_one, key_two = (result_key(s, "quick", 0) for s in (one, two))
        assert store.get(key_one, one) is not None
        store.db.execute("DELETE FROM results WHERE key = ?", (key_two,))
        row = dict(store.db.execute("SELECT * FROM results WHERE key = ?",
                                    (key_one,)).fetchone())
        row["key"] = key_two
        row["digest"] = store_rows.digest("results", row)
        store.db.execute(f"INSERT INTO results ({', '.join(row)}) VALUES "
                         f"({', '.join('?' * len(row))})", tuple(row.values()))
        assert store.get(key_two, two) is None


@pytest.mark.parametrize("argv", [
    ["check", "proxskip.thm3.1", "--set", "p=__import__('os').system('touch {s}')"],
    ["check", "proxskip.thm3.1", "--set", "__import__('os').system('touch {s}')=1"],
    ["bound", "fednorm.cor2.1", "--set", "P=exec('open(\"{s}\",\"w\")')"],
    ["run", "local-gda", "--problem", "minmax-scalar", "--set", "mu=eval('1')+0*len('{s}')"],
    ["check", "{s}.py:proxskip.thm3.1", "--set", "p=1"],
    ["check", "proxskip.thm3.1", "--theorems", "__import__('os').system('touch {s}')"],
    ["pep", "proxskip.thm3.1", "--set", "gamma=__import__('os').system('touch {s}')"],
    ["verify", "__import__('os').system('touch {s}')", "--store", "off"],
])
def test_payloads_on_the_command_line_run_nothing(argv: list[str], tmp_path: Path) -> None:
    sentinel = tmp_path / "PWNED"
    result = CliRunner().invoke(app, [a.replace("{s}", str(sentinel)) for a in argv])
    assert result.exit_code == 2, result.output
    assert not sentinel.exists()


@pytest.mark.parametrize("array", ["__import__('os').system('touch {s}')",
                                   ["__import__('os').system('touch {s}')"]])
def test_a_problem_file_with_payloads_runs_nothing(array: object, tmp_path: Path) -> None:
    sentinel = tmp_path / "PWNED"
    value = json.loads(json.dumps(array).replace("{s}", str(sentinel)))
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"J": value, "b": [[0.0, 0.0]]}))
    result = CliRunner().invoke(app, ["constants", "--problem-file", str(path), "--json"])
    assert result.exit_code == 2, result.output
    assert "J" in result.output
    assert not sentinel.exists()
