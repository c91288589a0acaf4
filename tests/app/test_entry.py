"""The console script's entry point answers Ctrl-C while it is still importing (exit 130, one
word, no traceback) and keeps ``import fedbounds`` light (the public API loads on first use)."""

from __future__ import annotations

import signal
import subprocess
import sys


def test_ctrl_c_while_loading_exits_130_without_traceback() -> None:
    # the entry point imports the whole command line (sympy, numpy, every paper) in main(),
    # about a second of imports: an interrupt sent as soon as main() is entered lands during
    # them (the child says "ready" just before; a fixed delay would race the interpreter's own
    # start-up on a busy machine)
    code = ("import sys; from fedbounds.app.entry import main; sys.argv = ['fedbounds', 'list'];"
            " print('ready', flush=True); main()")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n"
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
