"""Which test-set sentence a WMT direct-assessment segment id (SID) means, and a check by content.

WMT's DA files number segments in the order the HITs were built from, not in the order of the
released text files: SID k is the k-th sentence after the test set's documents are sorted by
document id (plain string order; test-suite documents `tsuite-*` left out), sentences kept in
their order within each document. Verified on WMT21 de-en, ru-en, is-en, ja-en and WMT22
cs-en, de-en, ja-en, ru-en (docs/data-and-formats.md, "Which sentence a WMT segment id
means").

Whatever mapping is used, `check_alignment` tests it by content: segment z-scores must
correlate with a string similarity (sentence chrF) of hypothesis and reference, and hypotheses
identical to their reference must score well above the mean. A wrong mapping gives r near 0
and identical hypotheses an average score. Both z and chrF are centred within each system
first: a system's overall quality raises its scores and its chrF on every line, so it
correlates the two under any mapping (WMT22 ja-en: r = 0.21 with SIDs shifted by one; 0.06
within systems).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

TEST_SUITE_PREFIX = "tsuite-"

# Kinds of judgment, whose scores follow chrF more or less closely: a 0-100 assessment of the
# whole output, or a count of marked errors (MQM, ESA), which leaves most segments at or near
# zero and so correlates less with any string similarity.
DIRECT_ASSESSMENT, ERROR_ANNOTATION = "direct assessment", "error annotation"

# Thresholds of the check. Measured (docs/data-and-formats.md, bench/tables_bench.py), r within
# systems: right mappings of WMT21-22 DA give r = 0.21-0.35, Google's TED MQM 0.13 (zh-en) and
# 0.15 (en-de); the same scores shifted by one to five lines give at most 0.08 (DA) and 0.07
# (MQM).
# Right mappings give a gap (mean z of identical hypotheses minus mean z of all) of +0.5 to
# +1.2, wrong ones at most +0.27.
MIN_SEGMENTS = 50  # fewer scored sentences than this cannot be checked
MIN_R = {DIRECT_ASSESSMENT: 0.15, ERROR_ANNOTATION: 0.09}  # Pearson r of z with sentence chrF
MIN_IDENTICAL = 30  # identical hypotheses needed to use the gap (its standard error ≈ 0.15)
MIN_IDENTICAL_GAP = 0.4  # mean z of identical hypotheses minus mean z of all


def sid_lines(documents: Sequence[str]) -> list[int]:
    """1-based line of each SID (index SID − 1), from the document id of each line."""
    lines = [n for n, doc in enumerate(documents, start=1) if not doc.startswith(TEST_SUITE_PREFIX)]
    return sorted(lines, key=lambda n: documents[n - 1])  # stable: order within a document kept


@dataclass(frozen=True)
class AlignmentCheck:
    kind: str
    n: int
    r: float | None  # within systems
    mean_z: float | None
    identical_n: int
    identical_mean_z: float | None

    @property
    def gap(self) -> float | None:
        if self.identical_mean_z is None or self.mean_z is None:
            return None
        return self.identical_mean_z - self.mean_z

    @property
    def min_r(self) -> float:
        return MIN_R[self.kind]

    @property
    def problems(self) -> list[str]:
        """Why the check fails; empty when it passes."""
        if self.n < MIN_SEGMENTS:
            return [f"only {self.n} scored sentences (the check needs {MIN_SEGMENTS})"]
        out = []
        if self.r is None or self.r < self.min_r:
            out.append(f"r with chrF below {self.min_r} ({self.kind})")
        if self.identical_n >= MIN_IDENTICAL and self.gap < MIN_IDENTICAL_GAP:
            out.append(f"identical hypotheses score less than {MIN_IDENTICAL_GAP} above the mean")
        return out

    @property
    def passed(self) -> bool:
        return not self.problems

    def describe(self) -> str:
        def num(x, fmt):
            return "n/a" if x is None else format(x, fmt)

        text = (
            f"z vs sentence chrF within systems r = {num(self.r, '.3f')} over {self.n:,} "
            f"sentences; {self.identical_n:,} hypotheses identical to the reference: mean z "
            f"{num(self.identical_mean_z, '+.2f')} (all: {num(self.mean_z, '+.2f')})"
        )
        if self.identical_n < MIN_IDENTICAL:
            text += f" — too few to use (needs {MIN_IDENTICAL})"
        return text


def within_r(values: np.ndarray, similarity: np.ndarray, groups: Sequence) -> float | None:
    """Pearson r of the two after centring each within its group; None where either is
    constant."""
    import numpy as np

    codes = np.unique(np.asarray(groups, dtype=object), return_inverse=True)[1].ravel()
    count = np.bincount(codes)

    def centred(x):
        return x - (np.bincount(codes, weights=x) / count)[codes]

    a, b = centred(values), centred(similarity)
    if len(a) < 2 or not (a.std() > 1e-12 and b.std() > 1e-12):
        return None
    return float(np.corrcoef(a, b)[0, 1])


def check_alignment(
    scored: Sequence[tuple[float, str, str, str]],
    kind: str = DIRECT_ASSESSMENT,
    cache: dict | None = None,
) -> AlignmentCheck:
    """(z, system, hypothesis, reference) of each aligned segment score → the check's figures.

    `cache` keeps sentence chrF by (hypothesis, reference) between calls.
    """
    # numpy, and numba for chrF, load here: the readers that name these kinds load at start-up.
    import numpy as np

    from wojdb.core.metrics.chrf import sentence_chrf

    if kind not in MIN_R:
        raise ValueError(f"unknown kind of judgment {kind!r}")
    if not scored:
        return AlignmentCheck(kind, 0, None, None, 0, None)
    cache = {} if cache is None else cache
    missing = list({(h, r) for _, _, h, r in scored if (h, r) not in cache})
    cache.update(zip(missing, sentence_chrf(missing), strict=True))
    z = np.array([s[0] for s in scored], dtype=float)
    sim = np.array([cache[h, r] for _, _, h, r in scored])
    identical = [zi for zi, _, h, ref in scored if h.strip() == ref.strip()]
    return AlignmentCheck(
        kind=kind,
        n=len(scored),
        r=within_r(z, sim, [s[1] for s in scored]),
        mean_z=float(z.mean()),
        identical_n=len(identical),
        identical_mean_z=float(np.mean(identical)) if identical else None,
    )
