import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "datasets")
TREC = os.path.join(DATA, "trec_eval")
SEEDS = os.path.join(DATA, "seeds")


def cli(*args, check=True):
    """Run the command line as a user would; returns the CompletedProcess."""
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
