"""The generative model does what its docstring states; power behaves as power must."""

import numpy as np
import pandas as pd
import pytest

from wojdb.core.stats import columns as col
from wojdb.core.stats.simulate import (
    SimulationModel,
    hypothesis_design,
    power_analysis,
    simulate_responses,
)

SILENT = SimulationModel(participant_sd=0, item_sd=0, noise_sd=0)


def mixed_assignments():
    items = pd.DataFrame(
        {
            "item": [1, 2, 3, 4],
            "kind": ["hypothesis", "hypothesis", "permutation", "permutation"],
            "perm_type": [None, None, "order", "choice"],
            "degree": [np.nan, np.nan, 5, 3],
            "quality": [np.nan, 0.2, 0.25, 0.5],
            "wmt_score": [0.9, np.nan, 0.6, 0.6],
        }
    )
    people = pd.DataFrame({"participant": [10, 11, 12]})
    return people.merge(items, how="cross")


def test_without_noise_answers_are_the_stated_function_of_quality():
    answers = simulate_responses(mixed_assignments(), SILENT, seed=1).set_index("item")
    # hypothesis: WMT score, else quality; permutation: eq. 6.2 quality; choice keeps order.
    assert set(answers.loc[1, "holistic"]) == {round(1 + 4 * 0.9)}
    assert set(answers.loc[2, "holistic"]) == {round(1 + 4 * 0.2)}
    assert set(answers.loc[3, "order"]) == {round(1 + 4 * 0.25)}
    assert set(answers.loc[4, "holistic"]) == {round(1 + 4 * 0.5)}
    assert set(answers.loc[4, "order"]) == {5}


def test_answers_are_marked_likert_values_with_their_unit_scale():
    answers = simulate_responses(hypothesis_design(8), seed=3)
    assert answers["simulated"].all()
    for judgment in col.JUDGMENTS:
        assert set(answers[judgment].unique()) <= {1, 2, 3, 4, 5}
        np.testing.assert_array_equal(answers[col.unit(judgment)], (answers[judgment] - 1) / 4)
    assert (answers["seconds"] > 0).all()


def test_seeded_and_blank_rate_respected():
    design = hypothesis_design(20)
    a = simulate_responses(design, seed=5)
    pd.testing.assert_frame_equal(a, simulate_responses(design, seed=5))
    assert not a["order"].equals(simulate_responses(design, seed=6)["order"])
    blanks = simulate_responses(design, SimulationModel(blank_rate=0.2), seed=5)
    assert blanks["order"].isna().mean() == pytest.approx(0.2, abs=0.05)


def test_participant_bias_is_shared_by_all_their_answers():
    model = SimulationModel(participant_sd=1.0, item_sd=0, noise_sd=0.3)
    answers = simulate_responses(hypothesis_design(30), model, seed=2)
    latent_free = answers["order"] - (1 + 4 * answers["wmt_score"])
    per_person = latent_free.groupby(answers["participant"]).mean()
    # Between-participant spread ~ participant_sd, far above what noise alone would give.
    assert per_person.std() == pytest.approx(1.0, abs=0.35)


def test_hypothesis_design_shares_items_as_table_6_3():
    design = hypothesis_design(4, items_per_participant=25, shared_items=10)
    assert len(design) == 100
    counts = design["item"].value_counts()
    assert (counts[counts == 4].index < 10).all() and (counts == 4).sum() == 10
    assert design["shared"].sum() == 40


def test_power_rises_with_participants_and_with_the_gap():
    big = power_analysis(0.9, 0.2, participants=(6, 24), n_sims=20, seed=1)
    assert big.table["power"].iloc[-1] == 1.0
    assert big.required is not None and big.required <= 24
    none = power_analysis(0.5, 0.5, participants=(24,), n_sims=40, seed=1)
    assert none.table["power"].iloc[0] <= 0.15  # one-directional detections at alpha 0.05
    assert none.required is None
