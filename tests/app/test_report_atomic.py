"""The report is swapped in whole: a run killed (SIGKILL) at any point leaves the old report or
the new one, byte for byte, and no temporary folder beside it; ``--out`` that is a file or a
folder of someone else's files is refused (exit 2) without writing anything.

The runs are ``fedbounds report --paper gda`` (the test plugin's paper, one small theorem, the
only one loaded) in a subprocess whose claims are two fast stand-ins (seeded noise, so ``--seed
1`` and ``--seed 2`` give different statistics, figures and pages) and no result store (every
run computes its claims). Nothing is pinned: two runs at one seed give the same bytes because
the report holds results only (no seconds, times or host). The driver replaces one
internal function by one that SIGKILLs the process on its k-th call; it loads everything once
and runs each report in a forked child (the slow test also runs it as a fresh program).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fedbounds.app import lifecycle
from fedbounds.app.cli import app
from fedbounds.app.report import write_report
from fedbounds.errors import BadInput
from fedbounds.verify import catalog

PLUGINS = str(Path(__file__).resolve().parents[1] / "plugins")
DRIVER = r"""
import copy, importlib, os, signal, sys

import numpy as np

from fedbounds import plugins, registry
from fedbounds.app import figures, lifecycle, report, runner
from fedbounds.app.cli import main
from fedbounds.verify import catalog
from fedbounds.verify.claim import FigureSpec, Interval, Measurement, claim

# the one paper: the test plugin "gda" (one small theorem), without loading the built-in ones
sys.path.insert(0, sys.argv.pop(1))
every_module = plugins.modules
plugins.modules = lambda builtin, layer: (
    [importlib.import_module("toygda.theorems")] if layer == "theorems"
    else every_module(builtin, layer))
registry.clear_caches()


def stand_in(claim_id, drawn):
    @claim(claim_id, title="stand-in <T> & co", prediction="mean of U(0,1) < 1", source="test",
           provenance="conjecture", rule=Interval(0.5, 0.5), figure=FigureSpec("noise", "i", "x"))
    def measure(params, seed):
        x = np.random.default_rng(seed).random(8)
        series = {"x": (list(range(8)), x.tolist())} if drawn else {}  # one figure is enough
        return Measurement(float(x.mean()), series=series)
    return measure


CLAIMS = {c.id: c for c in (stand_in("gda.p901", True), stand_in("gda.p902", False))}
catalog.claims = lambda: CLAIMS
os.environ["FEDBOUNDS_STORE"] = "off"  # every run computes (and so reaches) its claims
calls = {}


def die():
    os.kill(os.getpid(), signal.SIGKILL)


def killing(module, name, nth, after=False, only_after_swap=False):
    original = getattr(module, name)

    def wrapper(*args, **kwargs):
        if only_after_swap and not calls.get("swapped"):
            return original(*args, **kwargs)
        calls[name] = calls.get(name, 0) + 1
        if calls[name] == nth and not after:
            die()
        result = original(*args, **kwargs)
        if calls[name] == nth and after:
            die()
        return result

    setattr(module, name, wrapper)


def prepare(point, nth):
    if point == "claim":
        killing(runner, "run_claim", nth)
    elif point == "render":
        killing(report, "render_pages", nth)
    elif point == "figure":  # drawn where the claim ran (here: the serial backend)
        killing(figures, "render_svg", nth)
    elif point == "page":
        killing(report, "_write_page", nth)
    elif point in ("before-exchange", "after-exchange"):
        killing(lifecycle, "exchange", nth, after=point == "after-exchange")
    elif point == "remove-old":
        exchange = lifecycle.exchange

        def exchange_and_note(*args):
            done = exchange(*args)
            calls["swapped"] = True
            return done

        lifecycle.exchange = exchange_and_note
        killing(os, "unlink", nth, only_after_swap=True)
    elif point == "between-renames":  # the fallback where RENAME_EXCHANGE is unavailable
        lifecycle.exchange = lambda first, second: calls.update(swapped=True) or False
        killing(os, "rename", nth, only_after_swap=True)
    elif point == "fallback":
        lifecycle.exchange = lambda first, second: False


def report_cli(point, nth, out, seed):
    prepare(point, int(nth))
    sys.argv = ["fedbounds", "report", "--paper", "gda", "--out", out, "--seed", seed]
    main()


if sys.argv[1] != "serve":
    report_cli(*sys.argv[1:])
    sys.exit(0)
# serve: load everything once (the theorem, matplotlib, the theory page), then run each
# request in a forked child and answer with its exit code
import matplotlib.pyplot  # noqa: E402,F401

computed = report.theory
THEORY = computed("gda")


def theory_once(paper, *store_and_fresh):
    return copy.deepcopy(THEORY) if paper == "gda" else computed(paper, *store_and_fresh)


report.theory = theory_once
catalog.predictions()  # every claims module imported once (the pages count predictions)
warm_up = CLAIMS["gda.p901"].run("quick", 0).figure  # fonts and text metrics, loaded once
report._figure_svg(warm_up, os.devnull)
print("ready", flush=True)
for line in sys.stdin:
    point, nth, out, seed, log = line.split()
    child = os.fork()
    if child == 0:
        sink = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(sink, 1)
        os.dup2(sink, 2)
        try:
            report_cli(point, nth, out, seed)
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    _, status = os.waitpid(child, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
"""


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    """``run(out, seed, point, nth)``: a report run in a child of one process that loaded
    everything once; returns its exit code (-9 when it killed itself)."""
    logs = tmp_path_factory.mktemp("logs")
    server = subprocess.Popen([sys.executable, "-c", DRIVER, PLUGINS, "serve"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdout.readline().strip() == "ready"
    count = iter(range(10**6))

    def run(out: Path, seed: int, point: str = "none", nth: int = 1) -> int:
        log = logs / f"run{next(count)}.log"
        server.stdin.write(f"{point} {nth} {out} {seed} {log}\n")
        server.stdin.flush()
        code = int(server.stdout.readline())
        if point == "none":
            assert code == 0, log.read_text()
        return code

    yield run
    server.stdin.close()
    server.wait(30)


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by its relative path, with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def temp_folders(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith(".report-"))


def settled(parent: Path, seconds: float = 10.0) -> list[str]:
    """The temporary folders left once the guardian had up to ``seconds`` to clean up."""
    deadline = time.monotonic() + seconds
    while temp_folders(parent) and time.monotonic() < deadline:
        time.sleep(0.05)
    return temp_folders(parent)


@pytest.fixture(scope="module")
def baselines(driver, tmp_path_factory) -> dict[str, dict[str, bytes]]:
    """The old report (--seed 1) and the new one (--seed 2), each from an uninterrupted run."""
    base = tmp_path_factory.mktemp("baselines")
    reports = {}
    for name, seed in (("old", 1), ("new", 2)):
        driver(base / name / "reports", seed)
        reports[name] = tree(base / name / "reports")
    return reports


def test_baselines_differ_and_are_reproducible(driver, baselines, tmp_path: Path) -> None:
    old, new = baselines["old"], baselines["new"]
    assert set(old) == {"index.html", "verdicts.json", "gda.md", "gda.html",
                        "figures/gda.p901.svg"}
    assert set(old) == set(new)
    assert all(old[name] != new[name] for name in ("verdicts.json", "gda.md", "gda.html",
                                                   "figures/gda.p901.svg"))
    driver(tmp_path / "reports", 1)  # same code, same seed: the same bytes
    assert tree(tmp_path / "reports") == old


@pytest.mark.slow
def test_fresh_process_gives_the_same_bytes(baselines, tmp_path: Path) -> None:
    """The driver run as its own program (no preloading, real theory page) writes the same
    report, and a SIGKILL between the exchange and the removal still leaves the new one."""
    command = [sys.executable, "-c", DRIVER, PLUGINS]
    done = subprocess.run([*command, "none", "1", str(tmp_path / "reports"), "2"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert tree(tmp_path / "reports") == baselines["new"]
    restore(baselines["old"], tmp_path / "reports")
    done = subprocess.run([*command, "after-exchange", "1", str(tmp_path / "reports"), "2"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL
    assert settled(tmp_path) == []
    assert tree(tmp_path / "reports") == baselines["new"]


def restore(files: dict[str, bytes], out: Path) -> None:
    """``out`` holding exactly ``files``."""
    shutil.rmtree(out, ignore_errors=True)
    for name, data in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)


def kill_once(driver, baselines: dict, tmp_path: Path, point: str, nth: int) -> dict:
    """Start from the old report, run a new one that dies at ``point``; the folder afterwards."""
    out = tmp_path / "reports"
    restore(baselines["old"], out)
    assert driver(out, 2, point, nth) == -signal.SIGKILL
    assert settled(tmp_path) == []
    return tree(out)


@pytest.mark.parametrize(("point", "nth", "expected"), [
    ("render", 1, "old"),  # claims done, nothing rendered yet
    ("page", 2, "old"),  # mid rendering
    ("before-exchange", 1, "old"),
    ("after-exchange", 1, "new"),
    ("remove-old", 3, "new"),  # removing the old tree
])
def test_killed_run_leaves_old_or_new_report_whole(driver, baselines, tmp_path: Path,
                                                   point: str, nth: int, expected: str) -> None:
    assert kill_once(driver, baselines, tmp_path, point, nth) == baselines[expected]


@pytest.mark.slow
@pytest.mark.parametrize(("point", "nth", "expected"), [
    ("claim", 1, "old"),
    ("figure", 1, "old"),
    ("page", 4, "old"),
    ("remove-old", 1, "new"),
    ("between-renames", 1, "old"),  # the fallback without RENAME_EXCHANGE
])
def test_killed_run_more_points(driver, baselines, tmp_path: Path, point: str, nth: int,
                                expected: str) -> None:
    assert kill_once(driver, baselines, tmp_path, point, nth) == baselines[expected]


def test_killed_first_run_leaves_nothing(driver, tmp_path: Path) -> None:
    """No report before: a run killed before its rename leaves no folder and no temp folder."""
    assert driver(tmp_path / "reports", 2, "page", 3) == -signal.SIGKILL
    assert settled(tmp_path) == []
    assert not (tmp_path / "reports").exists()


def test_fallback_without_exchange_replaces_whole(driver, baselines, tmp_path: Path) -> None:
    """Where RENAME_EXCHANGE is unavailable: rename aside, rename in, remove the old one."""
    out = tmp_path / "reports"
    restore(baselines["old"], out)
    assert driver(out, 2, "fallback") == 0
    assert settled(tmp_path, 0) == []
    assert tree(out) == baselines["new"]


def test_stale_temp_folders_of_dead_runs_are_swept(tmp_path: Path) -> None:
    """A ``.report-<pid>-new-*`` folder whose owner is dead goes; a live owner's stays; an old
    report renamed aside by a dead run comes back when the report itself is missing."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".report-{dead.pid}-new-0001"
    live = tmp_path / f".report-{os.getpid()}-new-0002"
    aside = tmp_path / f".report-{dead.pid}-prev-reports"
    for folder in (stale, live, aside):
        (folder / "figures").mkdir(parents=True)
        (folder / "index.html").write_text("x")
    lifecycle.sweep_stale(tmp_path, "reports")
    assert not stale.exists() and live.exists()
    assert not aside.exists() and (tmp_path / "reports" / "index.html").read_text() == "x"


def test_out_that_is_a_file_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(catalog, "claims", lambda: {})  # refused before any claim would run
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    result = CliRunner().invoke(app, ["report", "--out", str(target)])
    assert result.exit_code == 2, result.output
    assert "--out" in result.output and "is a file" in result.output
    assert target.read_text() == "mine" and sorted(os.listdir(tmp_path)) == ["notes.txt"]


@pytest.mark.parametrize("files", [
    {"thesis.tex": "mine"},  # no report marker at all
    {"index.html": "<title>my site</title>"},  # an index.html that is not a report's
    {"verdicts.json": "{}", "feddro.md": "x", "todo.txt": "mine"},  # a report plus a user file
])
def test_folder_that_is_not_a_report_is_refused(tmp_path: Path, files: dict) -> None:
    out = tmp_path / "out"
    out.mkdir()
    for name, text in files.items():
        (out / name).write_text(text)
    with pytest.raises(BadInput) as error:
        write_report(out, papers=["feddro"])
    assert error.value.argument == "--out"
    assert tree(out) == {name: text.encode() for name, text in files.items()}
    assert sorted(os.listdir(tmp_path)) == ["out"]
