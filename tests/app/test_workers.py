"""Worker processes die with the command that started them: SIGKILL, SIGTERM or SIGINT of the
main pid of ``fedbounds verify … --backend process`` (or ``report``) leaves no child alive;
SIGTERM exits 143 and SIGINT 130, each with a one-word message and no traceback."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

FEDBOUNDS = str(Path(sys.executable).with_name("fedbounds"))


def children(pid: int) -> set[int]:
    """Direct children of ``pid`` (every thread's), from /proc."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(word) for word in (task / "children").read_text().split()}
        except OSError:
            continue
    return found


def descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        fresh = children(todo.pop()) - found
        found |= fresh
        todo += fresh
    return found


def running(pid: int) -> bool:
    """Alive and not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def start(*args: str) -> subprocess.Popen:
    """The CLI as a terminal starts it (SIGINT at its default, so Python turns it into
    KeyboardInterrupt), without a result store (a checkout's store could answer every claim,
    and then no worker starts)."""
    return subprocess.Popen([FEDBOUNDS, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "FEDBOUNDS_STORE": "off"},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_for_workers(main: subprocess.Popen, count: int, timeout: float = 60.0) -> set[int]:
    """The main process's descendants once the guardian runs (it is started when the first
    workers are registered) and at least ``count`` other processes, the workers, exist."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert main.poll() is None, main.communicate()
        found = descendants(main.pid)
        guardians = [pid for pid in found if b"lifecycle.py" in _cmdline(pid)]
        if guardians and len(found) - len(guardians) >= count:
            time.sleep(0.3)  # let the workers start their work (and be registered)
            return descendants(main.pid) | found
        time.sleep(0.05)
    raise AssertionError(f"no guardian and {count} workers within {timeout} s")


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def survivors(pids: set[int], within: float = 5.0) -> set[int]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = {pid for pid in pids if running(pid)}
        if not alive:
            return alive
        time.sleep(0.05)
    return {pid for pid in pids if running(pid)}


pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")


def test_sigkill_of_main_kills_workers() -> None:
    main = start("verify", "proxskip", "--backend", "process")
    pids = wait_for_workers(main, 2)
    main.kill()
    main.wait(10)
    assert survivors(pids) == set()


@pytest.mark.parametrize(("signum", "code", "message"), [
    (signal.SIGTERM, 143, "terminated"),
    (signal.SIGINT, 130, "interrupted"),
])
def test_sigterm_and_sigint_stop_workers_and_exit(signum: int, code: int, message: str) -> None:
    main = start("verify", "proxskip", "--backend", "process")
    pids = wait_for_workers(main, 2)
    main.send_signal(signum)
    _, stderr = main.communicate(timeout=20)
    assert main.returncode == code, stderr
    assert stderr.strip() == message
    assert survivors(pids) == set()


def test_sigkill_during_report_kills_its_workers_and_removes_nothing_else(tmp_path: Path) -> None:
    """``report --backend process`` runs theory pages and claims in one pool (2 workers)."""
    main = start("report", "--paper", "proxskip", "--backend", "process", "--out",
                 str(tmp_path / "reports"))
    pids = wait_for_workers(main, 2)
    main.kill()
    main.wait(10)
    assert survivors(pids) == set()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # a LocalCluster takes seconds to start and to close
@pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                    reason="dask.distributed not installed (pip install 'fedbounds[dask]')")
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGINT])
def test_dask_workers_die_with_main(signum: int) -> None:
    """distributed's workers also watch their parent; ours are registered with the guardian."""
    main = start("verify", "proxskip", "--backend", "dask")
    pids = wait_for_workers(main, 2)
    os.kill(main.pid, signum)
    main.communicate(timeout=30)
    assert main.returncode == (-signal.SIGKILL if signum == signal.SIGKILL else 130)
    assert survivors(pids, within=10) == set()


def test_every_command_is_guarded() -> None:
    """Ctrl-C handling lives in ``guarded``: every command's callback is its wrapper."""
    from fedbounds.app.cli import app
    from fedbounds.app.common import guarded

    wrapper_code = guarded(lambda: None).__code__
    assert app.registered_commands
    for command in app.registered_commands:
        assert command.callback.__code__ is wrapper_code, command.callback.__name__


@pytest.mark.parametrize(("error", "code", "message"), [
    (KeyboardInterrupt, 130, "interrupted"),
    ("terminated", 143, "terminated"),
])
def test_interrupt_inside_a_command_exits_with_a_short_message(monkeypatch, error, code,
                                                               message) -> None:
    from typer.testing import CliRunner

    from fedbounds import registry
    from fedbounds.app import lifecycle
    from fedbounds.app.cli import app

    raised = lifecycle.Terminated if error == "terminated" else error

    def interrupted():
        raise raised()

    monkeypatch.setattr(registry, "theorems", interrupted)
    result = CliRunner().invoke(app, ["list"])
    assert result.exit_code == code
    assert result.output.strip() == message
    assert "Traceback" not in result.output
