"""Runs RecTools' own metrics on data given as JSON on stdin and prints their values as JSON (run by the parity
tests with the interpreter of a virtual environment holding RecTools, which pins numpy < 2 and pandas < 3).

stdin: {"reco": [[user, item, rank], ...], "interactions": [[user, item], ...],
        "prev_interactions": [[user, item], ...], "catalog": [item, ...],
        "metrics": {"label": ["ClassName", {kwargs}], ...}}
stdout: {"label": {"mean": x, "per_user": {user: value}}}  (per_user absent for catalog-wide metrics)
"""
import json
import math
import sys

import pandas as pd
import rectools.metrics as rm
from rectools import Columns


def main():
    data = json.load(sys.stdin)
    reco = pd.DataFrame(data["reco"], columns=[Columns.User, Columns.Item, Columns.Rank])
    inter = pd.DataFrame(data.get("interactions", []), columns=[Columns.User, Columns.Item])
    prev = pd.DataFrame(data.get("prev_interactions", []), columns=[Columns.User, Columns.Item])
    catalog = data.get("catalog", [])
    out = {}
    for label, (name, kwargs) in data["metrics"].items():
        metric = getattr(rm, name)(**kwargs)
        if name in ("PartialAUC", "PAP", "HitRate", "MRR", "Precision", "Recall", "NDCG", "MAP", "CoveredUsers"):
            per_user = metric.calc_per_user(reco, inter)
        elif name in ("MeanInvUserFreq", "AvgRecPopularity"):
            per_user = metric.calc_per_user(reco, prev)
        elif name in ("SufficientReco",):
            per_user = metric.calc_per_user(reco)
        elif name == "Serendipity":
            per_user = metric.calc_per_user(reco, inter, prev, catalog)
        elif name == "CatalogCoverage":
            out[label] = {"mean": float(metric.calc(reco, catalog))}
            continue
        else:
            raise SystemExit(f"rectools_runner: no call known for {name}")
        values = {str(u): (None if v is None or math.isnan(v) else float(v)) for u, v in per_user.items()}
        out[label] = {"mean": float(per_user.mean()), "per_user": values}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
