"""The console script's entry point: light to import, so that Ctrl-C while the command line is
still loading its modules (sympy, numpy, the papers) prints "interrupted" and exits 130 like
Ctrl-C inside a command (see :func:`fedbounds.app.common.guarded`), never a traceback; and
``fedbounds --version`` answers without loading them."""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130  # 128 + SIGINT


def version() -> str:
    """The installed version of fedbounds (the package's own when it is not installed)."""
    from importlib import metadata

    try:
        return metadata.version("fedbounds")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source checkout on sys.path
        from fedbounds import __version__

        return __version__


def main() -> None:
    """Load the command line and run it (``--version`` alone: print the version, load nothing)."""
    if sys.argv[1:] == ["--version"]:
        sys.stdout.write(f"fedbounds {version()}\n")
        raise SystemExit(0)
    try:
        from .cli import app
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(EXIT_INTERRUPTED) from None
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
