import contextlib
import io
import os
import subprocess
import sys

import pytest

# ranx, a reference library of these tests, compiles its functions with numba on first use, for each type of its
# inputs (a new width of the longest id is a new type), and caches them beside its installed modules. A fresh
# machine, as CI's, compiled about 150 of them in each test process: about 250-400 worker-seconds (session 41),
# more than the ranx tests' own work. Its functions run here as the Python they are written in (numba's JIT
# off): the same code (the ranx tests pass either way, to their tolerances), and faster on the tests' small
# inputs than loading the compiled ones from the cache (the ranx tests: 110 -> 68 CPU-seconds, cache filled).
# Only ranx uses numba here; the benchmark runs ranx compiled, in processes of its own. NUMBA_DISABLE_JIT=0 in
# the environment runs the tests with numba.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "datasets")
TREC = os.path.join(DATA, "trec_eval")
SEEDS = os.path.join(DATA, "seeds")


def cli(*args, check=True):
    """The command line's main() (what `rankmetrics` and `python -m rankmetrics_duckdb` run) called in this
    process, its standard output and error captured as a process's would be (text mode: newlines translated);
    returns a CompletedProcess with its exit code. A process costs 0.45 s of start-up and imports, and the suite
    runs the command line about a thousand times; cli_process runs it as a process, for what only a process
    shows (the entry points, standard input, start-up imports)."""
    from rankmetrics_duckdb.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as e:  # argparse's usage errors and -h
            if isinstance(e.code, str):
                err.write(e.code + "\n")
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    text = [v.getvalue().replace("\r\n", "\n").replace("\r", "\n") for v in (out, err)]
    p = subprocess.CompletedProcess(["rankmetrics", *args], code, *text)
    if check and p.returncode != 0:
        raise AssertionError(f"exit {p.returncode}: {p.stderr}")
    return p


def cli_process(*args, check=True):
    """Run the command line as a user would, as a process (python -m rankmetrics_duckdb); returns the
    CompletedProcess."""
    p = subprocess.run([sys.executable, "-m", "rankmetrics_duckdb", *args], capture_output=True, text=True,
                       timeout=300)
    if check and p.returncode != 0:
        raise AssertionError(f"exit {p.returncode}: {p.stderr}")
    return p


def read_trec_output(path):
    """{measure: {qid: value}} from a trec_eval output file (measure, qid, value columns)."""
    out = {}
    with open(path) as fh:
        for line in fh:
            parts = line.split()
            if len(parts) == 3:
                try:
                    out.setdefault(parts[0], {})[parts[1]] = float(parts[2])
                except ValueError:
                    pass
    return out


@pytest.fixture
def trec():
    return TREC


@pytest.fixture
def seeds():
    return SEEDS


# With pytest-xdist (`-n 2`, `--dist loadgroup` from pyproject.toml), the tests that share an expensive start run
# in one process: the dbt project (the package generated, `dbt deps`, a PostgreSQL server, both builds: session
# fixtures of tests/test_dbt.py) and Spark (a JVM of 1-2 GB, about 20 s to start and much CPU to warm up, shared
# by every file that runs it, the dbt tests' Spark adapter included) form one group, so that one JVM serves the
# run; the other process takes the other tests meanwhile. The suite is CPU-bound on 2 cores (both busy
# throughout, the JVM's and the servers' CPU included): a second JVM cost more than the balance it bought. Every
# other test is scheduled on its own.
@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own, which reads the marks into the test ids
def pytest_collection_modifyitems(config, items):
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if item.nodeid.startswith("tests/test_dbt.py") or "spark" in params.values():
            item.add_marker(pytest.mark.xdist_group("jvm"))


class Started:
    """Engines, servers and built projects started once per test process and stopped at its end. A module or
    parametrized fixture is torn down and set up again whenever the order of the tests leaves it and comes back
    (pytest-xdist's groups and pytest's reordering by parameters interleave modules), which restarted Spark,
    the database servers and the dbt project several times a run; a fixture that asks this cache does not."""

    def __init__(self):
        self._objects = {}

    def get(self, key, start, stop=None):
        if key not in self._objects:
            self._objects[key] = (start(), stop)
        return self._objects[key][0]

    def stop_all(self):
        for obj, stop in reversed(list(self._objects.values())):
            if stop is not None:
                stop(obj)
        self._objects.clear()


@pytest.fixture(scope="session")
def started():
    cache = Started()
    yield cache
    cache.stop_all()
