"""Benchmark of the analysis statistics; prints timings (targets: 30 s, 10 s and 2 s).

1. The full analysis of a thesis-sized study: 36 participants x 50 items (Table 6.3 mix),
   30 score sources - participant adjustment, crossed models, t-tests, correlations with
   bootstrap intervals, Table 7.1, Williams's tests, demographic subsets, Table 7.4, agreement
   and participant checks.
2. A crossed participant + item fit on 50,000 ratings from 500 participants and 5,000 items;
   with R and lme4 installed, lme4 fits the same data for comparison.
3. The same ratings as 1-5 answers in a cumulative link mixed model (Laplace); with R and
   ordinal installed, ordinal::clmm fits the same data for comparison (it takes minutes).
4. A crossed participant + item fit on 1,000,000 ratings: 10,000 participants, each answering a
   pair of 50-item questionnaires (10 items of each shared by every questionnaire, 40 unique to
   it), 8 participants per pair, 100,020 items (target 10 s); beside lme4 when R is there.
5. Every WMT21 and WMT22 into-English per-rater DA judgment (SYSTEM and REPEAT: 93,294 and
   150,305) in one crossed fit, z ~ 1 + (1 | rater) + (1 | item), rater = year + WorkerId and
   item = year + language pair + system + segment id (target 2 s); beside lme4 when R is there.

6. The demo's report, timed by bench/report_bench.py (which see).

Run: .venv/bin/python bench/analysis_bench.py [full crossed ordinal scale wmt demo] (default: all)

A/B against a git revision: .venv/bin/python bench/analysis_bench.py --against REV [crossed scale]
fits the data of 2 and 4 (default: both) with REV's code (exported by `git archive` into a
temporary folder) and with the working tree's, each fit in a fresh process, alternating A B, B A
for --runs rounds (default 5), and prints both medians of CPU seconds and their ratio. Only the
fit is timed, after a small fit that warms the process. On a machine that sets
OPENBLAS_CORETYPE, unset it (and OPENBLAS_L2_SIZE) in the command alone: `env -u
OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/analysis_bench.py --against REV`.
"""

import os

# Threaded BLAS loses badly on a small shared machine for the 500 x 500 factorisations here;
# set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import pickle  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from wojdb import bundled  # noqa: E402
from wojdb.core.formats.wmt import read_judgments  # noqa: E402
from wojdb.core.stats import columns as col  # noqa: E402
from wojdb.core.stats.correlation import (  # noqa: E402
    correlation_table,
    coverage_table,
    subset_correlations,
    williams_table,
)
from wojdb.core.stats.hypotheses import hypotheses_table  # noqa: E402
from wojdb.core.stats.mixed import adjust_scores, adjustment_ttest, crossed_model  # noqa: E402
from wojdb.core.stats.ordinal import clmm  # noqa: E402
from wojdb.core.stats.quality import agreement, participant_checks  # noqa: E402
from wojdb.core.stats.reml import fit_reml  # noqa: E402
from wojdb.core.stats.simulate import simulate_responses  # noqa: E402
from wojdb.core.stats.system import COUNTED_TYPES, wmt_judgments  # noqa: E402

MAX_DEGREE = 18
TYPES = ("order", "swap", "phrase", "choice")


def study_design(participants: int, rng: np.random.Generator) -> pd.DataFrame:
    """Table 6.3 questionnaires: 10+15 hypotheses, 10+15 permutations, 40% shared."""
    items, next_id = [], 0

    def new_items(kind, perm_types):
        nonlocal next_id
        made = []
        for perm_type in perm_types:
            degree = rng.integers(1, MAX_DEGREE + 1) if kind == "permutation" else np.nan
            wmt = rng.uniform(0, 1) if rng.uniform() > 0.29 else np.nan  # 29% unranked
            quality = 1 - (degree - 1) / (MAX_DEGREE - 1) if kind == "permutation" else wmt
            made.append((next_id, kind, perm_type, degree, quality, wmt))
            next_id += 1
        return made

    def permutation_types(random_count):
        return [t for t in TYPES for _ in range(2)] + list(rng.choice(TYPES, random_count))

    shared = new_items("hypothesis", [None] * 10) + new_items("permutation", permutation_types(2))
    for person in range(participants):
        own = new_items("hypothesis", [None] * 15) + new_items("permutation", permutation_types(7))
        chosen = [(row, True) for row in shared] + [(row, False) for row in own]
        positions = rng.permutation(len(chosen)) + 1
        for (row, is_shared), position in zip(chosen, positions, strict=True):
            items.append((person, *row, is_shared, position))
    frame = pd.DataFrame(
        items,
        columns=[
            col.PARTICIPANT,
            col.ITEM,
            col.KIND,
            col.PERM_TYPE,
            col.DEGREE,
            col.QUALITY,
            col.WMT_SCORE,
            col.SHARED,
            col.POSITION,
        ],
    )
    people = pd.DataFrame(
        {
            col.PARTICIPANT: range(participants),
            col.AGE: rng.integers(18, 75, participants),
            col.LANGUAGES_SCORE: rng.integers(7, 20, participants),
            col.EDUCATION: rng.choice(col.EDUCATION_LEVELS, participants),
        }
    )
    frame = frame.merge(people, on=col.PARTICIPANT)
    return frame.assign(**{col.QUESTIONNAIRE: frame[col.PARTICIPANT], col.PRACTICE: False})


def score_sources(ratings: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """30 sources: DTED/DERP variants in configurations, baselines, and 11 partial imports."""
    items = ratings.drop_duplicates(col.ITEM).set_index(col.ITEM)
    truth = items[col.QUALITY].fillna(items[col.QUALITY].mean()).to_numpy()
    hypotheses = items.index[items[col.KIND] == col.HYPOTHESIS].to_numpy()
    sources = [
        ("DTED", v, c, noise)
        for v in ("b", "c", "fb", "fc")
        for c, noise in (("malt-giza", 0.3), ("stanford-cdec", 0.35))
    ]
    sources += [("DERP", v, c, 0.4) for v in ("", "f") for c in ("malt-giza", "stanford-cdec")]
    sources += [("BLEU", "", "", 0.5), ("Meteor", "", "", 0.5), ("Meteor (chnk)", "", "", 0.6)]
    sources += [("Kendall tau", "", a, 0.45) for a in ("giza", "cdec")]
    sources += [("Aligned %", "", a, 0.7) for a in ("giza", "cdec")]
    frames = []
    for metric, variant, config, noise in sources:
        frames.append(
            pd.DataFrame(
                {
                    col.ITEM: items.index,
                    col.METRIC: metric,
                    col.VARIANT: variant,
                    col.CONFIG: config,
                    col.SCORE: truth + rng.normal(0, noise, len(truth)),
                }
            )
        )
    for k in range(11):
        covered = rng.choice(hypotheses, int(len(hypotheses) * rng.uniform(0.05, 0.65)), False)
        quality = items.loc[covered, col.QUALITY].fillna(0.5).to_numpy()
        frames.append(
            pd.DataFrame(
                {
                    col.ITEM: covered,
                    col.METRIC: f"WMT metric {k + 1}",
                    col.VARIANT: "",
                    col.CONFIG: "",
                    col.SCORE: quality + rng.normal(0, 1.0, len(covered)),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def timed(label: str, timings: list, work):
    started, cpu = time.perf_counter(), time.process_time()
    result = work()
    timings.append((label, time.perf_counter() - started, time.process_time() - cpu))
    return result


def full_analysis() -> None:
    rng = np.random.default_rng(2017)
    ratings = simulate_responses(study_design(36, rng), seed=1)
    scores = score_sources(ratings, rng)
    n_sources = scores.groupby([col.METRIC, col.VARIANT, col.CONFIG]).ngroups
    print(
        f"Full analysis: {ratings[col.PARTICIPANT].nunique()} participants x "
        f"{len(ratings) // ratings[col.PARTICIPANT].nunique()} items, "
        f"{ratings[col.ITEM].nunique()} distinct items, {n_sources} score sources"
    )
    t: list[tuple[str, float, float]] = []
    adjusted, fits = timed(
        "participant models + adjusted scores", t, lambda: adjust_scores(ratings)
    )
    crossed = timed(
        "crossed models (both judgments)",
        t,
        lambda: {j: crossed_model(adjusted, j) for j in col.JUDGMENTS},
    )
    tests = timed("t-tests", t, lambda: {j: adjustment_ttest(adjusted, j) for j in col.JUDGMENTS})
    table = timed(
        "correlations, 1000 bootstrap resamples each",
        t,
        lambda: correlation_table(adjusted, scores, n_boot=1000),
    )
    coverage = timed("Table 7.1 coverage", t, lambda: coverage_table(adjusted, scores))
    williams = timed("Williams's tests, all pairs", t, lambda: williams_table(adjusted, scores))
    subsets = timed(
        "six demographic subsets, 1000 resamples",
        t,
        lambda: subset_correlations(adjusted, scores, n_boot=1000),
    )
    table74 = timed("Table 7.4", t, lambda: hypotheses_table(table)[0])
    alpha = timed("Krippendorff's alpha", t, lambda: agreement(adjusted))
    checks = timed("participant checks", t, lambda: participant_checks(adjusted))
    print(f"  {'':45s} {'wall':>9s} {'CPU':>9s}")
    for label, seconds, cpu in t:
        print(f"  {label:45s} {seconds:7.2f} s {cpu:7.2f} s")
    wall, cpu = sum(row[1] for row in t), sum(row[2] for row in t)
    print(f"  {'total':45s} {wall:7.2f} s {cpu:7.2f} s   (target < 30 s)")
    print(
        f"  rows: {len(table)} correlations, {len(coverage)} in Table 7.1, {len(williams)} "
        f"Williams pairs, {len(subsets)} subset correlations, {len(table74)} hypotheses, "
        f"{int(checks['flags'].ne('').sum())} participants flagged"
    )
    for judgment in col.JUDGMENTS:
        fit = crossed[judgment]
        print(
            f"  {judgment}: participant variance {fits[judgment].variances['participant']:.4f} "
            f"(converged {fits[judgment].state.converged}); crossed "
            f"participant {fit.variances['participant']:.4f} item {fit.variances['item']:.4f} "
            f"residual {fit.variances['residual']:.4f}; t-test p = {tests[judgment].pvalue:.3f}"
        )
    alphas = alpha.set_index("judgment")["alpha"].round(3).to_dict()
    print(f"  Krippendorff's alpha (ordinal, shared items): {alphas}")


def crossed_data(rng: np.random.Generator) -> pd.DataFrame:
    participants, items, per_person = 500, 5000, 100
    item = np.concatenate(
        [rng.choice(items, per_person, replace=False) for _ in range(participants)]
    )
    person = np.repeat(np.arange(participants), per_person)
    group = rng.choice(["hypothesis", *TYPES], len(item), p=[0.5, 0.125, 0.125, 0.125, 0.125])
    shift = pd.Series(
        {"hypothesis": 0, "order": -0.1, "swap": -0.05, "phrase": -0.12, "choice": 0.08}
    )
    value = (
        0.6
        + shift[group].to_numpy()
        + rng.normal(0, 0.12, participants)[person]
        + rng.normal(0, 0.15, items)[item]
        + rng.normal(0, 0.2, len(item))
    )
    return pd.DataFrame(
        {
            col.PARTICIPANT: person,
            col.ITEM: item,
            col.GROUP: group,
            col.unit(col.ORDER): np.clip(np.round(value * 4) / 4, 0, 1),
        }
    )


LME4_SCRIPT = """
suppressPackageStartupMessages({library(lme4); library(jsonlite)})
d <- read.csv(commandArgs(TRUE)[1])
d$group <- factor(d$group, levels = c("hypothesis", "order", "swap", "phrase", "choice"))
d$participant <- factor(d$participant); d$item <- factor(d$item)
t <- system.time(fit <- lmer(order01 ~ group + (1 | participant) + (1 | item), data = d))
vc <- as.data.frame(VarCorr(fit))
cat(toJSON(list(seconds = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]],
                fixef = as.list(fixef(fit)),
                variances = as.list(setNames(vc$vcov, ifelse(is.na(vc$var1), "residual", vc$grp)))),
           auto_unbox = TRUE, digits = NA))
"""


CLMM_SCRIPT = """
suppressPackageStartupMessages({library(ordinal); library(jsonlite)})
d <- read.csv(commandArgs(TRUE)[1])
d$group <- factor(d$group, levels = c("hypothesis", "order", "swap", "phrase", "choice"))
d$participant <- factor(d$participant); d$item <- factor(d$item)
d$order <- factor(d$order, ordered = TRUE)
t <- system.time(fit <- clmm(order ~ group + (1 | participant) + (1 | item), data = d))
cat(toJSON(list(seconds = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]],
                fixef = as.list(fit$beta), thresholds = as.list(fit$alpha),
                variances = lapply(VarCorr(fit), function(v) v[1, 1]),
                loglik = as.numeric(logLik(fit))),
           auto_unbox = TRUE, digits = NA))
"""


def r_fit(data: pd.DataFrame, script_text: str = LME4_SCRIPT) -> dict | None:
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        csv, script = Path(folder, "ratings.csv"), Path(folder, "fit.R")
        data.to_csv(csv, index=False)
        script.write_text(script_text)
        done = subprocess.run(["Rscript", str(script), str(csv)], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"  R not run: {done.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(done.stdout)


def crossed_benchmark() -> None:
    data = crossed_data(np.random.default_rng(5))
    print(
        f"Crossed fit: {len(data):,} ratings, {data[col.PARTICIPANT].nunique()} participants, "
        f"{data[col.ITEM].nunique():,} items"
    )
    started, cpu = time.perf_counter(), time.process_time()
    fit = crossed_model(data, col.ORDER)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"  wojdb.core.stats (REML)  {seconds:6.2f} s wall, {cpu:.2f} s CPU   (target < 10 s)")
    print(
        f"    variances participant {fit.variances['participant']:.6f} item "
        f"{fit.variances['item']:.6f} residual {fit.variances['residual']:.6f}; "
        f"converged {fit.state.converged}, {fit.state.evaluations} evaluations"
    )
    compare_lme4(fit, r_fit(data))


PAIRS, PER_PAIR, SHARED, UNIQUE = 1250, 8, 10, 40


def scale_data(rng: np.random.Generator) -> pd.DataFrame:
    """Questionnaires dealt in pairs: each holds SHARED items every questionnaire holds (two
    sets, one per questionnaire of a pair) and UNIQUE items of its own; PER_PAIR participants
    answer each pair."""
    participants = PAIRS * PER_PAIR
    n_items = 2 * SHARED + 2 * PAIRS * UNIQUE
    own = 2 * SHARED + (np.arange(participants) // PER_PAIR)[:, None] * 2 * UNIQUE
    item = np.hstack(
        [
            np.broadcast_to(np.arange(2 * SHARED), (participants, 2 * SHARED)),
            own + np.arange(2 * UNIQUE),
        ]
    ).ravel()
    person = np.repeat(np.arange(participants), 2 * (SHARED + UNIQUE))
    group_of = rng.choice(["hypothesis", *TYPES], n_items, p=[0.5, 0.125, 0.125, 0.125, 0.125])
    shift = pd.Series(
        {"hypothesis": 0, "order": -0.1, "swap": -0.05, "phrase": -0.12, "choice": 0.08}
    )
    value = (
        0.6
        + shift[group_of[item]].to_numpy()
        + rng.normal(0, 0.12, participants)[person]
        + rng.normal(0, 0.15, n_items)[item]
        + rng.normal(0, 0.2, len(item))
    )
    return pd.DataFrame(
        {
            col.PARTICIPANT: person,
            col.ITEM: item,
            col.GROUP: group_of[item],
            col.unit(col.ORDER): np.clip(np.round(value * 4) / 4, 0, 1),
        }
    )


def scale_benchmark() -> None:
    data = scale_data(np.random.default_rng(11))
    print(
        f"Crossed fit at scale: {len(data):,} ratings, {data[col.PARTICIPANT].nunique():,} "
        f"participants, {data[col.ITEM].nunique():,} items"
    )
    print(
        f"  design: {PAIRS:,} pairs of 50-item questionnaires, {PER_PAIR} participants per pair; "
        f"each participant rates {2 * SHARED} items shared by every questionnaire and "
        f"{2 * UNIQUE} of the pair's own"
    )
    started, cpu = time.perf_counter(), time.process_time()
    fit = crossed_model(data, col.ORDER)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(
        f"  wojdb.core.stats (REML)  {seconds:6.2f} s wall, {cpu:.2f} s CPU   "
        f"(target < 10 s: {'met' if seconds < 10 else 'missed'})"
    )
    print(
        f"    variances participant {fit.variances['participant']:.6f} item "
        f"{fit.variances['item']:.6f} residual {fit.variances['residual']:.6f}; "
        f"converged {fit.state.converged}, {fit.state.evaluations} evaluations"
    )
    compare_lme4(fit, r_fit(data))


def compare_lme4(fit, reference: dict | None) -> None:
    if reference is None:
        print("  lme4: Rscript with lme4 not available")
        return
    print(
        f"  lme4 lmer (REML)       {reference['seconds']:6.2f} s wall, {reference['cpu']:.2f} s CPU"
    )
    gap_fixed = np.max(np.abs(fit.fixed["estimate"].to_numpy() - list(reference["fixef"].values())))
    gap_var = max(abs(fit.variances[k] - v) for k, v in reference["variances"].items())
    print(
        f"    largest difference from lme4: fixed effects {gap_fixed:.1e}, variances {gap_var:.1e}"
    )


def ordinal_benchmark() -> None:
    data = crossed_data(np.random.default_rng(5))
    data[col.ORDER] = (data.pop(col.unit(col.ORDER)) * 4 + 1).astype(int)
    print(f"Crossed ordinal fit: the same {len(data):,} ratings as 1-5 answers")
    started, cpu = time.perf_counter(), time.process_time()
    fit = clmm(data, col.ORDER, fixed=(col.GROUP,), random=(col.PARTICIPANT, col.ITEM))
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"  wojdb.core.stats (clmm, Laplace)  {seconds:6.2f} s wall, {cpu:.2f} s CPU")
    print(
        f"    variances participant {fit.variances['participant']:.6f} item "
        f"{fit.variances['item']:.6f}; log-likelihood {fit.loglik:.4f}; "
        f"converged {fit.state.converged}, {fit.state.evaluations} evaluations"
    )
    reference = r_fit(data, CLMM_SCRIPT)
    if reference is None:
        print("  ordinal::clmm: Rscript with ordinal not available")
        return
    print(
        f"  ordinal::clmm                   {reference['seconds']:6.2f} s wall, "
        f"{reference['cpu']:.2f} s CPU"
    )

    def relative(ours, theirs):
        ours, theirs = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
        return float(np.max(np.abs(ours - theirs) / np.abs(theirs)))

    gaps = {
        "thresholds": relative(fit.thresholds["estimate"], list(reference["thresholds"].values())),
        "fixed effects": relative(fit.fixed["estimate"], list(reference["fixef"].values())),
        "variances": relative(
            [fit.variances[k] for k in reference["variances"]],
            list(reference["variances"].values()),
        ),
        "log-likelihood": relative([fit.loglik], [reference["loglik"]]),
    }
    print(
        "    largest relative difference from clmm: "
        + ", ".join(f"{name} {gap:.1e}" for name, gap in gaps.items())
    )


WMT_SCRIPT = """
suppressPackageStartupMessages({library(lme4); library(jsonlite)})
d <- read.csv(commandArgs(TRUE)[1])
d$rater <- factor(d$rater); d$item <- factor(d$item)
t <- system.time(fit <- lmer(score ~ 1 + (1 | rater) + (1 | item), data = d))
vc <- as.data.frame(VarCorr(fit))
cat(toJSON(list(seconds = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]],
                fixef = as.list(fixef(fit)),
                variances = as.list(setNames(vc$vcov, ifelse(is.na(vc$var1), "residual", vc$grp)))),
           auto_unbox = TRUE, digits = NA))
"""


def wmt_data() -> pd.DataFrame:
    """WMT21 and WMT22 into-English DA judgments that count (SYSTEM, REPEAT), one frame."""
    folder = bundled.wmt21_toen() / "humaneval"
    rows = [j for path in sorted(folder.glob("ad-*-good-stnd.csv")) for j in read_judgments(path)]
    wmt21 = wmt_judgments(rows)
    wmt21 = wmt21[wmt21["type"].isin(COUNTED_TYPES)]
    wmt22 = pd.read_csv(bundled.WMT22_TOEN_DA, sep="\t", dtype={"sid": str})
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "year": "2021",
                    "lp": wmt21["lp"].to_numpy(),
                    "rater": wmt21["rater"].to_numpy(),
                    "system": wmt21["system"].to_numpy(),
                    "sid": wmt21["segment"].astype(str).to_numpy(),
                    "score": wmt21["score"].to_numpy(),
                }
            ),
            wmt22[["lp", "rater", "system", "sid", "score"]].assign(year="2022"),
        ],
        ignore_index=True,
    )


def wmt_benchmark() -> None:
    judgments = wmt_data()
    for number, years in enumerate((["2021"], ["2021", "2022"])):
        if number:
            print()
        chosen = judgments[judgments["year"].isin(years)]
        data = pd.DataFrame(
            {
                "score": chosen["score"].to_numpy(),
                "rater": (chosen["year"] + "|" + chosen["rater"]).to_numpy(),
                "item": (
                    chosen["year"]
                    + "|"
                    + chosen["lp"]
                    + "|"
                    + chosen["system"]
                    + "|"
                    + chosen["sid"]
                ).to_numpy(),
            }
        )
        print(
            f"WMT{' + WMT'.join(y[2:] for y in years)} into-English DA: {len(data):,} judgments, "
            f"{data['rater'].nunique():,} raters (year + WorkerId) x {data['item'].nunique():,} "
            "items (year + language pair + system + segment id)"
        )
        started, cpu = time.perf_counter(), time.process_time()
        intercept = pd.DataFrame({"Intercept": np.ones(len(data))})
        fit = fit_reml(
            data["score"].to_numpy(), intercept, {"rater": data["rater"], "item": data["item"]}
        )
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(
            f"  wojdb.core.stats (REML)  {seconds:6.2f} s wall, {cpu:.2f} s CPU   "
            f"(target < 2 s: {'met' if seconds < 2 else 'missed'})"
        )
        print(
            "    variances "
            + ", ".join(f"{k} {v:.6f}" for k, v in fit.variances.items())
            + f"; converged {fit.state.converged}, {fit.state.evaluations} evaluations"
        )
        compare_lme4(fit, r_fit(data, WMT_SCRIPT))


def demo_report() -> None:
    """The demo's report, timed by bench/report_bench.py in a process of its own, as the
    report's first run in a process: this script's imports and warmed caches are not
    `analyse`'s."""
    subprocess.run([sys.executable, str(Path(__file__).with_name("report_bench.py"))], check=True)


#: One timed crossed fit in a fresh process, with the code of the tree given: argv is the tree,
#: the pickled ratings and the judgment. Prints its CPU and wall seconds and variances as JSON.
FIT_WORKER = """
import json, pickle, sys, time
sys.path.insert(0, sys.argv[1])
try:
    from wojdb.core.stats.mixed import crossed_model
except ImportError:  # trees from before the pure core's move
    from analysis.stats.mixed import crossed_model
with open(sys.argv[2], "rb") as f:
    data = pickle.load(f)
judgment = sys.argv[3]
crossed_model(data.iloc[: len(data) // 50], judgment)  # warm-up: first calls' imports, caches
started, cpu = time.perf_counter(), time.process_time()
fit = crossed_model(data, judgment)
print(json.dumps({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - started,
                  "variances": {k: float(v) for k, v in fit.variances.items()}}))
"""

#: The data of each A/B section: the crossed and the at-scale fits.
AB_DATA = {
    "crossed": lambda: crossed_data(np.random.default_rng(5)),
    "scale": lambda: scale_data(np.random.default_rng(11)),
}


def _timed_fit(tree: Path, ratings: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", FIT_WORKER, str(tree), str(ratings), col.ORDER],
        capture_output=True,
        text=True,
        cwd=tree,
    )
    if done.returncode != 0:
        sys.exit(f"the fit in {tree} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def against(revision: str, sections: list[str], runs: int) -> None:
    """Medians of CPU seconds of each section's fit: REV's code (A) against the working tree's
    (B), alternating A B, B A."""
    here = Path(__file__).resolve().parent.parent
    commit = subprocess.run(
        ["git", "rev-parse", "--short", f"{revision}^{{commit}}"],
        cwd=here,
        capture_output=True,
        text=True,
    )
    if commit.returncode != 0:
        sys.exit(f"--against: {revision!r} is not a revision of this repository")
    commit = commit.stdout.strip()
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder, "tree")
        tree.mkdir()
        archive = subprocess.run(
            ["git", "archive", "--format=tar", commit], cwd=here, capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        for number, name in enumerate(sections):
            data = AB_DATA[name]()
            ratings = Path(folder, f"{name}.pkl")
            ratings.write_bytes(pickle.dumps(data))
            if number:
                print()
            print(
                f"A/B {name}: crossed fit of {len(data):,} ratings, A = {commit}, B = working "
                f"tree; CPU seconds, {runs} rounds alternating A B, B A"
            )
            times = {"A": [], "B": []}
            last = {}
            for round_ in range(runs):
                for side in ("A", "B") if round_ % 2 == 0 else ("B", "A"):
                    result = _timed_fit(tree if side == "A" else here, ratings)
                    times[side].append(result["cpu"])
                    last[side] = result["variances"]
                print(f"  round {round_ + 1}: A {times['A'][-1]:.2f} s, B {times['B'][-1]:.2f} s")
            a, b = float(np.median(times["A"])), float(np.median(times["B"]))
            gap = max(abs(last["A"][k] - last["B"][k]) for k in last["B"])
            print(f"  median CPU: A {a:.2f} s, B {b:.2f} s; B / A = {b / a:.2f}")
            print(f"  largest difference between A's and B's variances: {gap:.1e}")


SECTIONS = {
    "full": full_analysis,
    "crossed": crossed_benchmark,
    "ordinal": ordinal_benchmark,
    "scale": scale_benchmark,
    "wmt": wmt_benchmark,
    "demo": demo_report,
}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Timings of the analysis statistics.")
    parser.add_argument("sections", nargs="*", metavar="section", help=", ".join(SECTIONS))
    parser.add_argument(
        "--against",
        metavar="REV",
        help="A/B: the crossed and scale fits with REV's code against the working tree's",
    )
    parser.add_argument("--runs", type=int, default=5, help="A/B rounds (default 5)")
    args = parser.parse_args()
    if args.against:
        chosen = args.sections or list(AB_DATA)
        for name in chosen:
            if name not in AB_DATA:
                parser.error(f"--against times {', '.join(AB_DATA)}, not {name!r}")
        against(args.against, chosen, args.runs)
        sys.exit()
    chosen = args.sections or list(SECTIONS)
    for name in chosen:
        if name not in SECTIONS:
            parser.error(f"unknown section {name!r}: choose from {', '.join(SECTIONS)}")
    for number, name in enumerate(chosen):
        if number:
            print()
        SECTIONS[name]()
