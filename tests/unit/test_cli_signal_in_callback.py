"""Ctrl+C that lands inside a callback Python cannot raise from still stops the command.

Mid-import, the interpreter runs weakref callbacks (an import lock's); a KeyboardInterrupt
raised there is printed as "Exception ignored" and dropped, so the command ran on. The guard
delivers it again, to the command's own code, and nothing reaches stderr.
"""

import subprocess
import sys

CHILD = """
import os, signal, sys, time, weakref
import sim.commands.dispatch as dispatch
from sim.commands.guards import run_guarded

class Thing:
    pass

def struck(_ref):
    os.kill(os.getpid(), signal.SIGINT)
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:  # the handler runs in here, inside the callback
        pass

def command(_argv):
    thing = Thing()
    ref = weakref.ref(thing, struck)
    del thing
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        pass
    print("ran on after Ctrl+C")
    return 0

dispatch.run_command = command
# As from a terminal: a background job (CI's) starts with SIGINT ignored, which the guard keeps.
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.exit(run_guarded(["plan"]))
"""


def test_ctrl_c_inside_a_callback_reaches_the_command_and_prints_nothing() -> None:
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130
    assert done.stderr == ""
    assert "ran on" not in done.stdout
