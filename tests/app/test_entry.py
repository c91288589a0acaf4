"""The console script's entry point answers Ctrl-C while it is still importing (exit 130, one
word, no traceback) and keeps ``import fedbounds`` light (the public API loads on first use)."""

from __future__ import annotations

import signal
import subprocess
import sys

READY_DURING_IMPORT = """
import signal
import sys
import time

# Ctrl-C as at a terminal: a child of a background job inherits SIGINT ignored
signal.signal(signal.SIGINT, signal.default_int_handler)
from fedbounds.app.entry import main


class SayReady:
    # an import hook: "ready" as main() starts importing the command line, inside its guard,
    # then a slow import (up to 30 s) for the interrupt to land in
    def find_spec(self, name, path=None, target=None):
        if name == "fedbounds.app.cli":
            print("ready", flush=True)
            time.sleep(30)
        return None


sys.meta_path.insert(0, SayReady())
sys.argv = ["fedbounds", "list"]
main()
"""


def test_ctrl_c_while_loading_exits_130_without_traceback() -> None:
    # the entry point imports the whole command line (sympy, numpy, every paper) in main(); the
    # child says "ready" when that import begins and then stays in it, so the interrupt lands
    # during it (a fixed delay would race the interpreter's start-up on a busy machine); the
    # child restores the default Ctrl-C handler (run from a background job, it would inherit
    # SIGINT ignored and finish the command: exit 0)
    proc = subprocess.Popen([sys.executable, "-c", READY_DURING_IMPORT], stdout=subprocess.PIPE,
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
