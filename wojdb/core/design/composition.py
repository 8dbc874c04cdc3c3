"""Questionnaire composition by rule (thesis §6.3.4, Table 6.3).

Pure functions on plain data. A pool of candidate hypotheses, each with the permutations of its
reference, goes in; questionnaires come out as lists of `Entry(key, shared)` in position order.

The rules, with the thesis's numbers as the study's defaults:
- every questionnaire has the same number of items, hypotheses and permutations;
- a *shared* part (the same items in every questionnaire) and a *unique* part (items never used
  in another questionnaire) each hold hypotheses and permutations in the layout's proportions;
- permutations of a named type come in groups built on one hypothesis (pairs of different
  degrees in Table 6.3); the remaining permutations are of a random type, one per hypothesis;
- every permutation is built on a hypothesis of the same part of the same questionnaire, and no
  hypothesis carries more than one group;
- no two hypotheses of a questionnaire translate the same reference;
- positions are shuffled.
Every random choice comes from one `random.Random(seed)`, and the pool is put in a fixed order
first, so the same pool and seed give the same questionnaires whatever order the pool came in.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import NamedTuple

from wojdb.core.vocabulary import MAIN_TYPES

VERSION = "composition-1"  # recorded with every questionnaire; bump when output changes
RANDOM = "random"
PARTS = ("shared", "unique")


class ConfigurationError(ValueError):
    """A study's numbers do not describe a possible questionnaire."""


class CompositionError(Exception):
    """The pool (or a shared selection) cannot satisfy a rule; the message says which and by
    how much, and `shortfall` holds the missing number where there is one."""

    def __init__(self, rule: str, message: str, shortfall: int | None = None):
        self.rule = rule
        self.shortfall = shortfall
        super().__init__(f"rule '{rule}': {message}")


class CompositionErrors(CompositionError):
    """Several rules fail at once; `errors` lists them, the message has one line each."""

    def __init__(self, errors: Sequence[CompositionError]):
        self.errors = list(errors)
        self.rule = ", ".join(e.rule for e in errors)
        self.shortfall = max((e.shortfall or 0) for e in errors)
        Exception.__init__(
            self, f"{len(errors)} rules fail:\n" + "\n".join(f"- {e}" for e in errors)
        )


# --- the layout: how many items of each kind a questionnaire holds ---------------------------


@dataclass(frozen=True)
class Part:
    """The shared or the unique part of every questionnaire."""

    hypotheses: int
    typed: Mapping[str, int]  # permutations of a named type
    random: int  # permutations of a type drawn at random, one per hypothesis

    @property
    def permutations(self) -> int:
        return sum(self.typed.values()) + self.random

    @property
    def items(self) -> int:
        return self.hypotheses + self.permutations


@dataclass(frozen=True)
class Layout:
    shared: Part
    unique: Part
    group_size: int  # permutations of a named type on one hypothesis: 2 in Table 6.3, else 1
    random_types: tuple[str, ...]  # the types a random-type permutation is drawn from

    @property
    def items(self) -> int:
        return self.shared.items + self.unique.items

    def part(self, name: str) -> Part:
        return self.shared if name == "shared" else self.unique


def _half_up(x: float) -> int:
    # Shares of item counts rarely divide evenly; round halves up, and forgive float noise
    # (50 × 0.5 × 0.4 is 10.000000000000002).
    return math.floor(round(x, 9) + 0.5)


def _check_numbers(items: int, permutation_share: float, shared_share: float) -> None:
    if not isinstance(items, int) or items < 1:
        raise ConfigurationError(
            f"items per questionnaire must be a positive whole number: {items!r}"
        )
    for name, share in (("permutation share", permutation_share), ("shared share", shared_share)):
        if not 0 <= share <= 1:
            raise ConfigurationError(f"{name} must lie between 0 and 1: {share!r}")


def part_sizes(
    items: int, permutation_share: float, shared_share: float
) -> dict[str, tuple[int, int]]:
    """(hypotheses, permutations) in the shared and the unique part."""
    _check_numbers(items, permutation_share, shared_share)
    permutations = _half_up(items * permutation_share)
    hypotheses = items - permutations
    shared = (_half_up(hypotheses * shared_share), _half_up(permutations * shared_share))
    return {"shared": shared, "unique": (hypotheses - shared[0], permutations - shared[1])}


def table_6_3(
    items: int = 50,
    permutation_share: float = 0.5,
    shared_share: float = 0.4,
    types: Sequence[str] = MAIN_TYPES,
) -> dict[str, dict[str, int]]:
    """Permutations per type in the shared and unique parts, derived as Table 6.3 is.

    Each part holds as many pairs of every type as fit evenly (one pair each at the thesis's
    numbers); the part's other permutations are of a random type. The result is the JSON a
    study's `type_counts` holds.
    """
    if not types:
        raise ConfigurationError("at least one permutation type is needed")
    counts = {}
    for part, (_, permutations) in part_sizes(items, permutation_share, shared_share).items():
        pairs = permutations // (2 * len(types))
        counts[part] = {t: 2 * pairs for t in types} | {
            RANDOM: permutations - 2 * pairs * len(types)
        }
    return counts


def make_layout(
    items: int = 50,
    permutation_share: float = 0.5,
    shared_share: float = 0.4,
    type_counts: Mapping[str, Mapping[str, int]] | None = None,
    pairs_share_hypothesis: bool = True,
    known_types: Sequence[str] = (*MAIN_TYPES, "both"),
) -> Layout:
    """Validate a study's numbers; empty `type_counts` means `table_6_3` of those numbers."""
    sizes = part_sizes(items, permutation_share, shared_share)
    counts = type_counts or table_6_3(items, permutation_share, shared_share)
    if not isinstance(counts, Mapping) or set(counts) != set(PARTS):
        raise ConfigurationError(
            'type counts must have exactly the parts "shared" and "unique", e.g. '
            '{"shared": {"order": 2, "random": 2}, "unique": {...}}'
        )
    group = 2 if pairs_share_hypothesis else 1
    parts = {}
    for name in PARTS:
        given = counts[name]
        if not isinstance(given, Mapping):
            raise ConfigurationError(f"{name} type counts must map type names to numbers")
        for t, n in given.items():
            if t != RANDOM and t not in known_types:
                raise ConfigurationError(
                    f"{name}: unknown permutation type {t!r} "
                    f"(known: {', '.join(known_types)}, or {RANDOM!r})"
                )
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise ConfigurationError(f"{name} {t}: count must be a whole number ≥ 0: {n!r}")
        hypotheses, permutations = sizes[name]
        typed = {t: n for t, n in given.items() if t != RANDOM and n}
        part = Part(hypotheses, typed, given.get(RANDOM, 0))
        if part.permutations != permutations:
            raise ConfigurationError(
                f"{name} type counts add up to {part.permutations} permutations, but "
                f"{items} items with these shares give the {name} part {permutations}"
            )
        for t, n in typed.items():
            if n % group:
                raise ConfigurationError(
                    f"{name} {t}: {n} permutations cannot be split into pairs on one "
                    "hypothesis; make it even or let each permutation have its own hypothesis"
                )
        carriers = sum(n // group for n in typed.values()) + part.random
        if carriers > hypotheses:
            raise ConfigurationError(
                f"{name}: the permutations need {carriers} different hypotheses to be built on, "
                f"but the part has only {hypotheses} (short by {carriers - hypotheses})"
            )
        parts[name] = part
    named = {t for part in parts.values() for t in part.typed}
    random_types = tuple(t for t in known_types if t in named) or MAIN_TYPES
    return Layout(parts["shared"], parts["unique"], group, random_types)


# --- the pool -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PoolPermutation:
    key: Hashable
    perm_type: str
    degree: int
    quality: float  # eq. 6.2


@dataclass(frozen=True)
class PoolHypothesis:
    key: Hashable
    segment: Hashable  # the reference it translates
    source_lang: str
    quality: float | None  # WMT score (eq. 6.1, or DA / 100); None where WMT has none
    permutations: tuple[PoolPermutation, ...] = ()


class Entry(NamedTuple):
    key: Hashable
    shared: bool


class _Role(NamedTuple):
    """What a hypothesis does in a part: carry `size` permutations of `perm_type`
    (a named type or RANDOM), or nothing (perm_type None)."""

    perm_type: str | None
    size: int


_PLAIN = _Role(None, 0)


@dataclass
class _Selection:
    hypotheses: list[PoolHypothesis]
    permutations: list[PoolPermutation]

    def item_keys(self) -> list[Hashable]:
        return [h.key for h in self.hypotheses] + [p.key for p in self.permutations]


def _roles(part: Part, group: int) -> list[_Role]:
    roles = [_Role(t, group) for t, n in part.typed.items() for _ in range(n // group)]
    roles += [_Role(RANDOM, 1)] * part.random
    return roles + [_PLAIN] * (part.hypotheses - len(roles))


def _role_order(role: _Role) -> tuple:
    # Named types first, then random, then plain: the most demanding roles are filled first.
    return (role.perm_type is None, role.perm_type == RANDOM, role.perm_type or "", role.size)


def _label(role: _Role) -> str:
    if role.perm_type is None:
        return "hypotheses"
    if role.perm_type == RANDOM:
        return "random-type permutations"
    return f"{role.perm_type} pairs" if role.size == 2 else f"{role.perm_type} permutations"


def _describe(role: _Role, types: Sequence[str]) -> str:
    if role.perm_type is None:
        return "hypotheses not used elsewhere"
    if role.perm_type == RANDOM:
        return f"hypotheses with a permutation of type {' or '.join(types)}"
    if role.size == 1:
        return f"hypotheses with a {role.perm_type} permutation"
    return f"hypotheses with {role.size} {role.perm_type} permutations of different degrees"


def _by_type(h: PoolHypothesis) -> dict[str, dict[int, PoolPermutation]]:
    """Permutations by type and degree (the first of a degree if the pool repeats one)."""
    out: dict[str, dict[int, PoolPermutation]] = defaultdict(dict)
    for p in h.permutations:
        out[p.perm_type].setdefault(p.degree, p)
    return out


def _can_carry(h: PoolHypothesis, role: _Role, types: Sequence[str], by_type=None) -> bool:
    if role.perm_type is None:
        return True
    by_type = by_type or _by_type(h)
    if role.perm_type == RANDOM:
        return any(by_type.get(t) for t in types)
    return len(by_type.get(role.perm_type, ())) >= role.size


def _ordered(pool: Iterable[PoolHypothesis]) -> list[PoolHypothesis]:
    """The pool in a fixed order, with duplicate keys refused."""
    pool = list(pool)
    seen: set = set()
    for h in pool:
        for key in (h.key, *(p.key for p in h.permutations)):
            if key in seen:
                raise ValueError(f"the pool lists item {key!r} twice")
            seen.add(key)
    return sorted(
        (
            dataclasses.replace(
                h,
                permutations=tuple(
                    sorted(h.permutations, key=lambda p: (p.perm_type, p.degree, repr(p.key)))
                ),
            )
            for h in pool
        ),
        key=lambda h: repr(h.key),
    )


def _quality_order(hypotheses: Iterable[PoolHypothesis], rng: random.Random):
    """Lowest WMT score first, those without a score last, ties in random order."""
    return sorted(hypotheses, key=lambda h: (h.quality is None, h.quality or 0.0, rng.random()))


# --- supply: can the pool fill every role at all? --------------------------------------------


def _capabilities(
    candidates: Sequence[PoolHypothesis], roles: Iterable[_Role], types: Sequence[str]
) -> dict[Hashable, frozenset[_Role]]:
    roles = list(roles)
    caps = {}
    for h in candidates:
        by_type = _by_type(h)
        caps[h.key] = frozenset(r for r in roles if _can_carry(h, r, types, by_type))
    return caps


def _check_supply(
    candidates: Sequence[PoolHypothesis],
    demand: Mapping[_Role, int],
    types: Sequence[str],
    context: str,
) -> dict[Hashable, frozenset[_Role]]:
    """Raise CompositionError unless every role can get its own hypotheses.

    Hall's condition, checked for every set of carrying roles: the hypotheses able to fill at
    least one role of the set must be at least as many as the set needs. It is exact — when it
    holds, `_reserve` finds an assignment — so the error names the real bottleneck.
    """
    caps = _capabilities(candidates, demand, types)
    classes = Counter(caps.values())
    carrying = sorted((r for r in demand if r.perm_type is not None), key=_role_order)
    failures = []
    for size in range(1, len(carrying) + 1):
        for roles in combinations(carrying, size):
            need = sum(demand[r] for r in roles)
            have = sum(n for c, n in classes.items() if c.intersection(roles))
            if have < need:
                if len(roles) == 1:
                    what = _describe(roles[0], types)
                else:
                    what = "hypotheses able to carry " + " or ".join(_label(r) for r in roles)
                failures.append(
                    CompositionError(
                        " and ".join(_label(r) for r in roles),
                        f"for {context}, needs {need} {what}; the pool has {have} "
                        f"(short by {need - have})",
                        need - have,
                    )
                )
        if failures:
            break
    total = sum(demand.values())
    if len(candidates) < total:
        failures.append(
            CompositionError(
                "no hypothesis used twice",
                f"for {context}, needs {total} different hypotheses; the pool has "
                f"{len(candidates)} (short by {total - len(candidates)})",
                total - len(candidates),
            )
        )
    if len(failures) == 1:
        raise failures[0]
    if failures:
        raise CompositionErrors(failures)
    return caps


def _reserve(
    candidates: Sequence[PoolHypothesis],
    demand: Mapping[_Role, int],
    caps: Mapping[Hashable, frozenset[_Role]],
    rng: random.Random,
) -> dict[_Role, list[PoolHypothesis]]:
    """Give every role its number of hypotheses, each hypothesis to one role at most.

    Hypotheses with the same capabilities are interchangeable, so a maximum flow from these
    classes to the roles decides how many of each class fill each role; which members of a
    class do so is left to chance.
    """
    # numpy and scipy load here, not when the models import this module at start-up.
    import numpy as np
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import maximum_flow

    roles = sorted(demand, key=_role_order)
    classes: dict[frozenset, list[PoolHypothesis]] = defaultdict(list)
    for h in candidates:
        classes[caps[h.key]].append(h)
    kinds = sorted(classes, key=lambda c: sorted(_role_order(r) for r in c))
    source, sink = 0, 1 + len(kinds) + len(roles)
    role_node = {role: 1 + len(kinds) + j for j, role in enumerate(roles)}
    edges = [(role_node[r], sink, demand[r]) for r in roles]
    for i, kind in enumerate(kinds, start=1):
        size = len(classes[kind])
        edges += [(source, i, size)] + [(i, role_node[r], size) for r in roles if r in kind]
    rows, cols, capacity = zip(*edges, strict=True)
    graph = csr_array(
        (np.array(capacity, dtype=np.int32), (rows, cols)), shape=(sink + 1, sink + 1)
    )
    flow = maximum_flow(graph, source, sink).flow.toarray()
    reserved: dict[_Role, list[PoolHypothesis]] = {r: [] for r in roles}
    for i, kind in enumerate(kinds, start=1):
        members = list(classes[kind])
        rng.shuffle(members)
        for role in roles:
            n = int(flow[i, role_node[role]])
            reserved[role] += members[:n]
            members = members[n:]
    # Hall's condition was checked before, so the flow saturates every role.
    assert all(len(reserved[r]) == demand[r] for r in roles)
    return reserved


# --- choosing permutations for the hypotheses that carry them ---------------------------------


def _closest(perms: Mapping[int, PoolPermutation], target: float, taken: set[int]):
    return min(
        (p for d, p in perms.items() if d not in taken),
        key=lambda p: (abs(p.quality - target), p.degree),
    )


def _spanning_permutations(
    carriers: Sequence[tuple[_Role, PoolHypothesis]],
    types: Sequence[str],
    rng: random.Random,
    *,
    spread_types: bool,
) -> list[PoolPermutation]:
    """Permutations for a part's carriers whose eq. 6.2 qualities spread evenly over 0..1, so
    every questionnaire spans small and large errors alike (and averages about 0.5, as §6.3.5
    expects). Random-type slots take the type the part has least of if `spread_types`, else a
    type at random."""
    total = sum(role.size for role, _ in carriers)
    targets = [(i + 0.5) / total for i in range(total)]
    rng.shuffle(targets)
    chosen: list[PoolPermutation] = []
    for role, h in sorted(carriers, key=lambda c: _role_order(c[0])):
        by_type = _by_type(h)
        if role.perm_type == RANDOM:
            available = [t for t in types if by_type.get(t)]
            if spread_types:
                counts = Counter(p.perm_type for p in chosen)
                available = [t for t in available if counts[t] == min(counts[a] for a in available)]
            perm_type = rng.choice(available)
        else:
            perm_type = role.perm_type
        taken: set[int] = set()
        for _ in range(role.size):
            p = _closest(by_type[perm_type], targets.pop(), taken)
            taken.add(p.degree)
            chosen.append(p)
    return chosen


# --- the shared part ------------------------------------------------------------------------


def _split_evenly(seq: Sequence, n: int) -> list[list]:
    return [list(seq[len(seq) * i // n : len(seq) * (i + 1) // n]) for i in range(n)]


def _choose_shared(
    candidates: Sequence[PoolHypothesis],
    reserved: Mapping[_Role, list[PoolHypothesis]],
    caps: Mapping[Hashable, frozenset[_Role]],
    layout: Layout,
    rng: random.Random,
) -> _Selection:
    """Shared items stratified to span quality, source language, permutation type and degree.

    The WMT scores of the candidates are cut into as many quantile strata as there are shared
    hypotheses, and which stratum carries which permutations is left to chance. Each role takes
    a hypothesis reserved for it or reserved for nobody (so the unique parts keep enough), from
    its stratum if it can, the source language least used so far winning.
    """
    roles = _roles(layout.shared, layout.group_size)
    if not roles:
        return _Selection([], [])
    scored = sorted(h.quality for h in candidates if h.quality is not None)
    strata = (
        [(s[0], s[-1]) for s in _split_evenly(scored, len(roles))]
        if len(scored) >= len(roles)
        else [(0.0, 1.0)] * len(roles)
    )
    rng.shuffle(roles)
    taken = {h.key for members in reserved.values() for h in members}
    spare = [h for h in candidates if h.key not in taken]
    picked: list[tuple[_Role, PoolHypothesis]] = []
    segments: set = set()
    languages: Counter = Counter()
    for i in sorted(range(len(roles)), key=lambda i: _role_order(roles[i])):
        role, (low, high) = roles[i], strata[i]
        fits = [
            h
            for h in reserved[role] + [h for h in spare if role in caps[h.key]]
            if h.segment not in segments
        ]
        if not fits:
            raise CompositionError(
                "one reference per questionnaire",
                f"no {_describe(role, layout.random_types)} left for the shared part that "
                "translates a reference not already shared (short by 1)",
                1,
            )
        inside = [h for h in fits if h.quality is not None and low <= h.quality <= high]
        if inside:
            fewest = min(languages[h.source_lang] for h in inside)
            h = rng.choice([h for h in inside if languages[h.source_lang] == fewest])
        else:  # nearest in quality to the stratum
            centre = (low + high) / 2
            h = min(
                fits,
                key=lambda h: (
                    2.0 if h.quality is None else abs(h.quality - centre),
                    languages[h.source_lang],
                ),
            )
        picked.append((role, h))
        segments.add(h.segment)
        languages[h.source_lang] += 1
    carriers = [(r, h) for r, h in picked if r.perm_type is not None]
    permutations = _spanning_permutations(carriers, layout.random_types, rng, spread_types=True)
    return _Selection([h for _, h in picked], permutations)


def _expect(rule: str, have: int, need: int) -> None:
    if have < need:
        raise CompositionError(
            rule,
            f"the selection has {have}, the study needs {need} (short by {need - have})",
            need - have,
        )
    if have > need:
        raise CompositionError(
            rule, f"the selection has {have}, the study needs {need} ({have - need} too many)"
        )


def _check_shared(
    pool: Sequence[PoolHypothesis], layout: Layout, keys: Iterable[Hashable]
) -> _Selection:
    """The researcher's (or an extended study's) shared items, checked against the layout."""
    keys = list(keys)
    hypotheses = {h.key: h for h in pool}
    permutations = {p.key: (h, p) for h in pool for p in h.permutations}
    unknown = [k for k in keys if k not in hypotheses and k not in permutations]
    if unknown:
        shown = ", ".join(map(str, unknown[:5])) + (", …" if len(unknown) > 5 else "")
        raise CompositionError(
            "shared items come from the pool", f"{len(unknown)} are not in the pool: {shown}"
        )
    repeated = [k for k, n in Counter(keys).items() if n > 1]
    if repeated:
        raise CompositionError("shared items", f"listed twice: {', '.join(map(str, repeated))}")
    part = layout.shared
    chosen = [hypotheses[k] for k in keys if k in hypotheses]
    carried = [permutations[k] for k in keys if k in permutations]
    _expect("shared hypotheses", len(chosen), part.hypotheses)
    _expect("shared permutations", len(carried), part.permutations)
    same_reference = len(chosen) - len({h.segment for h in chosen})
    if same_reference:
        raise CompositionError(
            "one reference per questionnaire",
            f"{same_reference} shared hypotheses translate a reference another one translates",
        )
    inside = {h.key for h in chosen}
    outside = [p.key for h, p in carried if h.key not in inside]
    if outside:
        raise CompositionError(
            "permutations built on a hypothesis of the same questionnaire",
            f"{len(outside)} shared permutations are built on hypotheses outside the shared "
            f"selection: {', '.join(map(str, outside))}",
        )
    on: dict[Hashable, list[PoolPermutation]] = defaultdict(list)
    for h, p in carried:
        on[h.key].append(p)
    group = layout.group_size
    groups: Counter = Counter()
    singles: Counter = Counter()
    for key, perms in on.items():
        kinds = {p.perm_type for p in perms}
        degrees = {p.degree for p in perms}
        if len(perms) == 1:
            singles[perms[0].perm_type] += 1
        elif len(perms) == group and len(kinds) == 1 and len(degrees) == group:
            groups[perms[0].perm_type] += 1
        else:
            carries = "one pair of one type and different degrees" if group == 2 else "one"
            raise CompositionError(
                "one group of permutations per hypothesis",
                f"shared hypothesis {key} carries {len(perms)} permutations "
                f"({', '.join(sorted(kinds))}); a hypothesis carries {carries} or a single "
                "random-type permutation",
            )
    if group == 1:  # a single permutation fills a named type first, then a random slot
        for t, n in part.typed.items():
            moved = min(n, singles[t])
            groups[t] += moved
            singles[t] -= moved
    for t in sorted(set(part.typed) | set(groups)):
        _expect(f"shared {_label(_Role(t, group))}", groups[t] * group, part.typed.get(t, 0))
    stray = sorted(t for t in singles if singles[t] and t not in layout.random_types)
    if stray:
        raise CompositionError(
            "random-type permutations",
            f"shared permutations of type {', '.join(stray)} fit no slot "
            f"(random types: {', '.join(layout.random_types)})",
        )
    _expect("shared random-type permutations", sum(singles.values()), part.random)
    return _Selection(chosen, [p for _, p in carried])


# --- the unique parts -----------------------------------------------------------------------


def _choose_unique(
    candidates: Sequence[PoolHypothesis],
    layout: Layout,
    count: int,
    rng: random.Random,
) -> list[_Selection]:
    """Unique parts for `count` questionnaires, dealt so their qualities match."""
    per_questionnaire = Counter(_roles(layout.unique, layout.group_size))
    demand = Counter({r: n * count for r, n in per_questionnaire.items()})
    types = layout.random_types
    caps = _check_supply(candidates, demand, types, f"the unique parts of {_questionnaires(count)}")
    reserved = _reserve(candidates, demand, caps, rng)
    slots = _deal(reserved, per_questionnaire, count, rng)
    taken = {h.key for members in reserved.values() for h in members}
    _one_reference_each(slots, [h for h in candidates if h.key not in taken], caps)
    out = []
    for q_slots in slots:
        carriers = [(role, h) for role, _, h in q_slots if role.perm_type is not None]
        permutations = _spanning_permutations(carriers, types, rng, spread_types=False)
        out.append(_Selection([h for _, _, h in q_slots], permutations))
    return out


def _deal(
    reserved: Mapping[_Role, list[PoolHypothesis]],
    per_questionnaire: Mapping[_Role, int],
    count: int,
    rng: random.Random,
) -> list[list[tuple[_Role, int, PoolHypothesis]]]:
    """Deal the reserved hypotheses out so every questionnaire's WMT scores add up alike.

    Each role's hypotheses, in score order, are cut into rounds of `count` (one each). Rounds
    are dealt widest score range first, each round's best hypothesis going to the questionnaire
    with the lowest total so far — the greedy rule for balanced partitions. A missing score
    counts as the pool's mean. Returns, per questionnaire, (role, round, hypothesis) slots.
    """
    scores = [h.quality for hs in reserved.values() for h in hs if h.quality is not None]
    typical = sum(scores) / len(scores) if scores else 0.5

    def score(h: PoolHypothesis) -> float:
        return typical if h.quality is None else h.quality

    rounds = []
    for role in sorted(per_questionnaire, key=_role_order):
        members = sorted(_quality_order(reserved[role], rng), key=score)
        for i in range(per_questionnaire[role]):
            rounds.append((role, i, members[i * count : (i + 1) * count]))
    rounds.sort(key=lambda r: score(r[2][0]) - score(r[2][-1]))  # widest (most negative) first
    totals = [0.0] * count
    slots: list[list[tuple[_Role, int, PoolHypothesis]]] = [[] for _ in range(count)]
    for role, i, members in rounds:
        ties = [rng.random() for _ in range(count)]
        order = sorted(range(count), key=lambda q: (totals[q], ties[q]))
        for q, h in zip(order, reversed(members), strict=True):
            slots[q].append((role, i, h))
            totals[q] += score(h)
    return slots


def _one_reference_each(
    slots: list[list[tuple[_Role, int, PoolHypothesis]]],
    spare: list[PoolHypothesis],
    caps: Mapping[Hashable, frozenset[_Role]],
) -> None:
    """Make sure no questionnaire holds two translations of one reference.

    A hypothesis whose reference its questionnaire already holds is swapped with one of the
    same role and quality round in another questionnaire, else replaced by the spare hypothesis
    (reserved for nothing) of the nearest WMT score, else swapped across rounds.
    """
    segments = [Counter(h.segment for _, _, h in q) for q in slots]

    def distance(a: PoolHypothesis, b: PoolHypothesis) -> float:
        return 1.0 if a.quality is None or b.quality is None else abs(a.quality - b.quality)

    for q, q_slots in enumerate(slots):
        for i, (role, rnd, h) in enumerate(q_slots):
            if segments[q][h.segment] < 2:
                continue
            swaps = [
                (other_rnd != rnd, r, j)
                for r, r_slots in enumerate(slots)
                if r != q
                for j, (other_role, other_rnd, other) in enumerate(r_slots)
                if other_role == role
                and segments[q][other.segment] == 0
                and segments[r][h.segment] == 0
            ]
            replacements = [
                (distance(s, h), k)
                for k, s in enumerate(spare)
                if role in caps[s.key] and segments[q][s.segment] == 0
            ]
            if swaps and (not min(swaps)[0] or not replacements):
                _, r, j = min(swaps)
                other_role, other_rnd, other = slots[r][j]
                slots[r][j] = (other_role, other_rnd, h)
                segments[r][other.segment] -= 1
                segments[r][h.segment] += 1
            elif replacements:
                _, k = min(replacements)
                other, spare[k] = spare[k], h
            else:
                raise CompositionError(
                    "one reference per questionnaire",
                    f"questionnaire {q + 1} holds two hypotheses of reference {h.segment!r}, "
                    "and no other hypothesis able to take the place of one is left (short by 1)",
                    1,
                )
            slots[q][i] = (role, rnd, other)
            segments[q][h.segment] -= 1
            segments[q][other.segment] += 1


# --- the whole ------------------------------------------------------------------------------


def _questionnaires(count: int) -> str:
    return "1 questionnaire" if count == 1 else f"{count} questionnaires"


def compose(
    pool: Iterable[PoolHypothesis],
    layout: Layout,
    count: int,
    seed: int,
    *,
    shared: Iterable[Hashable] | None = None,
    used: Iterable[Hashable] = (),
) -> list[list[Entry]]:
    """Build `count` questionnaires from the pool by the layout's rules.

    shared: keys of the shared items (hypotheses and permutations) to use as they are — the
        researcher's selection, or the shared items of a study being extended; None chooses
        them stratified by quality, source language, permutation type and degree.
    used: keys of hypotheses already in other questionnaires, never to be used again.
    Raises CompositionError naming the rule the pool cannot satisfy and the shortfall
    (CompositionErrors, one line per rule, when several fail at once).
    """
    if not isinstance(count, int) or count < 1:
        raise ValueError(f"the number of questionnaires must be a positive whole number: {count!r}")
    rng = random.Random(seed)
    pool = _ordered(pool)
    used = set(used)
    fresh = [h for h in pool if h.key not in used]
    references = len({h.segment for h in fresh})
    needed = layout.shared.hypotheses + layout.unique.hypotheses
    if references < needed:
        raise CompositionError(
            "one reference per questionnaire",
            f"each questionnaire needs {needed} hypotheses of different references; the pool "
            f"has {references} references (short by {needed - references})",
            needed - references,
        )
    if shared is None:
        demand = Counter(_roles(layout.shared, layout.group_size))
        for role, n in Counter(_roles(layout.unique, layout.group_size)).items():
            demand[role] += n * count
        context = _questionnaires(count)
        caps = _check_supply(fresh, demand, layout.random_types, context)
        reserved = _reserve(fresh, demand, caps, rng)
        common = _choose_shared(fresh, reserved, caps, layout, rng)
    else:
        common = _check_shared(pool, layout, shared)
    taken = {h.segment for h in common.hypotheses}
    rest = [h for h in fresh if h.segment not in taken]
    questionnaires = []
    for own in _choose_unique(rest, layout, count, rng):
        entries = [Entry(k, True) for k in common.item_keys()]
        entries += [Entry(k, False) for k in own.item_keys()]
        rng.shuffle(entries)
        questionnaires.append(entries)
    return questionnaires
