"""Where participants see the disorder: their word marks against the known truths.

Two frames, from the database (`analysis.frames`) or a release (`load_release(marks=True)`):

- the **answers**: one row per pair whose marks question was answered, practice left out:
  ``participant``, ``item`` and ``marked``, a tuple of the unit positions marked (empty: the
  participant said no word is out of place);
- the **truths** (:func:`item_truths`): one row per item, with the units a participant could
  mark (``shown``, `wojdb.core.marks.units`; ``units``, how many), and the unit positions of
  each truth:
  ``displaced`` and ``minimal_moves`` for permutations (`wojdb.core.permutations.truth`),
  ``crossing`` for hypotheses (stored by compute_metrics; None where never aligned).

A rating's marks are scored against a truth by true positives (marked and in the truth), false
positives and false negatives. Precision is undefined for a rating that marks nothing, recall
for a truth that is empty, F1 where either is; the *micro* figures pool the counts of a group's
ratings, the *macro* ones average each rating's figure over the ratings where it is defined.
Intervals are percentile bootstraps over participants: a participant's ratings are resampled
together, as they are not independent.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import krippendorff
import numpy as np
import pandas as pd
from scipy import stats

from wojdb.core.language.rules import rules_for
from wojdb.core.marks import permutation_truths, units
from wojdb.core.stats import columns as C
from wojdb.core.stats.correlation import percentile_interval

MARKED = "marked"
UNITS = "units"
DISPLACED, MINIMAL_MOVES, CROSSING = "displaced", "minimal_moves", "crossing"
#: The truths a permutation's marks are scored against.
PERMUTATION_TRUTHS = (DISPLACED, MINIMAL_MOVES)
MEASURES = ("precision", "recall", "f1")
#: Fewest pairs with marks a group needs for its precision, recall and F1.
MIN_MARKED_PAIRS = 10
#: How many pairs the heat strips show: the ones most participants marked.
STRIP_PAIRS = 4

SHOWN = "shown"
TRUTH_COLUMNS = (
    C.ITEM, C.KIND, C.PERM_TYPE, C.DEGREE, "system", SHOWN, UNITS, *PERMUTATION_TRUTHS, CROSSING
)  # fmt: skip


# --- the frames --------------------------------------------------------------------------------


def answers(ratings: pd.DataFrame, marks: pd.DataFrame) -> pd.DataFrame:
    """The answers frame from a release's ratings table (its ``marked`` count says which pairs
    were answered) and marks table (one row per unit marked)."""
    answered = ratings[ratings[MARKED].notna() & ~ratings[C.PRACTICE].astype(bool)]
    key = [C.PARTICIPANT, C.ITEM]
    marked = (
        marks.sort_values([*key, "unit"]).groupby(key)["unit"].agg(lambda u: tuple(map(int, u)))
    )
    frame = answered[key].merge(marked.rename(MARKED), on=key, how="left")
    frame[MARKED] = [m if isinstance(m, tuple) else () for m in frame[MARKED]]
    return frame.reset_index(drop=True)


def item_truths(items: pd.DataFrame, crossing: Mapping[int, Sequence[int] | None]) -> pd.DataFrame:
    """The truths frame from items.csv's columns (`crossing`: a hypothesis item's crossing
    units, as stored; absent or None where it was never aligned)."""
    rules = {code: rules_for(code) for code in items[C.TARGET_LANG].unique()}
    rows = []
    for item in items.itertuples(index=False):
        language = rules[item.target_lang]
        shown = tuple(units(item.text, language))
        row = {
            C.ITEM: item.item,
            C.KIND: item.kind,
            C.PERM_TYPE: item.perm_type,
            C.DEGREE: item.degree,
            "system": item.system,
            SHOWN: shown,
            UNITS: len(shown),
            DISPLACED: None,
            MINIMAL_MOVES: None,
            CROSSING: None,
        }
        if item.kind == C.PERMUTATION:
            truths = permutation_truths(item.tokens, item.mapping, item.moved, language)
            row[DISPLACED], row[MINIMAL_MOVES] = map(tuple, truths)
        elif crossing.get(item.item) is not None:
            row[CROSSING] = tuple(crossing[item.item])
        rows.append(row)
    return pd.DataFrame(rows, columns=list(TRUTH_COLUMNS))


# --- precision, recall, F1 ---------------------------------------------------------------------


def counts(marked: Collection[int], truth_units: Collection[int]) -> tuple[int, int, int]:
    """True positives, false positives and false negatives of one rating's marks."""
    marked, truth_units = set(marked), set(truth_units)
    hits = len(marked & truth_units)
    return hits, len(marked) - hits, len(truth_units) - hits


def scores(tp, fp, fn) -> tuple:
    """Precision, recall and F1 of counts (numbers or arrays); NaN where undefined."""
    tp, fp, fn = (np.asarray(x, dtype=float) for x in (tp, fp, fn))
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), np.nan)
        recall = np.where(tp + fn > 0, tp / (tp + fn), np.nan)
        f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    f1 = np.where(np.isnan(precision) | np.isnan(recall), np.nan, f1)
    return precision, recall, f1


def _participant_sums(rows: pd.DataFrame, truth_column: str) -> tuple[np.ndarray, list[str]]:
    """Per participant (a row each): pooled counts, and sums and numbers of defined per-rating
    figures; with the columns' names."""
    tallies = np.array(
        [counts(m, t) for m, t in zip(rows[MARKED], rows[truth_column], strict=True)],
        dtype=float,
    ).reshape(-1, 3)
    per_rating = np.column_stack(scores(*tallies.T))
    defined = ~np.isnan(per_rating)
    table = np.column_stack([tallies, np.nan_to_num(per_rating), defined])
    columns = ["tp", "fp", "fn", *(f"{m}_sum" for m in MEASURES), *(f"{m}_n" for m in MEASURES)]
    _, person = np.unique(rows[C.PARTICIPANT].to_numpy(), return_inverse=True)
    sums = np.zeros((person.max() + 1, table.shape[1]))
    np.add.at(sums, person, table)
    return sums, columns


def _figures(sums: np.ndarray, columns: list[str]) -> dict[str, np.ndarray]:
    """Micro and macro figures from summed participant rows (one row per replicate)."""
    at = {name: sums[..., k] for k, name in enumerate(columns)}
    out = dict(
        zip((f"micro_{m}" for m in MEASURES), scores(at["tp"], at["fp"], at["fn"]), strict=True)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        for measure in MEASURES:
            n = at[f"{measure}_n"]
            out[f"macro_{measure}"] = np.where(n > 0, at[f"{measure}_sum"] / n, np.nan)
    return out


def agreement_with_truth(
    rows: pd.DataFrame, truth_column: str, *, n_boot: int, rng: np.random.Generator
) -> dict:
    """Micro and macro precision, recall and F1 of the rows' marks against a truth, with
    percentile bootstrap 95% intervals over participants; NaN with a note under
    MIN_MARKED_PAIRS pairs."""
    out = {"pairs": len(rows), "participants": rows[C.PARTICIPANT].nunique(), "note": ""}
    names = [f"{a}_{m}" for a in ("micro", "macro") for m in MEASURES]
    if len(rows) < MIN_MARKED_PAIRS:
        out["note"] = f"not estimable: fewer than {MIN_MARKED_PAIRS} marked pairs"
        return out | {k: np.nan for n in names for k in (n, f"{n}_low", f"{n}_high")}
    table, columns = _participant_sums(rows, truth_column)
    point = _figures(table.sum(axis=0), columns)
    weights = rng.multinomial(len(table), np.full(len(table), 1 / len(table)), size=n_boot)
    replicates = _figures(weights @ table, columns)
    for name in names:
        low, high = percentile_interval(replicates[name])
        out |= {name: float(point[name]), f"{name}_low": low, f"{name}_high": high}
    return out


def _scored(answered: pd.DataFrame, truths: pd.DataFrame) -> pd.DataFrame:
    return answered.merge(truths, on=C.ITEM, how="inner", validate="many_to_one")


def permutation_table(
    answered: pd.DataFrame,
    truths: pd.DataFrame,
    *,
    n_boot: int,
    seed: int,
    truth_columns: Sequence[str] = PERMUTATION_TRUTHS,
) -> pd.DataFrame:
    """Per permutation type and degree and per truth (of `truth_columns`):
    agreement_with_truth."""
    rng = np.random.default_rng(seed)
    rows = _scored(answered, truths)
    rows = rows[rows[C.KIND] == C.PERMUTATION]
    out = []
    for (perm_type, degree), group in rows.groupby([C.PERM_TYPE, C.DEGREE], sort=True):
        for truth_column in truth_columns:
            figures = agreement_with_truth(group, truth_column, n_boot=n_boot, rng=rng)
            out.append(
                {C.PERM_TYPE: perm_type, C.DEGREE: int(degree), "truth": truth_column} | figures
            )
    return pd.DataFrame(out)


def system_table(
    answered: pd.DataFrame, truths: pd.DataFrame, *, n_boot: int, seed: int
) -> pd.DataFrame:
    """Per system: agreement_with_truth of the hypotheses' marks with their crossing words
    (hypotheses never aligned left out)."""
    rng = np.random.default_rng(seed)
    rows = _scored(answered, truths)
    rows = rows[(rows[C.KIND] == C.HYPOTHESIS) & rows[CROSSING].notna()]
    out = []
    for system, group in rows.groupby("system", sort=True):
        out.append(
            {"system": system, "truth": CROSSING}
            | agreement_with_truth(group, CROSSING, n_boot=n_boot, rng=rng)
        )
    return pd.DataFrame(out)


# --- agreement between participants ------------------------------------------------------------


def unit_alpha(answered: pd.DataFrame, truths: pd.DataFrame) -> dict:
    """Krippendorff's α (nominal) of marked / not marked over the units of the items two or
    more participants answered: each unit is a unit of analysis, each participant a coder."""
    rows = _scored(answered, truths)
    raters = rows.groupby(C.ITEM)[C.PARTICIPANT].transform("size")
    rows = rows[raters >= 2]
    value_counts = []
    for _, group in rows.groupby(C.ITEM):
        size = int(group[UNITS].iloc[0])
        marked = np.zeros(size)
        for chosen in group[MARKED]:
            marked[[u for u in chosen if u < size]] += 1
        value_counts.append(np.column_stack([len(group) - marked, marked]))
    matrix = np.vstack(value_counts) if value_counts else np.zeros((0, 2))
    alpha = np.nan
    if matrix.size and (matrix.sum(axis=0) > 0).all():
        alpha = float(krippendorff.alpha(value_counts=matrix, level_of_measurement="nominal"))
    return {
        "alpha": alpha,
        "items": rows[C.ITEM].nunique(),
        "units": len(matrix),
        "participants": rows[C.PARTICIPANT].nunique(),
        "answers": len(rows),
    }


def agreement_table(answered: pd.DataFrame, truths: pd.DataFrame) -> pd.DataFrame:
    """unit_alpha over all items, hypotheses and permutations."""
    kinds = truths.set_index(C.ITEM)[C.KIND]
    out = [{C.KIND: "all"} | unit_alpha(answered, truths)]
    for kind in (C.HYPOTHESIS, C.PERMUTATION):
        part = answered[answered[C.ITEM].map(kinds) == kind]
        out.append({C.KIND: kind} | unit_alpha(part, truths))
    return pd.DataFrame(out)


# --- marks and the ratings ---------------------------------------------------------------------


def ratings_table(answered: pd.DataFrame, ratings: pd.DataFrame) -> pd.DataFrame:
    """Spearman's ρ (scipy's p-value) between the number of units marked on a pair and each of
    its two answers, over all pairs and by kind. The p-value treats pairs as independent,
    which a participant's several pairs are not: a guide, not a test."""
    key = [C.PARTICIPANT, C.ITEM]
    rows = answered.merge(ratings[[*key, C.KIND, *C.JUDGMENTS]], on=key, how="inner")
    rows = rows.assign(count=rows[MARKED].map(len))
    out = []
    for kind in ("all", C.HYPOTHESIS, C.PERMUTATION):
        part = rows if kind == "all" else rows[rows[C.KIND] == kind]
        for judgment in C.JUDGMENTS:
            pairs = part[["count", judgment]].dropna()
            rho = p = np.nan
            if len(pairs) >= 3 and pairs["count"].nunique() > 1 and pairs[judgment].nunique() > 1:
                rho, p = (float(v) for v in stats.spearmanr(pairs["count"], pairs[judgment]))
            out.append(
                {C.KIND: kind, "judgment": judgment, "pairs": len(pairs), "rho": rho, "p": p}
            )
    return pd.DataFrame(out)


# --- the heat strips ---------------------------------------------------------------------------


def unit_shares(answered: pd.DataFrame, item: int, size: int) -> np.ndarray:
    """The share of the item's answers that marked each of its `size` units."""
    chosen = answered.loc[answered[C.ITEM] == item, MARKED]
    shares = np.zeros(size)
    for marked in chosen:
        shares[[u for u in marked if u < size]] += 1
    return shares / len(chosen) if len(chosen) else shares


def strip_pairs(
    answered: pd.DataFrame, truths: pd.DataFrame, count: int = STRIP_PAIRS
) -> list[dict]:
    """The most answered items, half of them permutations and half hypotheses where both were
    marked (their truths differ in kind): their units as shown, the share of answers marking
    each, and the truth (displaced for a permutation, crossing for a hypothesis)."""
    answers_per_item = answered[C.ITEM].value_counts(sort=False).sort_index()
    answers_per_item = answers_per_item.sort_values(ascending=False, kind="stable")
    kinds = answers_per_item.index.map(truths.set_index(C.ITEM)[C.KIND])
    permutations = answers_per_item[kinds == C.PERMUTATION]
    hypotheses = answers_per_item[kinds == C.HYPOTHESIS]
    taken = min(len(permutations), max(count // 2, count - len(hypotheses)))
    chosen = pd.concat([permutations.head(taken), hypotheses.head(count - taken)])
    by_item = truths.set_index(C.ITEM)
    out = []
    for item, n in chosen.items():
        row = by_item.loc[item]
        shares = unit_shares(answered, item, int(row[UNITS]))
        known = row[DISPLACED] if row[C.KIND] == C.PERMUTATION else row[CROSSING]
        out.append(
            {
                "item": int(item),
                "answers": int(n),
                "kind": row[C.KIND],
                "shown": row[SHOWN],
                "shares": shares,
                "truth": known,
            }
        )
    return out


# --- the simulated marks -----------------------------------------------------------------------


def draw_marks(
    size: int,
    truth_units: Collection[int] | None,
    recall: float,
    false_rate: float,
    rng: np.random.Generator,
) -> tuple[int, ...]:
    """One simulated answer: each truth unit marked with probability `recall`, each other unit
    with probability `false_rate` (no truth: every unit is another unit); none marked is the
    answer "no word is out of place"."""
    truth_set = set(truth_units or ())
    chance = np.array([recall if u in truth_set else false_rate for u in range(size)])
    return tuple(int(u) for u in np.flatnonzero(rng.random(size) < chance))
