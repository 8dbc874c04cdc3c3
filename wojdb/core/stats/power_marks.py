"""How many participants a study with word marks needs to know its recall per permutation type
and degree to a given precision, by simulation.

For each number of participants, a synthetic pool is drawn once, as a study draws its pool:
a tenth more hypotheses than the questionnaires need, each translating its own reference. A
reference's length, in words, is uniform on LENGTHS (5 to 32: the mean, 18, and spread, 8, of
the demo's WMT21 references of at most 40 words). A simple stand-in for the degrees a sentence
takes: a permutation of each main type at each degree from 1 to one less than its length (at
most MAX_DEGREE; `swap` the even ones only, as it exchanges pairs). Its displaced units are
`degree` units at random positions (every algorithm displaces `degree` words; which ones
changes no figure).

Each simulated study then:

- composes the questionnaires from the pool by the study's own rules (`composition.compose`,
  Table 6.3's layout unless given another); only their permutations are marked here;
- draws every participant's marks on every permutation of their questionnaire by the noise
  model of simulated participants (`marks.draw_marks`);
- scores the marks per type and degree by the report's own rule (`marks.permutation_table`
  against the displaced units): micro recall with its percentile-bootstrap 95% interval over
  participants, not estimable under `marks.MIN_MARKED_PAIRS` pairs.

Under the noise model every unit of a truth is marked with probability `recall`, so the true
micro recall of every group is `recall`; the share of intervals covering it checks the
interval. Recall counts only the truth's units: the sentence lengths and `false_rate` change
precision, not the figures planned for here, and the lengths matter only through the degrees a
sentence takes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wojdb.core.design.composition import (
    Layout,
    PoolHypothesis,
    PoolPermutation,
    compose,
    make_layout,
)
from wojdb.core.permutations import MAX_DEGREE, quality
from wojdb.core.stats import columns as C
from wojdb.core.stats import marks as M
from wojdb.core.stats.defaults import (
    MARKS_BOOT,
    MARKS_DESIGNS,
    MARKS_HALF_WIDTH,
    MARKS_PARTICIPANTS,
    MARKS_SIMULATIONS,
    SimulationModel,
)
from wojdb.core.vocabulary import MAIN_TYPES

#: Reference lengths in words, drawn uniformly (both ends included).
LENGTHS = (5, 32)
#: The columns of a design: one row per permutation a participant answers.
DESIGN_COLUMNS = (C.PARTICIPANT, C.ITEM, C.PERM_TYPE, C.DEGREE, M.UNITS, M.DISPLACED)
GROUP = [C.PERM_TYPE, C.DEGREE]

#: A design for a number of participants (made with `rng`): called with a generator, it draws
#: one study's design, a frame of DESIGN_COLUMNS.
Design = Callable[[int, np.random.Generator], Callable[[np.random.Generator], pd.DataFrame]]


def _pool(size: int, rng: np.random.Generator) -> tuple[list[PoolHypothesis], list[tuple]]:
    """`size` hypotheses of their own references, with their permutations; and each
    permutation's (type, degree, length), its key the index."""
    lengths = rng.integers(LENGTHS[0], LENGTHS[1] + 1, size)
    hypotheses, shapes = [], []
    for length in map(int, lengths):
        permutations = []
        for perm_type in MAIN_TYPES:
            for degree in range(1, min(MAX_DEGREE, length - 1) + 1):
                if perm_type == "swap" and degree % 2:
                    continue
                key = len(shapes)
                shapes.append((perm_type, degree, length))
                permutations.append(PoolPermutation(key, perm_type, degree, quality(degree)))
        key = -1 - len(hypotheses)  # hypotheses' keys apart from permutations'
        hypotheses.append(PoolHypothesis(key, key, "", float(rng.uniform()), tuple(permutations)))
    return hypotheses, shapes


class ThesisDesign:
    """The permutations of questionnaires for `participants`, composed by the study's rules
    from one synthetic pool (see the module docstring): as a study draws its pool once, the pool
    is drawn when the design is made, and each call composes the questionnaires anew."""

    def __init__(self, participants: int, rng: np.random.Generator, layout: Layout | None = None):
        self.participants = participants
        self.layout = layout or make_layout()
        needed = self.layout.shared.hypotheses + participants * self.layout.unique.hypotheses
        # A tenth more than needed, so that the composition has some choice.
        self.pool, self.shapes = _pool(needed + needed // 10 + 10, rng)

    def __call__(self, rng: np.random.Generator) -> pd.DataFrame:
        seed = int(rng.integers(2**32))
        questionnaires = compose(self.pool, self.layout, self.participants, seed)
        rows, displaced = [], {}
        for person, entries in enumerate(questionnaires):
            for key, _ in entries:
                if key < 0:
                    continue  # a hypothesis
                perm_type, degree, length = self.shapes[key]
                if key not in displaced:  # a shared permutation is the same for everyone
                    displaced[key] = tuple(sorted(map(int, rng.choice(length, degree, False))))
                rows.append((person, key, perm_type, degree, length, displaced[key]))
        return pd.DataFrame(rows, columns=list(DESIGN_COLUMNS))


def simulate_study(
    design: pd.DataFrame,
    recall: float,
    false_rate: float,
    n_boot: int,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """One study's marks on `design`, scored per type and degree: pairs, whether estimable,
    micro recall and its 95% interval, and its half-width."""
    marked = [
        M.draw_marks(units, truth, recall, false_rate, rng)
        for units, truth in zip(design[M.UNITS], design[M.DISPLACED], strict=True)
    ]
    answered = design[[C.PARTICIPANT, C.ITEM]].assign(**{M.MARKED: marked})
    truths = (
        design.drop_duplicates(C.ITEM).drop(columns=C.PARTICIPANT).assign(**{C.KIND: C.PERMUTATION})
    )
    table = M.permutation_table(
        answered, truths, n_boot=n_boot, seed=int(rng.integers(2**32)), truth_columns=(M.DISPLACED,)
    )
    out = table[[*GROUP, "pairs"]].assign(
        estimable=table["note"] == "",
        recall=table["micro_recall"],
        low=table["micro_recall_low"],
        high=table["micro_recall_high"],
    )
    return out.assign(half_width=(out["high"] - out["low"]) / 2)


@dataclass(frozen=True)
class MarksPower:
    #: Per number of participants: groups (how many usual groups), estimable, median_half_width,
    #: reached (the share of usual groups whose half-width is at most the target),
    #: widest_group, widest_pairs, widest_half_width, coverage.
    table: pd.DataFrame
    #: The fewest participants for which every usual group reaches the target, if any did.
    required: int | None
    #: The fewest for which the median usual group reaches it, if any did.
    required_median: int | None


def _groups(runs: pd.DataFrame, n_sims: int) -> pd.DataFrame:
    """Per group of the studies' `runs`: the share of studies that have it, its median pairs,
    its share estimable and its typical half-width, the median over the studies that have it."""
    # An interval the study cannot estimate is of no use: infinitely wide.
    width = runs["half_width"].where(runs["estimable"], np.inf)
    per_group = (
        runs.assign(width=width)
        .groupby(GROUP, sort=True)
        .agg(
            present=("pairs", "size"),
            pairs=("pairs", "median"),
            estimable=("estimable", "mean"),
            half_width=("width", "median"),
        )
        .reset_index()
    )
    return per_group.assign(present=per_group["present"] / n_sims)


def _row(runs: pd.DataFrame, usual: pd.DataFrame, recall: float, target: float) -> dict:
    # Of groups equally wide (not estimable), the thinnest.
    widest = usual.sort_values(["half_width", "pairs"], ascending=[False, True]).iloc[0]
    estimated = runs[runs["estimable"]]
    covered = (estimated["low"] <= recall) & (recall <= estimated["high"])
    return {
        "groups": len(usual),
        "estimable": float(runs["estimable"].mean()),
        "median_half_width": float(usual["half_width"].median()),
        "reached": float((usual["half_width"] <= target).mean()),
        "widest_group": f"{widest[C.PERM_TYPE]}/{widest[C.DEGREE]}",
        "widest_pairs": float(widest["pairs"]),
        "widest_half_width": float(widest["half_width"]),
        "coverage": float(covered.mean()) if len(covered) else np.nan,
    }


def _fewest(table: pd.DataFrame, column: str, target: float) -> int | None:
    reached = table.loc[table[column] <= target, "participants"]
    return int(reached.min()) if len(reached) else None


def marks_power(
    participants: Sequence[int] = MARKS_PARTICIPANTS,
    *,
    recall: float = SimulationModel.mark_recall,
    false_rate: float = SimulationModel.mark_false,
    half_width: float = MARKS_HALF_WIDTH,
    n_sims: int = MARKS_SIMULATIONS,
    n_boot: int = MARKS_BOOT,
    n_designs: int = MARKS_DESIGNS,
    seed: int = 0,
    design: Design = ThesisDesign,
    on_row: Callable[[dict], None] | None = None,
) -> MarksPower:
    """How many participants for the 95% interval of the micro recall of every permutation
    type and degree to reach `half_width` either side (its width halved).

    For each number of participants, `n_sims` studies (see `simulate_study`) on `n_designs`
    designs in turn, each study with marks of its own: composing questionnaires takes longer
    than answering them. A group's half-width in a study is infinite where the study has too
    few pairs of it to estimate; its typical half-width is the median over the studies that
    have it. The usual groups are those
    at least half the studies have: a degree the composition seldom picks is left out of the
    answer, but counted in `estimable`, the share of all (study, group) figures that are
    estimable. `coverage` is the share of the estimable intervals that hold the true recall.
    `on_row` gets each number of participants' row as it is done.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for n_people in participants:
        draw = design(n_people, rng)
        designs = [draw(rng) for _ in range(min(n_designs, n_sims))]
        runs = pd.concat(
            [
                simulate_study(designs[i % len(designs)], recall, false_rate, n_boot, rng)
                for i in range(n_sims)
            ],
            ignore_index=True,
        )
        groups = _groups(runs, n_sims)
        usual = groups[groups["present"] >= 0.5].reset_index(drop=True)
        row = {"participants": n_people} | _row(runs, usual, recall, half_width)
        rows.append(row)
        if on_row:
            on_row(row)
    table = pd.DataFrame(rows)
    return MarksPower(
        table,
        _fewest(table, "widest_half_width", half_width),
        _fewest(table, "median_half_width", half_width),
    )
