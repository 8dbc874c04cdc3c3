"""Reference numbers from mt-metrics-eval's own implementation, for test_stats_system_metrics.py.

Run once, with a checkout of google-research/mt-metrics-eval (commit 68a481ae; its stats
module needs only numpy and scipy) on the path:

    PYTHONPATH=/path/to/mt-metrics-eval python tests/analysis/data/mtme/make_reference.py

vectors.json holds WMT21 de-en system-level vectors: the published human z per system
(tests/analysis/data/wmt21/ad-sys-ranking-de-en-z.csv, without HUMAN, which has no metric
scores) and the WMT21 news task's own BLEU and chrF against reference A. The script writes
reference.json; the tests never regenerate it.
"""

import json
from pathlib import Path

import numpy as np
import scipy.stats
from mt_metrics_eval import stats

HERE = Path(__file__).parent
SEED, K = 1234, 1000

vectors = json.loads((HERE / "vectors.json").read_text())
gold = vectors["human_z"]
n = len(gold)
reference = {"seed": SEED, "k": K, "metrics": {}, "permutation": {}}
for name in ("bleu", "chrf"):
    corr = stats.Correlation(n, gold, vectors[name])
    pearson = corr.Pearson()
    kendall = corr.Kendall()
    agree, pairs = stats.Agreement(gold, vectors[name])
    reference["metrics"][name] = {
        "pearson": float(pearson[0]),
        "pearson_p": float(pearson[1]),
        "kendall": float(kendall[0]),
        "kendall_p": float(kendall[1]),
        "accuracy": float(agree / pairs),
        "pairs": int(pairs),
    }
corr_bleu = stats.Correlation(n, gold, vectors["bleu"])
corr_chrf = stats.Correlation(n, gold, vectors["chrf"])
for label, fcn in (("pearson", scipy.stats.pearsonr), ("kendall", scipy.stats.kendalltau)):
    np.random.seed(SEED)  # PermutationSigDiff draws from numpy's global generator
    p, delta, used, _ = stats.PermutationSigDiff(corr_bleu, corr_chrf, fcn, k=K)
    # p: chrF (metric 2) correlates better than BLEU (metric 1).
    reference["permutation"][label] = {"p": float(p), "delta": float(delta), "k": int(used)}
(HERE / "reference.json").write_text(json.dumps(reference, indent=1) + "\n")
