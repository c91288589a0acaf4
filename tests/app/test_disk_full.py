"""A file system that refuses writes leaves every target whole or absent and exits 2 naming it.

The "full disk" is ``ulimit -f`` (``RLIMIT_FSIZE``) in the command's own process: a write
past the limit fails with ``EFBIG`` (Python ignores ``SIGXFSZ``), exactly where a full disk
fails with ``ENOSPC``; both map to the same message (``fedbounds.app.files.REFUSED``). Each
target exists beforehand with known content, so "whole" means: still that content, and no
temporary file left beside it. A read-only or corrupt store is exit 2 too, and ``results``
reads a read-only store.
"""

from __future__ import annotations

import os
import resource
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from fedbounds.app.store import ResultStore
from fedbounds.verify.claim import Verdict

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ROOT / "tests" / "plugins"
LIMIT = 4096  # bytes any one file may reach: far below every export and page written here


def fedbounds(args: list[str], cwd: Path, limit: int | None = LIMIT) -> subprocess.CompletedProcess:
    """The CLI in a fresh process whose files may not grow past ``limit`` bytes."""

    def cap() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = {**os.environ, "PYTHONPATH": str(PLUGINS), "FEDBOUNDS_PAPERS": "toygda",
           "NUMBA_CACHE_DIR": str(cwd / "numba-cache")}
    return subprocess.run([sys.executable, "-m", "fedbounds", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, preexec_fn=cap, timeout=300)


def store_with_rows(path: Path, n: int = 60) -> None:
    with ResultStore(path) as db:
        for i in range(n):
            verdict = Verdict(f"gda.p{900 + i}", "confirmed", 0.5 + i, 0.5, 0.1,
                              {"note": "x" * 100}, seed=i)
            db.put(f"key{i}", verdict, profile="quick", overrides={},
                   started_at="2026-01-01T00:00:00", computed_at="2026-01-01T00:00:01",
                   backend="serial")


def leftovers(folder: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_results_export_is_whole_or_absent(fmt: str, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    store_with_rows(store)
    out = tmp_path / "out" / f"export.{fmt}"
    out.parent.mkdir()
    out.write_text("OLD")
    result = fedbounds(["results", "--store", str(store), "--format", fmt, "--out", str(out)],
                       tmp_path)
    assert result.returncode == 2, result.stderr
    assert str(out) in result.stderr.replace("\n", "") and "file too large" in result.stderr
    assert out.read_text() == "OLD"
    assert leftovers(out.parent, {out.name}) == []
    whole = fedbounds(["results", "--store", str(store), "--format", fmt, "--out", str(out)],
                      tmp_path, limit=None)
    assert whole.returncode == 0, whole.stderr
    assert out.stat().st_size > LIMIT  # the limit is what stopped it


def test_snapshot_is_whole_or_absent(tmp_path: Path) -> None:
    out = tmp_path / "snapshots"
    out.mkdir()
    (out / "gda.snapshot").write_text("OLD")
    args = ["snapshot", "--paper", "gda", "--no-orders", "--out", str(out)]
    result = fedbounds(args, tmp_path, limit=256)
    assert result.returncode == 2, result.stderr
    assert "gda.snapshot" in result.stderr and "file too large" in result.stderr
    assert (out / "gda.snapshot").read_text() == "OLD"
    assert leftovers(out, {"gda.snapshot"}) == []


def test_report_is_whole_or_absent(tmp_path: Path) -> None:
    out = tmp_path / "reports"
    args = ["report", "--paper", "gda", "--store", "off", "--out", str(out)]
    first = fedbounds(args, tmp_path, limit=None)
    assert first.returncode == 0, first.stderr
    (out / "index.html").write_text((out / "index.html").read_text() + "<!-- OLD -->")
    before = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    result = fedbounds(args, tmp_path)
    assert result.returncode == 2, result.stderr
    assert "--out" in result.stderr and "file too large" in result.stderr
    assert {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".report-")] == []


def test_verify_store_keeps_its_rows(tmp_path: Path) -> None:
    """The store cannot grow: exit 2 naming it, and it still holds every row it had."""
    store = tmp_path / "s.sqlite"
    store_with_rows(store, n=5)
    result = fedbounds(["verify", "gda", "--store", str(store)], tmp_path)
    assert result.returncode == 2, result.stderr
    assert "--store" in result.stderr and str(store) in result.stderr.replace("\n", "")
    with ResultStore(store) as db:
        assert db.count() == 5 and len(db.rows()) == 5


def test_a_corrupt_store_is_bad_input(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    store_with_rows(store, n=40)
    with sqlite3.connect(store) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(store.read_bytes())
    data[4096:8192] = b"\xff" * 4096  # a page past the header
    store.write_bytes(bytes(data))
    for args in (["results", "--store", str(store)], ["verify", "gda", "--store", str(store)]):
        result = fedbounds(args, tmp_path, limit=None)
        assert result.returncode == 2, (args, result.stderr)
        assert "malformed" in result.stderr and str(store) in result.stderr.replace("\n", "")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files anyway")
def test_a_read_only_store_is_read_by_results(tmp_path: Path) -> None:  # pragma: no cover
    folder = tmp_path / "archive"
    folder.mkdir()
    store = folder / "s.sqlite"
    store_with_rows(store, n=3)
    folder.chmod(0o555)
    store.chmod(0o444)
    try:
        listed = fedbounds(["results", "--store", str(store), "--format", "csv"], tmp_path)
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.count("gda.p90") == 3
        verified = fedbounds(["verify", "gda", "--store", str(store)], tmp_path)
        assert verified.returncode == 2 and "--store" in verified.stderr
    finally:
        folder.chmod(0o755)


def test_a_read_only_store_is_read_by_results_as_root_too(tmp_path: Path) -> None:
    """Root may write any file, so the read-only case is an immutable snapshot of the store
    (what ``results`` opens when it may not write beside the file): a copy opened read-only
    gives the same rows and writes nothing."""
    store = tmp_path / "s.sqlite"
    store_with_rows(store, n=3)
    copy = tmp_path / "copy.sqlite"
    shutil.copy(store, copy)
    before = copy.read_bytes()
    with ResultStore(copy, readonly=True) as db:
        assert [r["claim"] for r in db.rows()] == ["gda.p900", "gda.p901", "gda.p902"]
    assert copy.read_bytes() == before


@pytest.fixture
def read_only_folder(tmp_path: Path):
    """A folder on a file system mounted read-only (a small tmpfs, remounted ``ro``), holding a
    copy of a store with three rows; skipped where this process may not mount."""
    store = tmp_path / "s.sqlite"
    store_with_rows(store, n=3)
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs",
                                            str(folder)], capture_output=True).returncode:
        pytest.skip("cannot mount a file system here")
    try:
        shutil.copy(store, folder / "s.sqlite")
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], capture_output=True)


def test_a_store_on_a_read_only_file_system(read_only_folder: Path, tmp_path: Path) -> None:
    """``results`` reads it; ``verify`` may not write to it (exit 2 naming it); an export into
    the read-only folder is exit 2 naming the file."""
    store = read_only_folder / "s.sqlite"
    listed = fedbounds(["results", "--store", str(store), "--format", "csv"], tmp_path, None)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.count("gda.p90") == 3
    verified = fedbounds(["verify", "gda", "--store", str(store)], tmp_path, None)
    assert verified.returncode == 2, verified.stderr
    assert "--store" in verified.stderr and str(store) in verified.stderr.replace("\n", "")
    out = read_only_folder / "rows.csv"
    exported = fedbounds(["results", "--store", str(store), "--format", "csv", "--out",
                          str(out)], tmp_path, None)
    assert exported.returncode == 2, exported.stderr
    assert str(out) in exported.stderr.replace("\n", "") and "read-only" in exported.stderr
    assert not out.exists()
