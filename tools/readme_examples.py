"""Regenerate the README's CLI examples with their real output (``make readme-examples``).

Each example command is run with the installed ``fedbounds``; its output replaces the block
between ``<!-- examples:start -->`` and ``<!-- examples:end -->``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

EXAMPLES = [
    "fedbounds check proxskip.thm3.1 --set gamma=1/10 mu=1 A=1 B=1 C=1/2 M=4 rho=1/2 p=1/2",
    "fedbounds max-step proxskip.thm3.1 --vary gamma --set mu=1 A=1 B=1 C=1/2 M=4 rho=1/2 p=1/2 --json",
    "fedbounds bound proxskip.thm3.1 --set gamma=1/10 mu=1 A=1 B=1 C=1/2 M=4 rho=1/2 p=1/2 "
    "D_1=1/100 D_2=0 T=200 V_0=1",
    "fedbounds complexity proxskip.cor3.6",
    "fedbounds max-step sagda.thm2 --vary eta_xl --set L_f=1 mu=1/2 K=5 m=4 M=10 eta_xg=1 "
    "eta_yl=1/100 eta_yg=1",
    "fedbounds counterexample feddro.thm4.1 --case II --set I=2 eta=0.01 --rounds 200",
    "fedbounds run proxskip-gda-fl --problem proxskip-g-norm --set n=5 s=3 --rounds 300",
    "fedbounds verify proxskip",
    "fedbounds max-step docs/gda_theorem.py:gda.thm1 --vary gamma --set mu=1 L=3",
    "fedbounds constants --problem-file docs/game.json",
    "fedbounds run local-gda --problem-file docs/game.json --set gamma=1/10 H=2 --rounds 50",
    "fedbounds check proxskip.thm3.1 --set gamma=1/10 mu=-1 A=1 B=1 C=1 M=4 rho=1/2 p=1/2",
]


def main() -> int:
    readme = Path(__file__).resolve().parents[1] / "README.md"
    bindir = Path(sys.executable).parent
    env = {**os.environ, "COLUMNS": "100", "TERM": "dumb", "NO_COLOR": "1"}
    blocks = []
    for cmd in EXAMPLES:
        argv = shlex.split(cmd)
        argv[0] = str(bindir / argv[0])
        p = subprocess.run(argv, capture_output=True, text=True, env=env)
        text = (p.stdout + p.stderr).rstrip()
        blocks.append(f"```console\n$ {cmd}\n{text}\n# exit code {p.returncode}\n```")
    body = "\n\n".join(blocks)
    src = readme.read_text()
    new = re.sub(r"<!-- examples:start -->.*<!-- examples:end -->",
                 lambda _: f"<!-- examples:start -->\n{body}\n<!-- examples:end -->", src,
                 flags=re.S)
    readme.write_text(new)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
