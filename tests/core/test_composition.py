"""Questionnaire composition (wojdb.core.design.composition): Table 6.3, checked rule by rule on
plain data."""

import random
from collections import Counter, defaultdict
from statistics import mean

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wojdb.core.design.composition import (
    CompositionError,
    ConfigurationError,
    Entry,
    Part,
    PoolHypothesis,
    PoolPermutation,
    compose,
    make_layout,
    table_6_3,
)
from wojdb.core.vocabulary import MAIN_TYPES

LANGUAGES = ("cs", "de", "fi", "hi", "ro", "ru", "tr")
DEGREES = (1, 3, 6, 9, 12, 15, 18)


def perm_quality(degree: int) -> float:
    return 1 - (degree - 1) / 17  # eq. 6.2 with 18 the largest degree


def make_pool(
    size=700,
    systems=2,
    degrees=DEGREES,
    types=MAIN_TYPES,
    missing_scores=0.3,
    seed=0,
    key_prefix="",
):
    """`size` hypotheses; each run of `systems` consecutive ones translates one reference."""
    rng = random.Random(seed)
    pool = []
    for i in range(size):
        perms = tuple(
            PoolPermutation(f"{key_prefix}p{i}-{t}-{d}", t, d, perm_quality(d))
            for t in types
            for d in degrees
        )
        quality = None if rng.random() < missing_scores else round(rng.random(), 4)
        pool.append(
            PoolHypothesis(
                key=f"{key_prefix}h{i}",
                segment=f"{key_prefix}s{i // systems}",
                source_lang=LANGUAGES[(i // systems) % len(LANGUAGES)],
                quality=quality,
                permutations=perms,
            )
        )
    return pool


_indexes = {}


def index(pool):
    if id(pool) not in _indexes:
        _indexes[id(pool)] = (
            pool,  # kept alive so its id is not reused
            {h.key: h for h in pool},
            {p.key: (h, p) for h in pool for p in h.permutations},
        )
    return _indexes[id(pool)][1:]


def parts_of(questionnaire, pool):
    """{shared flag: (hypotheses, [(carrier, permutation)])} of one questionnaire."""
    hypotheses, permutations = index(pool)
    out = {True: ([], []), False: ([], [])}
    for entry in questionnaire:
        if entry.key in hypotheses:
            out[entry.shared][0].append(hypotheses[entry.key])
        else:
            out[entry.shared][1].append(permutations[entry.key])
    return out


def groups_of(carried):
    """Multiset of (type, number of permutations) per carrying hypothesis, checking that each
    hypothesis carries one type at distinct degrees."""
    on = defaultdict(list)
    for h, p in carried:
        on[h.key].append(p)
    groups = Counter()
    for perms in on.values():
        assert len({p.perm_type for p in perms}) == 1, "a hypothesis carries one type"
        assert len({p.degree for p in perms}) == len(perms), "different degrees"
        groups[(perms[0].perm_type, len(perms))] += 1
    return groups


def assert_rules(questionnaires, pool, layout):
    """Every composition rule, checked from the questionnaires alone."""
    shared_sets, unique_seen = [], set()
    for q in questionnaires:
        keys = [e.key for e in q]
        assert len(keys) == len(set(keys)) == layout.items
        parts = parts_of(q, pool)
        for flag, part in ((True, layout.shared), (False, layout.unique)):
            hypotheses, carried = parts[flag]
            assert len(hypotheses) == part.hypotheses
            assert len(carried) == part.permutations
            inside = {h.key for h in hypotheses}
            assert all(h.key in inside for h, _ in carried), "carrier in the same part"
            groups = groups_of(carried)
            g = layout.group_size
            for t, n in part.typed.items():
                assert groups[(t, g)] >= n // g
            named = sum(n // g for n in part.typed.values())
            assert sum(groups.values()) == named + part.random, "one group per hypothesis"
        all_hypotheses = parts[True][0] + parts[False][0]
        assert len({h.segment for h in all_hypotheses}) == len(all_hypotheses)
        shared_sets.append({e.key for e in q if e.shared})
        unique = {e.key for e in q if not e.shared}
        assert not unique & unique_seen, "unique items never repeat"
        unique_seen |= unique
    assert all(s == shared_sets[0] for s in shared_sets), "shared items identical"
    assert not shared_sets[0] & unique_seen


# --- the layout -----------------------------------------------------------------------------


def test_table_6_3_is_derived_from_the_thesis_numbers():
    assert table_6_3() == {
        "shared": {"order": 2, "swap": 2, "phrase": 2, "choice": 2, "random": 2},
        "unique": {"order": 2, "swap": 2, "phrase": 2, "choice": 2, "random": 7},
    }


def test_table_6_3_scales_with_the_questionnaire():
    # 100 items: 50 permutations, 20 shared (2 pairs of each of 4 types fit, 4 left),
    # 30 unique (3 pairs each, 6 left).
    assert table_6_3(items=100) == {
        "shared": {"order": 4, "swap": 4, "phrase": 4, "choice": 4, "random": 4},
        "unique": {"order": 6, "swap": 6, "phrase": 6, "choice": 6, "random": 6},
    }


def test_default_layout_is_table_6_3():
    layout = make_layout()
    pairs = {"order": 2, "swap": 2, "phrase": 2, "choice": 2}
    assert layout.shared == Part(hypotheses=10, typed=pairs, random=2)
    assert layout.unique == Part(hypotheses=15, typed=pairs, random=7)
    assert layout.group_size == 2
    assert layout.items == 50
    assert layout.random_types == MAIN_TYPES


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"items": 0}, "positive whole number"),
        ({"shared_share": 1.5}, "between 0 and 1"),
        ({"type_counts": {"shared": {"order": 10}}}, 'exactly the parts "shared" and "unique"'),
        (
            {"type_counts": {"shared": {"order": 2, "random": 8}, "unique": {"order": 14}}},
            "unique type counts add up to 14 permutations",
        ),
        (
            {"type_counts": {"shared": {"order": 3, "random": 7}, "unique": {"random": 15}}},
            "shared order: 3 permutations cannot be split into pairs",
        ),
        (
            {"type_counts": {"shared": {"swapp": 2, "random": 8}, "unique": {"random": 15}}},
            "unknown permutation type 'swapp'",
        ),
        (
            {"type_counts": {"shared": {"order": -2, "random": 12}, "unique": {"random": 15}}},
            "whole number ≥ 0",
        ),
    ],
)
def test_bad_layouts_are_refused_with_a_clear_message(kwargs, message):
    with pytest.raises(ConfigurationError, match=message):
        make_layout(**kwargs)


def test_a_part_cannot_carry_more_groups_than_it_has_hypotheses():
    # 60% of 50 items are permutations: 30, of which 40% (12) shared, next to 8 shared
    # hypotheses. Without pairs every permutation needs its own hypothesis: 4 too few.
    with pytest.raises(
        ConfigurationError, match=r"shared: .* need 12 different .* only 8 \(short by 4\)"
    ):
        make_layout(
            items=50,
            permutation_share=0.6,
            type_counts={"shared": {"order": 6, "random": 6}, "unique": {"random": 18}},
            pairs_share_hypothesis=False,
        )


# --- 36 questionnaires, the thesis's study ----------------------------------------------------


@pytest.fixture(scope="module")
def pool():
    return make_pool()


@pytest.fixture(scope="module")
def thesis(pool):
    return compose(pool, make_layout(), 36, seed=2017)


def test_36_questionnaires_meet_every_rule(thesis, pool):
    assert len(thesis) == 36
    assert_rules(thesis, pool, make_layout())


def test_each_questionnaire_holds_exactly_table_6_3(thesis, pool):
    for q in thesis:
        parts = parts_of(q, pool)
        shared_hypotheses, shared_carried = parts[True]
        unique_hypotheses, unique_carried = parts[False]
        assert len(q) == 50
        assert (len(shared_hypotheses), len(unique_hypotheses)) == (10, 15)
        pairs = {(t, 2): 1 for t in ("order", "swap", "phrase", "choice")}
        shared_groups = groups_of(shared_carried)
        unique_groups = groups_of(unique_carried)
        assert {k: v for k, v in shared_groups.items() if k[1] == 2} == pairs
        assert sum(n for (_, size), n in shared_groups.items() if size == 1) == 2
        assert {k: v for k, v in unique_groups.items() if k[1] == 2} == pairs
        assert sum(n for (_, size), n in unique_groups.items() if size == 1) == 7
        # pairs (4) and single random permutations (2 and 7) each have their own hypothesis
        assert len({h.key for h, _ in shared_carried}) == 6
        assert len({h.key for h, _ in unique_carried}) == 11


def test_shared_items_are_identical_and_unique_items_never_repeat(thesis):
    shared = [{e.key for e in q if e.shared} for q in thesis]
    assert all(s == shared[0] for s in shared) and len(shared[0]) == 20
    unique = [e.key for q in thesis for e in q if not e.shared]
    assert len(unique) == 36 * 30 == len(set(unique))


def test_every_permutation_is_built_on_a_hypothesis_of_its_questionnaire(thesis, pool):
    for q in thesis:
        keys = {e.key for e in q}
        for flag in (True, False):
            for h, _ in parts_of(q, pool)[flag][1]:
                assert h.key in keys


def test_no_questionnaire_shows_two_translations_of_one_reference(thesis, pool):
    for q in thesis:
        hypotheses = parts_of(q, pool)[True][0] + parts_of(q, pool)[False][0]
        assert len({h.segment for h in hypotheses}) == 25


def test_positions_are_shuffled(thesis):
    shared_key = next(e.key for e in thesis[0] if e.shared)
    positions = {[e.key for e in q].index(shared_key) for q in thesis}
    assert len(positions) > 10
    for q in thesis:
        flags = [e.shared for e in q]
        assert flags != sorted(flags) and flags != sorted(flags, reverse=True)


def test_the_same_seed_gives_the_same_questionnaires_whatever_the_pool_order(pool, thesis):
    shuffled = list(pool)
    random.Random(5).shuffle(shuffled)
    assert compose(shuffled, make_layout(), 36, seed=2017) == thesis
    assert compose(pool, make_layout(), 36, seed=2018) != thesis


def test_shared_items_span_quality_language_type_and_degree(thesis, pool):
    hypotheses, carried = parts_of(thesis[0], pool)[True]
    # One hypothesis from each WMT-score decile of the pool.
    scored = sorted(h.quality for h in pool if h.quality is not None)
    deciles = [scored[len(scored) * i // 10] for i in range(10)] + [1.0]
    qualities = sorted(h.quality for h in hypotheses)
    for i, q in enumerate(qualities):
        assert deciles[i] <= q <= deciles[i + 1]
    # 10 hypotheses over 7 source languages: each language at least once, none thrice.
    languages = Counter(h.source_lang for h in hypotheses)
    assert set(languages) == set(LANGUAGES) and max(languages.values()) == 2
    # The two random-type permutations take two different types.
    singles = [p for h, p in carried if sum(1 for h2, _ in carried if h2.key == h.key) == 1]
    assert len({p.perm_type for p in singles}) == 2
    # Eq. 6.2 qualities spread over 0..1: one in each tenth the pool's degrees can reach.
    tenths = Counter(min(int(p.quality * 10), 9) for _, p in carried)
    reachable = {min(int(perm_quality(d) * 10), 9) for d in DEGREES}
    assert len(tenths) >= len(reachable) - 1


def test_questionnaires_have_the_same_quality_mix(thesis, pool):
    # Unique hypotheses are dealt one per quality stratum, so their mean WMT scores agree
    # closely; random dealing would spread them by about ±0.07 (SD 0.29 / √15).
    means = []
    for q in thesis:
        scores = [h.quality for h in parts_of(q, pool)[False][0] if h.quality is not None]
        means.append(mean(scores))
    assert max(means) - min(means) < 0.1


def test_each_questionnaire_spans_small_and_large_errors(thesis, pool):
    # Permutation qualities aim at targets spread evenly over 0..1 (mean 0.5); each lands
    # within half the widest gap between the pool's eq. 6.2 values of its target.
    values = sorted({perm_quality(d) for d in DEGREES})
    half_gap = max(b - a for a, b in zip(values, values[1:], strict=False)) / 2
    for q in thesis:
        for flag in (True, False):
            qualities = [p.quality for _, p in parts_of(q, pool)[flag][1]]
            assert abs(mean(qualities) - 0.5) <= half_gap
            assert min(qualities) <= 0.2 and max(qualities) >= 0.8


# --- the researcher's shared items and extension --------------------------------------------


def shared_selection(pool):
    """10 hypotheses; pairs of the four types on the first four; random on the next two."""
    chosen = [pool[i] for i in range(0, 20, 2)]  # one per reference
    keys = [h.key for h in chosen]
    for h, t in zip(chosen, MAIN_TYPES, strict=False):
        keys += [p.key for p in h.permutations if p.perm_type == t][:2]
    keys += [chosen[4].permutations[0].key, chosen[5].permutations[-1].key]
    return keys


def test_the_researchers_shared_items_are_used_as_chosen(pool):
    keys = shared_selection(pool)
    questionnaires = compose(pool, make_layout(), 3, seed=1, shared=keys)
    assert_rules(questionnaires, pool, make_layout())
    for q in questionnaires:
        assert sorted(e.key for e in q if e.shared) == sorted(keys)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda keys: keys[1:], r"shared hypotheses': the selection has 9, the study needs 10 "),
        (lambda keys: keys + ["nope"], r"1 are not in the pool: nope"),
        (lambda keys: keys[:-1] + ["p41-order-1"], r"outside the shared"),
        (
            # a third order permutation on the hypothesis that carries the order pair
            lambda keys: keys[:-1] + ["p0-order-9"],
            r"shared hypothesis h0 carries 3 permutations",
        ),
        (lambda keys: keys + [keys[0]], r"listed twice: h0"),
    ],
)
def test_a_wrong_shared_selection_says_what_is_wrong(pool, change, message):
    with pytest.raises(CompositionError, match=message):
        compose(pool, make_layout(), 2, seed=1, shared=change(shared_selection(pool)))


def test_extending_keeps_the_shared_items_and_never_reuses_a_hypothesis(pool, thesis):
    shared = [e.key for e in thesis[0] if e.shared]
    used = {e.key for q in thesis for e in q if not e.shared}
    more = compose(pool, make_layout(), 4, seed=99, shared=shared, used=used)
    assert_rules(thesis + more, pool, make_layout())


def test_without_pairs_every_permutation_has_its_own_hypothesis(pool):
    layout = make_layout(pairs_share_hypothesis=False)
    questionnaires = compose(pool, layout, 5, seed=3)
    assert_rules(questionnaires, pool, layout)
    for q in questionnaires:
        for flag in (True, False):
            carried = parts_of(q, pool)[flag][1]
            assert len({h.key for h, _ in carried}) == len(carried)


# --- a pool that cannot satisfy the rules says which rule and by how much ---------------------


def test_too_small_a_pool_reports_the_shortfall_of_hypotheses():
    # 36 questionnaires need 10 shared + 36 × 15 unique = 550 hypotheses.
    with pytest.raises(
        CompositionError,
        match=r"for 36 questionnaires, needs 550 different hypotheses; the pool has 500 "
        r"\(short by 50\)",
    ) as error:
        compose(make_pool(size=500), make_layout(), 36, seed=1)
    assert error.value.shortfall == 50


def test_too_few_hypotheses_with_a_type_report_that_type():
    # Only 20 hypotheses have swap permutations; 1 shared + 36 unique swap pairs need 37.
    pool = make_pool(size=600, types=("order", "phrase", "choice"))
    swaps = make_pool(size=20, key_prefix="x")
    with pytest.raises(
        CompositionError,
        match=r"rule 'swap pairs': for 36 questionnaires, needs 37 hypotheses with 2 swap "
        r"permutations of different degrees; the pool has 20 \(short by 17\)",
    ):
        compose(pool + swaps, make_layout(), 36, seed=1)


def test_one_degree_per_type_cannot_make_pairs():
    pool = make_pool(size=600, degrees=(4,))
    with pytest.raises(CompositionError, match=r"has 0 \(short by 37\)"):
        compose(pool, make_layout(), 36, seed=1)


def test_a_pool_without_permutations_lists_every_failing_rule():
    with pytest.raises(CompositionError) as error:
        compose(make_pool(size=600, types=()), make_layout(), 36, seed=1)
    lines = str(error.value).splitlines()
    assert lines[0] == "5 rules fail:"
    assert lines[1:] == [
        f"- rule '{t} pairs': for 36 questionnaires, needs 37 hypotheses with 2 {t} "
        "permutations of different degrees; the pool has 0 (short by 37)"
        for t in sorted(MAIN_TYPES)
    ] + [
        "- rule 'random-type permutations': for 36 questionnaires, needs 254 hypotheses with a "
        "permutation of type order or swap or phrase or choice; the pool has 0 (short by 254)"
    ]
    # 2 shared random + 36 × 7 unique random = 254


def test_types_competing_for_the_same_hypotheses_are_reported_together():
    # 40 hypotheses carry both swap and phrase permutations, no others do: each type alone
    # needs 37 (enough), both together need 74 from the same 40 (short by 34).
    pool = make_pool(size=600, types=("order", "choice"))
    both = make_pool(size=40, key_prefix="x")
    with pytest.raises(
        CompositionError,
        match=r"rule 'phrase pairs and swap pairs'.*needs 74.*has 40 \(short by 34\)",
    ):
        compose(pool + both, make_layout(), 36, seed=1)


@pytest.mark.parametrize("seed", range(8))
def test_translations_of_one_reference_are_kept_apart_even_in_a_single_questionnaire(seed):
    # 40 references, two translations each: 25 hypotheses must come from 25 of them.
    pool = make_pool(size=80, seed=seed)
    assert_rules(compose(pool, make_layout(), 1, seed=seed), pool, make_layout())


def test_too_few_references_for_one_questionnaire_are_reported():
    with pytest.raises(
        CompositionError,
        match=r"rule 'one reference per questionnaire': each questionnaire needs 25 hypotheses of "
        r"different references; the pool has 20 references \(short by 5\)",
    ):
        compose(make_pool(size=80, systems=4), make_layout(), 1, seed=1)


def test_a_count_below_one_is_refused(pool):
    with pytest.raises(ValueError, match="positive whole number"):
        compose(pool, make_layout(), 0, seed=1)


def test_a_pool_listing_an_item_twice_is_refused(pool):
    with pytest.raises(ValueError, match="lists item 'h0' twice"):
        compose(pool + pool[:1], make_layout(), 1, seed=1)


# --- any layout, any pool: rules hold or the error says why ------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=st.integers(min_value=4, max_value=30),
    permutation_share=st.sampled_from([0.3, 0.5, 0.6]),
    shared_share=st.sampled_from([0.0, 0.2, 0.4]),
    pairs=st.booleans(),
    count=st.integers(min_value=1, max_value=6),
    size=st.integers(min_value=5, max_value=150),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_rules_hold_for_any_layout_or_the_error_names_a_rule(
    items, permutation_share, shared_share, pairs, count, size, seed
):
    try:
        layout = make_layout(items, permutation_share, shared_share, None, pairs)
    except ConfigurationError:
        return
    pool = make_pool(size=size, degrees=(2, 5, 9), seed=seed)
    try:
        questionnaires = compose(pool, layout, count, seed)
    except CompositionError as error:
        for each in getattr(error, "errors", [error]):
            assert str(each).startswith("rule '") and "short by" in str(each)
        return
    assert_rules(questionnaires, pool, layout)
    assert all(isinstance(e, Entry) for q in questionnaires for e in q)
