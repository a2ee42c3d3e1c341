"""The interpreter of a virtual environment holding RecTools, for the parity tests: RecTools pins numpy < 2 and
pandas < 3 (its AUC metrics fail on pandas 3), so it cannot share the test environment. The environment is made
once, beside the repository (.venv-rectools, ignored by git), with the test environment's packages visible and
RecTools' pins installed over them; a lock keeps two test processes from making it at once."""
import fcntl
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV = os.path.join(ROOT, ".venv-rectools")
PYTHON = os.path.join(VENV, "bin", "python")
RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rectools_runner.py")
REQUIREMENT = "rectools==0.19.0"


def python() -> str:
    with open(os.path.join(ROOT, ".venv-rectools.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        ok = os.path.exists(PYTHON) and subprocess.run(
            [PYTHON, "-c", "import rectools.metrics"], capture_output=True).returncode == 0
        if not ok:
            subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", VENV], check=True)
            subprocess.run([PYTHON, "-m", "pip", "install", "-q", REQUIREMENT], check=True)
    return PYTHON


_RUNNER = []  # the one runner of this process (rectools_runner.py --serve), started on first use


def run(request: dict) -> dict:
    """RecTools' values for the request (see rectools_runner.py), from this process's runner."""
    if not _RUNNER or _RUNNER[0].poll() is not None:
        _RUNNER[:] = [subprocess.Popen([python(), RUNNER, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       text=True)]
    runner = _RUNNER[0]
    runner.stdin.write(json.dumps(request) + "\n")
    runner.stdin.flush()
    line = runner.stdout.readline()
    if not line:
        _RUNNER.clear()
        raise AssertionError(f"RecTools' runner stopped (exit {runner.wait()})")
    answer = json.loads(line)
    if set(answer) == {"error"}:
        raise AssertionError(f"RecTools failed: {answer['error']}")
    return answer
