"""The environment a result was computed in (stored beside it, never in the report's files):
Python, numpy, scipy, sympy, the BLAS (library, version, threads), platform and host."""

from __future__ import annotations

import platform
import socket
from datetime import UTC, datetime
from functools import cache


@cache
def environment() -> dict[str, str]:
    """Python, numpy, scipy, sympy, BLAS, platform and host of this process."""
    import numpy
    import scipy
    import sympy

    return {"python": platform.python_version(), "numpy": numpy.__version__,
            "scipy": scipy.__version__, "sympy": sympy.__version__, "blas": _blas(),
            "platform": platform.platform(), "host": socket.gethostname()}


def _blas() -> str:
    """The BLAS numpy uses: threadpoolctl's view (library, version, the kernel it picked for
    this processor, threads) when installed, else numpy's build configuration."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        pass
    else:
        found = [" ".join(str(i[k]) for k in ("internal_api", "version", "architecture")
                          if i.get(k)) + f" ({i.get('num_threads')} threads)"
                 for i in threadpool_info() if i.get("user_api") == "blas"]
        if found:
            return "; ".join(found)
    try:
        import numpy

        blas = numpy.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas.get('name')} {blas.get('version')}"
    except Exception:  # an older numpy or an unusual build: say so instead of failing
        return "unknown"


def now() -> str:
    """The current time, UTC, ISO 8601 with microseconds."""
    return datetime.now(UTC).isoformat(timespec="microseconds")
