"""Runs RecTools' own metrics on data given as JSON on stdin and prints their values as JSON (run by the parity
tests with the interpreter of a virtual environment holding RecTools, which pins numpy < 2 and pandas < 3).

stdin: {"reco": [[user, item, rank], ...], "ref_reco": [[user, item, rank], ...], "interactions": [[user, item], ...],
        "prev_interactions": [[user, item], ...], "catalog": [item, ...],
        "vectors": {item: [number, ...], ...},
        "metrics": {"label": ["ClassName", {kwargs}], ...}}
IntraListDiversity's kwargs name its distance ("distance": "hamming" or "cosine") instead of a calculator: RecTools'
PairwiseHammingDistanceCalculator over the vectors as feature columns, or CosineDistanceCalculator below (RecTools
has no cosine calculator; its IntraListDiversity takes any PairwiseDistanceCalculator).
stdout: {"label": {"mean": x, "per_user": {user: value}}}  (per_user absent for catalog-wide metrics)
With --serve: one request per line of stdin, one answer per line of stdout, {"error": text} for a request that
failed (the test process keeps one runner, rather than importing pandas and RecTools again for each request).
"""
import json
import math
import sys

import numpy as np
import pandas as pd
import rectools.metrics as rm
from rectools import Columns
from rectools.metrics.distances import PairwiseDistanceCalculator, PairwiseHammingDistanceCalculator


class CosineDistanceCalculator(PairwiseDistanceCalculator):
    """1 - cos(u, v) = 1 - u.v / (|u| |v|) between the two items' vectors (rows of a DataFrame indexed by item);
    NaN for an item without one, as RecTools' Hamming calculator."""

    def __init__(self, vectors: pd.DataFrame) -> None:
        self.vectors = vectors

    def _get_distances_for_item_pairs(self, items_0, items_1):
        a, b = self.vectors.reindex(items_0).values, self.vectors.reindex(items_1).values
        return 1 - np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def main():
    json.dump(compute(json.load(sys.stdin)), sys.stdout)


def serve():
    for line in sys.stdin:
        try:
            answer = compute(json.loads(line))
        except BaseException as e:  # noqa: BLE001 (SystemExit too: the request's fault, told to the test)
            answer = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


def compute(data: dict) -> dict:
    reco = pd.DataFrame(data["reco"], columns=[Columns.User, Columns.Item, Columns.Rank])
    ref_reco = pd.DataFrame(data.get("ref_reco", []), columns=[Columns.User, Columns.Item, Columns.Rank])
    inter = pd.DataFrame(data.get("interactions", []), columns=[Columns.User, Columns.Item])
    prev = pd.DataFrame(data.get("prev_interactions", []), columns=[Columns.User, Columns.Item])
    catalog = data.get("catalog", [])
    vectors = pd.DataFrame.from_dict(data.get("vectors", {}), orient="index")
    out = {}
    for label, (name, kwargs) in data["metrics"].items():
        if name == "IntraListDiversity":
            calculator = {"hamming": PairwiseHammingDistanceCalculator, "cosine": CosineDistanceCalculator}
            kwargs = {"k": kwargs["k"], "distance_calculator": calculator[kwargs["distance"]](vectors)}
        metric = getattr(rm, name)(**kwargs)
        if name in ("PartialAUC", "PAP", "HitRate", "MRR", "Precision", "Recall", "NDCG", "MAP", "CoveredUsers"):
            per_user = metric.calc_per_user(reco, inter)
        elif name in ("MeanInvUserFreq", "AvgRecPopularity"):
            per_user = metric.calc_per_user(reco, prev)
        elif name in ("SufficientReco", "IntraListDiversity"):
            per_user = metric.calc_per_user(reco)
        elif name == "Intersection":  # the share of reco's top k in ref_reco's top ref_k
            per_user = metric.calc_per_user(reco, ref_reco)
        elif name == "Serendipity":
            per_user = metric.calc_per_user(reco, inter, prev, catalog)
        elif name == "CatalogCoverage":
            out[label] = {"mean": float(metric.calc(reco, catalog))}
            continue
        else:
            raise SystemExit(f"rectools_runner: no call known for {name}")
        values = {str(u): (None if v is None or math.isnan(v) else float(v)) for u, v in per_user.items()}
        out[label] = {"mean": float(per_user.mean()), "per_user": values}
    return out


if __name__ == "__main__":
    serve() if sys.argv[1:] == ["--serve"] else main()
