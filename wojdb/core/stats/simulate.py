"""Simulated answers from a stated generative model, and power analysis by simulation.

Generative model, on the 1-5 answer scale, for participant j and item i:

    latent_q(i, j) = 1 + 4 * quality_q(i) + item_i + bias_j + noise_q(i, j)   (q: holistic, order)
    answer_q(i, j) = latent_q(i, j) rounded and clipped to 1..5

- quality_q(i) in [0, 1]: for a WMT hypothesis its WMT score (``wmt_score``, else ``quality``;
  an item with neither gets a uniform draw); for a permutation eq. 6.2 (``quality``, i.e. 1 at
  degree 1 falling to 0 at the largest degree), except that ``choice`` permutations keep the
  reference's word order, so their order quality is 1.
- item_i ~ N(0, item_sd): what makes an item better or worse than its score says; shared by
  both questions.
- bias_j ~ N(0, participant_sd): a lenient or harsh judge, the same for both questions.
- noise ~ N(0, noise_sd) independently per answer; a ``blank_rate`` share is left blank.
- time on item ~ lognormal with median ``median_seconds``.
Every simulated row has ``simulated = True``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wojdb.core import scales
from wojdb.core.stats import columns as col
from wojdb.core.stats.correlation import statistic, williams_test
from wojdb.core.stats.defaults import SimulationModel


def _item_qualities(items: pd.DataFrame, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Per item: the quality each question responds to (see the module docstring)."""
    is_hypothesis = (items[col.KIND] == col.HYPOTHESIS).to_numpy()
    wmt = items[col.WMT_SCORE].to_numpy(dtype=float)
    given = items[col.QUALITY].to_numpy(dtype=float)
    base = np.where(is_hypothesis & ~np.isnan(wmt), wmt, given)
    missing = np.isnan(base)
    base[missing] = rng.uniform(0, 1, missing.sum())
    is_choice = (items[col.PERM_TYPE] == "choice").to_numpy()
    return {col.HOLISTIC: base, col.ORDER: np.where(is_choice, 1.0, base)}


def simulate_responses(
    assignments: pd.DataFrame,
    model: SimulationModel = SimulationModel(),
    seed: int = 0,
) -> pd.DataFrame:
    """Answers for every (participant, item) row of ``assignments``.

    ``assignments`` has the ratings frame's columns except the answers (participant, item,
    kind, perm_type, quality, wmt_score at least); the result adds holistic, order, their 0-1
    values and seconds, and sets ``simulated``.
    """
    rng = np.random.default_rng(seed)
    item_code, item_ids = pd.factorize(assignments[col.ITEM], sort=True)
    person_code, people = pd.factorize(assignments[col.PARTICIPANT], sort=True)
    first = np.unique(item_code, return_index=True)[1]
    quality = _item_qualities(assignments.iloc[first], rng)
    item_effect = rng.normal(0, model.item_sd, len(item_ids))
    bias = rng.normal(0, model.participant_sd, len(people))
    common = item_effect[item_code] + bias[person_code]
    n = len(assignments)
    answers = {}
    for judgment in col.JUDGMENTS:
        latent = 1 + 4 * quality[judgment][item_code] + common + rng.normal(0, model.noise_sd, n)
        answer = np.clip(np.rint(latent), col.LIKERT_MIN, col.LIKERT_MAX)
        answer[rng.uniform(size=n) < model.blank_rate] = np.nan
        answers[judgment] = answer
        answers[col.unit(judgment)] = scales.answer_to_unit(answer)
    answers[col.SECONDS] = model.median_seconds * np.exp(rng.normal(0, model.seconds_sigma, n))
    answers[col.SIMULATED] = np.ones(n, dtype=bool)
    return assignments.assign(**answers)


def hypothesis_design(
    participants: int,
    items_per_participant: int = 25,
    shared_items: int = 10,
    seed: int = 0,
) -> pd.DataFrame:
    """Assignments of WMT hypotheses only, as the hypothesis half of Table 6.3.

    Every participant rates the ``shared_items`` and their own unique ones; WMT scores are
    uniform on [0, 1].
    """
    rng = np.random.default_rng(seed)
    unique = items_per_participant - shared_items
    n_items = shared_items + participants * unique
    own = shared_items + np.arange(participants * unique).reshape(participants, unique)
    shared = np.broadcast_to(np.arange(shared_items), (participants, shared_items))
    item = np.concatenate([shared, own], axis=1)
    wmt = rng.uniform(0, 1, n_items)
    frame = pd.DataFrame(
        {
            col.PARTICIPANT: np.repeat(np.arange(participants), items_per_participant),
            col.ITEM: item.ravel(),
            col.QUESTIONNAIRE: np.repeat(np.arange(participants), items_per_participant),
            col.POSITION: np.tile(np.arange(1, items_per_participant + 1), participants),
            col.KIND: col.HYPOTHESIS,
            col.PERM_TYPE: None,
            col.DEGREE: np.nan,
            col.SHARED: item.ravel() < shared_items,
            col.PRACTICE: False,
        }
    )
    frame[col.WMT_SCORE] = wmt[frame[col.ITEM]]
    frame[col.QUALITY] = frame[col.WMT_SCORE]
    return frame


def _metric_pair(quality: np.ndarray, r_a: float, r_b: float, rng: np.random.Generator):
    """Two metrics whose population Pearson correlations with quality are r_a and r_b."""
    z = (quality - quality.mean()) / quality.std()
    a = r_a * z + np.sqrt(1 - r_a**2) * rng.normal(size=len(z))
    b = r_b * z + np.sqrt(1 - r_b**2) * rng.normal(size=len(z))
    return a, b


@dataclass(frozen=True)
class Power:
    table: pd.DataFrame  # participants, items, power, mean_r_a, mean_r_b
    required: int | None  # fewest participants reaching the target power, if any did


def power_analysis(
    r_a: float,
    r_b: float,
    participants: Sequence[int] = (12, 24, 36, 48, 72, 96),
    n_sims: int = 200,
    alpha: float = 0.05,
    target: float = 0.8,
    judgment: str = col.ORDER,
    method: str = "spearman",
    model: SimulationModel = SimulationModel(),
    items_per_participant: int = 25,
    shared_items: int = 10,
    seed: int = 0,
) -> Power:
    """How many participants to tell metric A (r_a) from metric B (r_b) by Williams's test.

    r_a and r_b are the metrics' Pearson correlations with the items' quality q (the WMT score
    the simulated judges respond to); correlations observed against human means are lower, as
    items and judges add noise.
    Each simulation draws a hypothesis design, answers from ``model``, and the two metrics;
    correlates both with the per-item mean 0-1 judgment; and counts a detection when the
    two-tailed Williams test has p < alpha with A ahead.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for n_people in participants:
        hits, r_as, r_bs = 0, [], []
        for _ in range(n_sims):
            design = hypothesis_design(
                n_people, items_per_participant, shared_items, seed=int(rng.integers(2**32))
            )
            answers = simulate_responses(design, model, seed=int(rng.integers(2**32)))
            human = answers.groupby(col.ITEM)[col.unit(judgment)].mean()
            quality = design.drop_duplicates(col.ITEM).set_index(col.ITEM)[col.WMT_SCORE]
            a, b = _metric_pair(quality.reindex(human.index).to_numpy(), r_a, r_b, rng)
            h = human.to_numpy()
            ra, rb, rab = (statistic(u, v, method)[0] for u, v in ((h, a), (h, b), (a, b)))
            test = williams_test(ra, rb, rab, len(h))
            hits += bool(test.p < alpha and ra > rb)
            r_as.append(ra)
            r_bs.append(rb)
        rows.append(
            {
                "participants": n_people,
                "items": shared_items + n_people * (items_per_participant - shared_items),
                "power": hits / n_sims,
                "mean_r_a": float(np.mean(r_as)),
                "mean_r_b": float(np.mean(r_bs)),
            }
        )
    table = pd.DataFrame(rows)
    reached = table.loc[table["power"] >= target, "participants"]
    return Power(table, int(reached.min()) if len(reached) else None)
