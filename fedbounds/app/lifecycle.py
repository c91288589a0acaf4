"""Nothing half-written, nothing left running: temporary folders, worker processes and signals.

* :func:`replace_folder` swaps a freshly rendered folder into place atomically: Linux
  ``renameat2(RENAME_EXCHANGE)`` (through ``ctypes``) when the target exists, then the old tree
  (now at the temporary path) is removed; a plain ``os.rename`` when it does not. Where the
  exchange is unavailable (another OS, a file system without it) the old folder is renamed aside
  to ``.report-<pid>-prev-<name>`` and the new one renamed into place; the guardian (or the next
  run's :func:`sweep_stale`) renames the old folder back if a crash falls between the two
  renames. Either way an interrupted run leaves the old folder or the new one, whole.
* :func:`temp_folder` makes ``.report-<pid>-new-<random>`` beside the target and removes it on
  every exit path: ``finally`` on normal and exception paths, the guardian when the process is
  killed (even by SIGKILL), :func:`sweep_stale` for folders whose owner pid is dead.
* The **guardian** is a small child process, started once and lazily, that blocks reading a
  pipe from this process. When the pipe hits end-of-file (this process exited or was killed),
  it kills the registered worker processes, restores folders renamed aside, removes the
  registered folders and exits. It runs this file as a script (standard library only), in its
  own session, and ignores SIGINT and SIGHUP.
* :func:`worker_pool` is a ``ProcessPoolExecutor`` whose workers die with their parent:
  ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` on Linux, elsewhere a watcher thread polling
  ``os.getppid()``; their pids are registered with the guardian too. Leaving the pool by an
  exception (``KeyboardInterrupt``, :class:`Terminated` …) cancels pending futures and kills
  the workers instead of waiting for them.
* :func:`signals_as_exceptions` turns SIGTERM into :class:`Terminated` so that ``finally``
  blocks run; the CLI exits 130 on SIGINT (Ctrl-C) and 143 (128 + SIGTERM) on SIGTERM.
"""

from __future__ import annotations

import atexit
import ctypes
import errno
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager, suppress
from pathlib import Path

TEMP_PREFIX = ".report-"
_TEMP_NAME = re.compile(r"\.report-(?P<pid>\d+)-(?P<kind>new|prev)-(?P<rest>.+)\Z", re.S)
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_PR_SET_PDEATHSIG = 1


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that cleanup runs (the CLI exits 143)."""

    interrupts = True  # fedbounds.errors.interrupts: never reported as a plugin's error


# --------------------------------------------------------------------------------- guardian
class Guardian:
    """The parent's side of the guardian: a pipe to a child that cleans up after our death."""

    def __init__(self) -> None:
        read_end, self.write_end = os.pipe()  # both non-inheritable
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", str(Path(__file__).resolve())], stdin=read_end,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
                start_new_session=True)
        finally:
            os.close(read_end)
        self.owner = os.getpid()
        self.lock = threading.Lock()
        self.alive = True

    def send(self, *words: str) -> None:
        """One command line; a dead guardian only loses its fallback role."""
        line = " ".join(words) + "\n"
        with self.lock:
            if not self.alive:
                return
            try:
                os.write(self.write_end, line.encode())
            except OSError:
                self.alive = False

    def close(self, timeout: float = 5.0) -> None:
        """End of the pipe: the guardian cleans what is still registered and exits."""
        with self.lock:
            if self.write_end >= 0:
                os.close(self.write_end)
                self.write_end = -1
            self.alive = False
        with suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout)

    def forget_in_child(self) -> None:
        """After fork: the child must not hold the pipe open (its parent's death is the EOF)."""
        if self.write_end >= 0:
            with suppress(OSError):
                os.close(self.write_end)
        self.write_end = -1
        self.alive = False


_guardian: Guardian | None = None
_guardian_lock = threading.Lock()


def guardian() -> Guardian:
    """The process's guardian, started on first use."""
    global _guardian
    with _guardian_lock:
        if _guardian is None or _guardian.owner != os.getpid():
            _guardian = Guardian()
        return _guardian


def _close_guardian_at_exit() -> None:
    if _guardian is not None and _guardian.owner == os.getpid():
        _guardian.close()


def _forget_guardian_after_fork() -> None:
    if _guardian is not None:
        _guardian.forget_in_child()


atexit.register(_close_guardian_at_exit)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_guardian_after_fork)


def _hex(path: Path | str) -> str:
    return os.fsencode(str(path)).hex()


def _unhex(word: str) -> str:
    return os.fsdecode(bytes.fromhex(word))


def register_folder(path: Path) -> None:
    """Remove ``path`` (a folder) if this process dies before :func:`unregister_folder`."""
    guardian().send("rm", _hex(path))


def unregister_folder(path: Path) -> None:
    guardian().send("keep", _hex(path))


def register_pids(pids: Iterable[int]) -> None:
    """Kill these processes if this process dies before :func:`unregister_pids`."""
    for pid in pids:
        guardian().send("pid", str(int(pid)))


def unregister_pids(pids: Iterable[int]) -> None:
    for pid in pids:
        guardian().send("unpid", str(int(pid)))


def _start_time(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (Linux), so a reused pid is never killed."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()[19]


def _guardian_main() -> None:
    """Read commands until end-of-file, then clean up what is still registered."""
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    folders: dict[str, None] = {}
    pids: dict[int, str | None] = {}
    restores: dict[str, str] = {}
    for raw in sys.stdin.buffer:
        words = raw.decode().split()
        if not words:
            continue
        command, args = words[0], words[1:]
        if command == "rm":
            folders[_unhex(args[0])] = None
        elif command == "keep":
            folders.pop(_unhex(args[0]), None)
        elif command == "pid":
            pids[int(args[0])] = _start_time(int(args[0]))
        elif command == "unpid":
            pids.pop(int(args[0]), None)
        elif command == "restore":
            restores[_unhex(args[0])] = _unhex(args[1])
        elif command == "unrestore":
            restores.pop(_unhex(args[0]), None)
    for pid, started in pids.items():
        if started is None or _start_time(pid) == started:
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    for aside, target in restores.items():
        restore_aside(Path(aside), Path(target))
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


# ----------------------------------------------------------------------------- folders
def restore_aside(aside: Path, target: Path) -> None:
    """Put an old folder renamed aside back at ``target``, or drop it if ``target`` exists."""
    if not aside.exists():
        return
    if target.exists() or target.is_symlink():
        shutil.rmtree(aside, ignore_errors=True)
        return
    with suppress(OSError):
        os.rename(aside, target)


@contextmanager
def temp_folder(parent: Path) -> Iterator[Path]:
    """A new ``.report-<pid>-new-<random>`` folder in ``parent``, removed on every exit path."""
    path = Path(parent) / f"{TEMP_PREFIX}{os.getpid()}-new-{secrets.token_hex(4)}"
    register_folder(path)  # before it exists: a kill right after mkdir is covered too
    try:
        path.mkdir()
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        unregister_folder(path)


def sweep_stale(parent: Path, target_name: str) -> None:
    """Remove the temporary folders an earlier run left in ``parent`` (owner pid dead); an old
    folder renamed aside for ``target_name`` goes back into place if the target is missing."""
    if not Path(parent).is_dir():
        return
    for entry in Path(parent).iterdir():
        match = _TEMP_NAME.match(entry.name)
        if not match or not entry.is_dir() or entry.is_symlink():
            continue
        if pid_alive(int(match["pid"])):
            continue
        if match["kind"] == "new":
            shutil.rmtree(entry, ignore_errors=True)
        elif match["rest"] == target_name:
            restore_aside(entry, Path(parent) / target_name)


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (ours or another user's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def exchange(first: Path, second: Path) -> bool:
    """Swap two existing paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``). False if the
    system or the file system cannot; ``FileNotFoundError`` if either path is missing."""
    libc = _libc()
    renameat2 = getattr(libc, "renameat2", None) if libc is not None else None
    if renameat2 is None:
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    if renameat2(_AT_FDCWD, os.fsencode(str(first)), _AT_FDCWD, os.fsencode(str(second)),
                 _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(first), None, str(second))


def replace_folder(new: Path, target: Path) -> None:
    """Put the folder ``new`` at ``target`` in one step; the old ``target`` (if any) ends up at
    ``new``'s path, for the caller to remove (see the module docstring for the fallback)."""
    try:
        if exchange(new, target):
            return
    except FileNotFoundError:
        if not new.exists():
            raise
        os.rename(new, target)  # no old target: a plain rename is atomic
        return
    if not (target.exists() or target.is_symlink()):
        os.rename(new, target)
        return
    aside = target.parent / f"{TEMP_PREFIX}{os.getpid()}-prev-{target.name}"
    guardian().send("restore", _hex(aside), _hex(target))
    try:
        os.rename(target, aside)
        try:
            os.rename(new, target)
        except BaseException:
            restore_aside(aside, target)
            raise
        os.rename(aside, new)  # the old tree where the caller removes it
    finally:
        guardian().send("unrestore", _hex(aside))


# ------------------------------------------------------------------------------- workers
def die_with_parent(main_pid: int) -> None:
    """Initializer of a worker process: die when its parent does (the command itself, or the
    forkserver, which exits when the command does) and when the command ``main_pid`` is gone;
    leave SIGINT and SIGTERM to the command (it stops its workers), so a Ctrl-C in the terminal
    does not reach a claim; run one BLAS thread (the pool's workers are the parallelism)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    one_blas_thread()
    libc = _libc()
    prctl = getattr(libc, "prctl", None) if libc is not None else None
    if prctl is not None and prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0:
        if os.getppid() == 1 or not pid_alive(main_pid):  # gone before prctl took effect
            os._exit(1)
        return

    def watch() -> None:
        while os.getppid() != 1 and pid_alive(main_pid):
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


# the thread counts of the BLAS and OpenMP pools, read by them when numpy first loads
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> None:
    """This process's BLAS (and OpenMP) pools limited to one thread (threadpoolctl), where
    threadpoolctl is installed."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a dependency; a missing one only costs speed
        return
    threadpool_limits(limits=1)


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity; ``os.process_cpu_count`` where Python
    has it), at least 1: the default number of workers."""
    counter = getattr(os, "process_cpu_count", None)
    if counter is not None:
        return max(1, counter() or 1)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - no affinity on this OS
        return max(1, os.cpu_count() or 1)


START_METHOD_ENV = "FEDBOUNDS_START_METHOD"
START_METHODS = ("forkserver", "spawn", "fork")
# what a forkserver imports once, so that each worker forked from it starts warm
FORKSERVER_PRELOAD = ["fedbounds.app.worker_preload"]


def os_threads() -> int:
    """The operating-system threads of this process (BLAS pools included), where /proc tells;
    else the Python threads."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def start_method() -> str:
    """How worker processes start (``$FEDBOUNDS_START_METHOD`` chooses one of
    :data:`START_METHODS`): by default ``fork`` while this process has a single thread (the
    command line keeps its BLAS to one thread, so it does: workers start at once and inherit
    everything loaded), else ``forkserver`` (workers fork from a clean single-threaded
    server: a multi-threaded process is never forked), else ``spawn``."""
    import multiprocessing

    available = multiprocessing.get_all_start_methods()
    chosen = os.environ.get(START_METHOD_ENV, "").strip()
    if chosen and chosen not in START_METHODS:
        raise ValueError(f"${START_METHOD_ENV}={chosen!r} is not a start method; allowed: "
                         f"{', '.join(START_METHODS)}")
    if not chosen:
        chosen = "fork" if os_threads() == 1 else "forkserver"
    return chosen if chosen in available else "spawn"


def pool_context():
    """The multiprocessing context of :func:`start_method`; its children run one BLAS thread
    from their start (the variables are set before any of them exists, unless given)."""
    import multiprocessing

    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
    context = multiprocessing.get_context(start_method())
    if context.get_start_method() == "forkserver":
        context.set_forkserver_preload(FORKSERVER_PRELOAD)
    return context


class GuardedPool(ProcessPoolExecutor):
    """A process pool whose workers die with this process (see :func:`worker_pool`)."""

    def __init__(self, max_workers: int) -> None:
        guardian()  # started before the workers are forked
        super().__init__(max_workers=max_workers, mp_context=pool_context(),
                         initializer=die_with_parent, initargs=(os.getpid(),))
        self.registered: set[int] = set()

    def submit(self, fn, /, *args, **kwargs):  # noqa: D102 - as ProcessPoolExecutor.submit
        future = super().submit(fn, *args, **kwargs)
        self.register_workers()
        return future

    def workers(self) -> list:
        """The worker processes started so far."""
        return list((self._processes or {}).values())

    def register_workers(self) -> None:
        fresh = {p.pid for p in self.workers()} - self.registered
        register_pids(fresh)
        self.registered |= fresh

    def stop(self) -> None:
        """Cancel what has not started and kill the workers now (no waiting for running work).
        The pool's manager thread is then joined: it notices the dead workers and closes its
        wake-up pipe, so that the interpreter's exit does not race it (a write to a closed pipe
        printed as "Exception ignored in threading")."""
        workers = self.workers()
        manager = getattr(self, "_executor_manager_thread", None)  # dropped by shutdown()
        self.shutdown(wait=False, cancel_futures=True)
        for process in workers:
            with suppress(OSError, ValueError):
                process.kill()
        for process in workers:
            with suppress(OSError, ValueError, AssertionError):
                process.join(5)
        if manager is not None:
            manager.join(5)


@contextmanager
def worker_pool(max_workers: int) -> Iterator[GuardedPool]:
    """A :class:`GuardedPool`: shut down normally on success, stopped at once on any exception
    (``KeyboardInterrupt`` and :class:`Terminated` included)."""
    pool = GuardedPool(max_workers)
    try:
        yield pool
    except BaseException:
        pool.stop()
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        unregister_pids(pool.registered)


# ------------------------------------------------------------------------------- signals
def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated()


@contextmanager
def signals_as_exceptions() -> Iterator[None]:
    """While inside: SIGTERM raises :class:`Terminated` in the main thread (SIGINT already raises
    ``KeyboardInterrupt``). Elsewhere than the main thread, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # the guardian process
    _guardian_main()
