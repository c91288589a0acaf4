"""Files fedbounds writes are written whole or not at all, and a file system that refuses a
write (full, read-only, over a size limit) is bad input naming the path, not a crash.

:func:`atomic_file` gives a temporary path beside the target; the caller writes it, and only a
complete file is renamed over the target (``os.replace``, atomic on POSIX), after ``fsync``.
Any failure removes the temporary file, so the target is the old file or the new one, never a
truncated one. :func:`disk_errors` maps the errors a full or read-only disk gives (``ENOSPC``,
``EDQUOT``, ``EROFS``, ``EFBIG`` from ``ulimit -f``, ``EACCES``/``EPERM``) to
:class:`~fedbounds.errors.BadInput` (exit 2) naming the argument and the path.
"""

from __future__ import annotations

import errno
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from fedbounds.errors import BadInput

# errors of a file system that will not take the write: the user's to fix, not a bug
REFUSED = {errno.ENOSPC: "no space left on the device", errno.EDQUOT: "disk quota exceeded",
           errno.EROFS: "the file system is read-only", errno.EFBIG: "file too large (a size "
           "limit such as ulimit -f)", errno.EACCES: "permission denied",
           errno.EPERM: "operation not permitted"}


def refused(error: BaseException) -> str | None:
    """Why the file system refused a write, if ``error`` is such a refusal."""
    return REFUSED.get(getattr(error, "errno", None)) if isinstance(error, OSError) else None


@contextmanager
def disk_errors(argument: str, path: Path | str) -> Iterator[None]:
    """A refused write inside the block is :class:`BadInput` (``argument``: cannot write
    ``path``: why)."""
    try:
        yield
    except OSError as e:
        why = refused(e)
        if why is None:
            raise
        raise BadInput(argument, f"cannot write {path}: {why}") from None


@contextmanager
def atomic_file(path: Path | str, argument: str) -> Iterator[Path]:
    """A temporary path beside ``path`` to write; renamed over ``path`` when the block ends
    normally, removed on any exception (see the module docstring)."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        with disk_errors(argument, target):
            yield tmp
            with open(tmp, "rb+") as f:
                os.fsync(f.fileno())
            os.replace(tmp, target)
    finally:
        with suppress(OSError):  # absent, or on a file system that refuses even this
            tmp.unlink()


def write_atomic(path: Path | str, data: str | bytes, argument: str) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole or not at all."""
    with atomic_file(path, argument) as tmp:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
