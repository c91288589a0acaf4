"""The verdicts do not depend on the BLAS kernel (README, "On one machine's BLAS").

OpenBLAS picks a kernel for the processor, and kernels sum a product's terms in different orders,
so a report written on another processor differs in the last digits of some statistics. This
runs the quick catalog twice in fresh programs, once with the kernel OpenBLAS picks here and once
with an older one it can also run (``OPENBLAS_CORETYPE``), and asserts that every claim keeps its
verdict. Slow (two runs of the catalog); skipped where numpy's BLAS is not OpenBLAS, where no
older kernel is known for the one picked, or where the two kernels sum a d = 20 product alike.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

# the kernel OpenBLAS picks → an older kernel of the same vendor that this processor also runs
OLDER = {"SkylakeX": "Haswell", "Cooperlake": "Haswell", "SapphireRapids": "Haswell",
         "Haswell": "Sandybridge", "Zen": "Sandybridge"}
PROBE = ("import numpy as np; r = np.random.default_rng(1); x = r.standard_normal((64, 20)); "
         "print((x @ r.standard_normal((20, 20))).tobytes().hex())")


def _env(core: str | None, **more: str) -> dict[str, str]:
    """This environment with OpenBLAS's kernel ``core`` (None: the one it picks)."""
    env = {**os.environ, **more}
    env.pop("OPENBLAS_CORETYPE", None)
    if core is not None:
        env["OPENBLAS_CORETYPE"] = core
    return env


def _python(code: str, core: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], env=_env(core, OPENBLAS_VERBOSE="2"),
                          capture_output=True, text=True, check=True)


def _core(core: str | None = None) -> str | None:
    """The kernel numpy's OpenBLAS runs (None: not OpenBLAS, or it does not say)."""
    run = _python("import numpy", core)
    found = re.search(r"Core: (\w+)", run.stdout + run.stderr)
    return None if found is None else found.group(1)


def _verdicts(core: str | None) -> dict[str, str]:
    run = subprocess.run([sys.executable, "-m", "fedbounds", "verify", "all", "--json",
                          "--store", "off", "--backend", "process"],
                         env=_env(core), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    return {c["id"]: c["verdict"] for c in json.loads(run.stdout)["claims"]}


def test_another_blas_kernel_keeps_every_verdict() -> None:
    picked = _core()
    if picked is None:
        pytest.skip("numpy's BLAS is not OpenBLAS (or does not name its kernel)")
    older = OLDER.get(picked)
    if older is None:
        pytest.skip(f"no older kernel known for OpenBLAS's {picked}")
    assert _core(older) == older, f"OPENBLAS_CORETYPE={older} was not taken"
    if _python(PROBE).stdout == _python(PROBE, older).stdout:
        pytest.skip(f"{picked} and {older} sum a d = 20 product alike here")
    here, other = _verdicts(None), _verdicts(older)
    assert set(here) == set(other)
    moved = {cid: (here[cid], other[cid]) for cid in here if here[cid] != other[cid]}
    assert not moved, f"verdicts that depend on the BLAS kernel ({picked} → {older}): {moved}"
