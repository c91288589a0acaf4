"""The installed version, in a module of its own (no imports of the command line), so that the
light entry point and the CLI both use it without importing each other."""

from __future__ import annotations


def version() -> str:
    """The installed version of fedbounds (the package's own when it is not installed)."""
    from importlib import metadata

    try:
        return metadata.version("fedbounds")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source checkout on sys.path
        from fedbounds import __version__

        return __version__
