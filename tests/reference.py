"""A small, obviously-correct pure-Python reference for every metric and convention, written from the
definitions in ../shared/CONVENTIONS.md and the README, for the presets no library covers (ranx's query set and
relevance level, MLlib, the "retrieved" convention, exponential gain, capped/retrieved AP, ideal=retrieved,
ERR, RBP, Judged). Plain loops over plain lists; nothing here is shared with the package.

qrels: {query: {item: grade}}; run: {query: {item: score}}; ranks: {query: {item: rank}} (ties='input' only).
"""
import math

NAN = float("nan")

# The presets as the README's conventions table states them (written out here, not imported).
PRESETS = {
    "trec_eval": dict(ties="item_desc", gain="linear", ideal="judgments", denominator="judged", empty="zero",
                      queries="both", level_for_gain=False),
    "ranx": dict(ties="item_desc", gain="linear", ideal="judgments", denominator="judged", empty="zero",
                 queries="judged", level_for_gain=True, negative_grades="nonrelevant"),
    "mllib": dict(ties="input", gain="binary", ideal="judgments", denominator="capped", empty="zero",
                  queries="all", level_for_gain=True),
    "sklearn": dict(ties="average", gain="raw", ideal="candidates", denominator="judged", empty="zero",
                    queries="run", level_for_gain=False),
    "retrieved": dict(ties="item_desc", gain="exponential", ideal="retrieved", denominator="retrieved",
                      empty="nan", queries="all", level_for_gain=False),
}


def ranking(scores, ranks, ties):
    """Items in rank order. trec_eval: score descending, then item id descending byte-wise."""
    items = list(scores)
    by_id = sorted(items, key=lambda d: d.encode(), reverse=(ties != "item_asc"))  # the last tie-break first
    by_score = sorted(by_id, key=lambda d: -scores[d])                            # stable sorts
    if ties == "input":
        return sorted(by_score, key=lambda d: ranks[d])
    return by_score


def log(x, base):
    return math.log(x) / math.log(base)


def gain_of(g, gain, glvl):
    if gain == "raw":  # the grade itself, whatever it is (scikit-learn's y_true)
        return 0.0 if g is None else float(g)
    if g is None or g <= 0 or g < glvl:
        return 0.0
    return {"linear": float(g), "exponential": 2.0 ** g - 1, "binary": 1.0}[gain]


def finish(value, num_rel, empty):
    if empty == "nan" and num_rel == 0:
        return NAN
    return 0.0 if value is None else value


def ratio(a, b):
    return None if b == 0 else a / b


def query_metric(name, k, p, judged, scores, ranks, c):
    """One metric for one query. judged {item: grade}, scores {item: score}; p the metric's parameters; c the
    conventions."""
    ranked = ranking(scores, ranks, c["ties"])
    if c.get("judged_only"):
        ranked = [d for d in ranked if judged.get(d) is not None and judged[d] >= 0]
    grade = [judged.get(d) for d in ranked]        # grade[i] of the item at rank i + 1
    n = len(ranked)
    lvl = p.get("rel", c.get("rel", 1))
    top = n if k is None else min(k, n)
    is_rel = [g is not None and g >= lvl for g in grade]
    num_rel = sum(1 for g in judged.values() if g >= lvl)
    hits = sum(is_rel[:top])
    empty = c["empty"]

    if name == "NumQ":
        return 1.0
    if name == "NumRet":
        return float(n)
    if name == "NumRel":
        return float(num_rel)
    if name == "NumRelRet":
        return float(sum(is_rel))
    if name == "P":
        return finish(ratio(hits, n if k is None else k), num_rel, empty)
    if name == "R":
        return finish(ratio(hits, num_rel), num_rel, empty)
    if name == "F1":
        return finish(ratio(2 * hits, (n if k is None else k) + num_rel), num_rel, empty)
    if name == "Success":
        return finish(1.0 if hits else 0.0, num_rel, empty)
    if name == "RR":
        first = next((i + 1 for i in range(top) if is_rel[i]), None)
        return finish(None if first is None else 1 / first, num_rel, empty)
    if name == "Rprec":
        return finish(ratio(sum(is_rel[:min(num_rel, n)]), num_rel), num_rel, empty)
    if name == "AP":
        total, found = 0.0, 0
        for i in range(top):
            if is_rel[i]:
                found += 1
                total += found / (i + 1)
        den = {"judged": num_rel, "retrieved": hits,
               "capped": num_rel if k is None else min(k, num_rel)}[p.get("denominator", c["denominator"])]
        return finish(ratio(total, den), num_rel, empty)
    if name == "bpref":
        floor = -math.inf if c.get("negative_grades") == "nonrelevant" else 0  # ranx: a negative grade counts
        nonrel = sum(1 for g in judged.values() if floor <= g < lvl)
        total, above = 0.0, 0
        for i in range(n):
            g = grade[i]
            if g is not None and floor <= g < lvl:
                above += 1
            elif is_rel[i]:
                total += 1.0 if above == 0 else 1 - min(above, num_rel) / min(nonrel, num_rel)
        return finish(ratio(total, num_rel), num_rel, empty)
    if name == "Judged":
        count = sum(1 for g in grade[:top] if g is not None and g >= 0)
        return finish(ratio(count, n if k is None else k), 1 if any(g >= 1 for g in judged.values()) else 0, empty)
    if name == "ERR":
        mg = p.get("max_grade", 4)

        def stop(g):
            if g is None or g <= 0:
                return 0.0
            return (2.0 ** min(g, mg) - 1) / 2.0 ** mg
        total, reach = 0.0, 1.0
        for i in range(top):
            total += reach * stop(grade[i]) / (i + 1)
            reach *= 1 - stop(grade[i])
        return finish(total, sum(1 for g in judged.values() if g >= 1), empty)
    if name == "RBP":
        q = p.get("p", 0.8)
        rel = p.get("rbp_rel")
        if rel is None:  # graded: grade / the query's highest judged grade
            best = max([g for g in judged.values() if g > 0], default=None)
            s = sum(grade[i] * q ** i for i in range(top) if grade[i] is not None and grade[i] > 0)
            value = None if best is None else (1 - q) * s / best
            return finish(value, sum(1 for g in judged.values() if g >= 1), empty)
        s = sum(q ** i for i in range(top) if grade[i] is not None and grade[i] >= rel)
        return finish((1 - q) * s, sum(1 for g in judged.values() if g >= rel), empty)
    if name in ("DCG", "nDCG"):
        gain, base = p.get("gain", c["gain"]), c.get("log_base", 2)
        glvl = lvl
        gains = [gain_of(g, gain, glvl) for g in grade]
        disc = lambda pos: 1 / log(pos + 1, base)  # noqa: E731
        if c["ties"] == "average":  # tied items share the mean discount of their ranks (ranks past k: 0)
            dcg = 0.0
            for i in range(n):
                group = [j for j in range(n) if scores[ranked[j]] == scores[ranked[i]]]
                dcg += gains[i] * sum(disc(j + 1) if k is None or j < k else 0 for j in group) / len(group)
        else:
            dcg = sum(gains[i] * disc(i + 1) for i in range(top))
        if name == "DCG":
            return finish(dcg, sum(1 for g in judged.values() if g >= glvl), empty)
        ideal = p.get("ideal", c["ideal"])
        if ideal == "judgments":
            best = sorted(judged.values(), reverse=True)
        elif ideal == "candidates":
            best = sorted([0 if g is None else g for g in grade], reverse=True)
        else:  # the top k retrieved, re-sorted by grade
            best = sorted([0 if g is None else g for g in grade[:top]], reverse=True)
        best = best if k is None else best[:k]
        idcg = sum(gain_of(g, gain, glvl) * disc(i + 1) for i, g in enumerate(best))
        return finish(ratio(dcg, idcg), sum(1 for g in judged.values() if g >= glvl), empty)
    if name in ("INST", "BPM", "SDCG"):  # cwl_eval's C/W/L measures over its 1000 ranks (cwl/ruler/measures)
        lo, hi, t = p.get("min_rel", 0), p["max_rel"], p.get("t", 1.0)
        levels = [0 if g is None else min(max(g, 0, lo), hi) - lo for g in grade[:1000]]
        levels += [0] * (1000 - len(levels))
        gains = [v / (hi - lo) for v in levels]
        cont, so_far = [], 0
        for i in range(1000):  # C(i) of rank i + 1
            so_far += levels[i]
            if name == "INST":
                x = i + 1 + 2 * t - so_far / (hi - lo)
                cont.append(((x - 1) / x) ** 2)
            elif name == "BPM":  # the gain so far compared with T exactly: levels are whole for whole grades
                cont.append(1.0 if so_far < t * (hi - lo) and i + 1 < k else 0.0)
            else:
                cont.append(math.log(i + 2) / math.log(i + 3) if i + 1 < k else 0.0)
        weights = [1.0]
        for i in range(999):
            weights.append(weights[-1] * cont[i])
        value = sum(w * g for w, g in zip(weights, gains)) / sum(weights)
        return finish(value, sum(1 for g in judged.values() if g >= 1), empty)
    if name == "Compat":  # Clarke et al.'s compatibility as ir_measures' compat provider, with our tie rules
        q, where = p.get("p", 0.95), {d: i for i, d in enumerate(ranked)}

        def place(d):  # after the grade: retrieved with a score >= 0, then not retrieved, then below 0
            if d not in where:
                return (1, 0)
            return (0 if scores[d] >= 0 else 2, where[d])
        ideal = sorted([d for d, g in judged.items() if g > 0], key=lambda d: (-judged[d], place(d)))
        depth = max(n, len(ideal))

        def rbo(a, b):
            return sum(q ** i * len(set(a[:i + 1]) & set(b[:i + 1])) / (i + 1) for i in range(depth))
        total = sum(q ** i for i in range(depth))
        value = None if total == 0 else rbo(ranked, ideal) / total
        if p.get("normalize", "true") == "true" and total > 0 and rbo(ideal, ideal) > 0:
            value = rbo(ranked, ideal) / rbo(ideal, ideal)
        return finish(value, sum(1 for g in judged.values() if g >= 1), empty)
    raise KeyError(name)


def query_set(qrels, run, queries):
    both = set(qrels) & set(run)
    return {"both": both, "judged": set(qrels), "run": set(run), "all": set(qrels) | set(run)}[queries]


def evaluate(qrels, run, measures, c, ranks=None):
    """{label: {query: value}} for measures [(label, metric, k, params)], under conventions c."""
    out = {}
    for label, name, k, p in measures:
        per = {}
        for q in query_set(qrels, run, c["queries"]):
            per[q] = query_metric(name, k, p, qrels.get(q, {}), run.get(q, {}), (ranks or {}).get(q, {}), c)
        out[label] = per
    return out


def mean(values, name):
    kept = [v for v in values if not math.isnan(v)]
    if name.startswith("Num"):
        return float(sum(kept))
    return sum(kept) / len(kept) if kept else NAN
