"""The console script's entry point: light to import, so that Ctrl-C while the command line is
still loading its modules (sympy, numpy, the papers) prints "interrupted" and exits 130 like
Ctrl-C inside a command (see :func:`fedbounds.app.common.guarded`), never a traceback; and
``fedbounds --version`` answers without loading them. The command's BLAS runs one thread (as
its workers' do: the same sums in the same order whatever the core count, and a process that
forks its workers without threads)."""

from __future__ import annotations

import os
import sys

from .version import version

EXIT_INTERRUPTED = 130  # 128 + SIGINT


def main() -> None:
    """Load the command line and run it (``--version`` alone: print the version, load nothing)."""
    if sys.argv[1:] == ["--version"]:
        sys.stdout.write(f"fedbounds {version()}\n")
        raise SystemExit(0)
    from .lifecycle import BLAS_THREAD_VARIABLES

    for name in BLAS_THREAD_VARIABLES:  # before numpy loads: no BLAS thread pool, so the
        os.environ.setdefault(name, "1")  # command stays single-threaded and workers fork
    try:
        from .cli import app
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(EXIT_INTERRUPTED) from None
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
