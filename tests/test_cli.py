"""The command line as a user meets it: formats, -o, and one-line errors with a non-zero exit."""
import csv
import io
import json
import os

import shutil
import subprocess

from conftest import SEEDS, TREC, cli, cli_process

Q, R = os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")


def test_formats_agree():
    rows = json.loads(cli("eval", Q, R, "-m", "map", "-m", "P@10", "-q", "--format", "json").stdout)
    assert rows[-1] == {"measure": "P@10", "query_id": "all", "value": 0.3, "aggregate": True}  # out.test: P_10 0.3000
    text = cli("eval", Q, R, "-m", "map", "-m", "P@10", "-q", "--format", "csv").stdout
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert [(r["measure"], r["query_id"], r["aggregate"] == "true") for r in parsed] == \
        [(r["measure"], r["query_id"], r["aggregate"]) for r in rows]
    assert all(abs(float(a["value"]) - b["value"]) < 1e-12 for a, b in zip(parsed, rows))
    table = cli("eval", Q, R, "-m", "map", "--format", "table").stdout.splitlines()
    assert table[0].split() == ["measure", "query_id", "value"] and table[2].split() == ["map", "all", "0.1785"]


def test_the_entry_points_as_processes_give_what_main_gives(tmp_path):
    """The suite calls the command line's main() in its own process (conftest.cli); a user runs a process:
    `python -m rankmetrics_duckdb` and the `rankmetrics` script give the same output, errors and exit codes,
    each error one line (out.test: map 0.1785)."""
    cases = [("eval", Q, R, "-q", "-m", "map", "-m", "P@10"), ("eval", Q, R, "-m", "nDGC@10"),
             ("eval", str(tmp_path / "nope.qrels"), R), ("eval", Q), ("sql", "-m", "nDCG@10", "--dialect", "postgres")]
    script = shutil.which("rankmetrics")
    assert script, "the rankmetrics script is not installed: pip install -e ."
    for args in cases:
        inside = cli(*args, check=False)
        for p in (cli_process(*args, check=False),
                  subprocess.run([script, *args], capture_output=True, text=True, timeout=120)):
            assert (p.returncode, p.stdout, p.stderr) == (inside.returncode, inside.stdout, inside.stderr), args
    assert "map                   \tall\t0.1785" in cli(*cases[0]).stdout
    assert [cli(*a, check=False).returncode for a in cases[1:4]] == [2, 1, 2]


def test_default_metric_set_and_no_traceback_on_missing_file(tmp_path):
    out = cli("eval", Q, R).stdout
    assert "num_q                 \tall\t3" in out and "map                   \tall\t0.1785" in out
    p = cli("eval", str(tmp_path / "nope.qrels"), R, check=False)
    assert p.returncode != 0 and "nope.qrels: no such file" in p.stderr and "Traceback" not in p.stderr


def test_unknown_metric_suggests(tmp_path):
    p = cli("eval", Q, R, "-m", "nDGC@10", check=False)
    assert p.returncode == 2 and "did you mean 'nDCG@10'" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_output_file_written_atomically(tmp_path):
    target = tmp_path / "out.json"
    cli("eval", Q, R, "-m", "map", "-o", str(target))
    assert abs(json.loads(target.read_text())[0]["value"] - 0.1785) < 5e-5  # trec_eval's out.test: map 0.1785
    assert [f.name for f in tmp_path.iterdir()] == ["out.json"]
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask  # a results file, not a private temporary one


def test_output_through_links_and_into_fifos_never_replaces_them(tmp_path):
    # -o names where the output goes, not a file to replace: a symbolic link is written through (its target gets
    # the rows, the link stays), a dangling one creates its target, and a FIFO (as a device such as /dev/null) is
    # written into, never renamed over. trec_eval's out.test: map 0.1785.
    import stat
    import threading
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    (tmp_path / "link.txt").symlink_to("real.txt")
    cli("eval", Q, R, "-m", "map", "-o", str(tmp_path / "link.txt"))
    assert (tmp_path / "link.txt").is_symlink() and real.read_text().split() == ["map", "all", "0.1785"]
    (tmp_path / "dangling.json").symlink_to("made.json")
    cli("eval", Q, R, "-m", "map", "-o", str(tmp_path / "dangling.json"))
    assert (tmp_path / "dangling.json").is_symlink()
    assert abs(json.loads((tmp_path / "made.json").read_text())[0]["value"] - 0.1785) < 5e-5
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    cli("eval", Q, R, "-m", "map", "-o", str(fifo))
    reader.join(timeout=60)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and got[0].split() == ["map", "all", "0.1785"]
    assert sorted(f.name for f in tmp_path.iterdir()) == ["dangling.json", "link.txt", "made.json", "pipe",
                                                          "real.txt"]


def test_no_common_query_is_an_error(tmp_path):
    other = tmp_path / "other.qrels"
    other.write_text("999 0 doc 1\n")
    p = cli("eval", str(other), R, "-m", "map", check=False)
    assert p.returncode == 1 and "no query in common" in p.stderr


def test_csv_and_gzip_inputs_give_the_same_numbers(tmp_path):
    import gzip
    q = tmp_path / "qrels.csv"
    q.write_text("query_id,item_id,relevance\n" + "".join(
        f"{a},{c},{d}\n" for a, b, c, d in (line.split() for line in open(Q))))
    rz = tmp_path / "run.txt.gz"
    with gzip.open(rz, "wt") as fh:
        fh.write(open(R).read())
    a = json.loads(cli("eval", Q, R, "-m", "ndcg_cut_10", "-q", "--format", "json").stdout)
    b = json.loads(cli("eval", str(q), str(rz), "-m", "ndcg_cut_10", "-q", "--format", "json").stdout)
    assert a == b
