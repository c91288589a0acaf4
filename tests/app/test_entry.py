"""The console script's entry point answers Ctrl-C while it is still importing (exit 130, one
word, no traceback) and keeps ``import fedbounds`` light (the public API loads on first use)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time


def test_ctrl_c_while_loading_exits_130_without_traceback() -> None:
    # the entry point imports the whole command line (sympy, numpy, every paper) in main();
    # an interrupt 0.2 s in lands during those imports
    proc = subprocess.Popen([sys.executable, "-m", "fedbounds", "list"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (proc.returncode, err)
    assert err.strip() == "interrupted" and "Traceback" not in err


def test_import_fedbounds_is_light_and_the_api_loads_on_use() -> None:
    code = ("import sys, fedbounds; heavy = 'sympy' in sys.modules; "
            "from fedbounds import check, Theorem, theorem; "
            "print(heavy, callable(check), 'sympy' in sys.modules, fedbounds.__version__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    heavy, callable_, loaded, version = done.stdout.split()
    assert (heavy, callable_, loaded) == ("False", "True", "True") and version
