"""Which test-set sentence a WMT direct-assessment segment id (SID) means, and a check by content.

WMT's DA files number segments in the order the HITs were built from, not in the order of the
released text files: SID k is the k-th sentence after the test set's documents are sorted by
document id (plain string order; test-suite documents `tsuite-*` left out), sentences kept in
their order within each document. Verified on WMT21 de-en, ru-en, is-en, ja-en and WMT22
cs-en, de-en, ja-en, ru-en (README, "Human judgments").

Whatever mapping is used, `check_alignment` tests it by content: segment z-scores must
correlate with a string similarity (sentence chrF) of hypothesis and reference, and hypotheses
identical to their reference must score well above the mean. A wrong mapping gives r near 0
and identical hypotheses an average score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sacrebleu.metrics import CHRF

TEST_SUITE_PREFIX = "tsuite-"

# Thresholds of the check. Measured (README): right mappings give r = 0.21-0.46 and a gap
# (mean z of identical hypotheses minus mean z of all) of +0.66 to +1.21; line numbers and
# mappings shifted by one give r = -0.00-0.23 and gaps of at most +0.27.
MIN_SEGMENTS = 50  # fewer scored sentences than this cannot be checked
MIN_R = 0.15  # Pearson r of z with sentence chrF
MIN_IDENTICAL = 30  # identical hypotheses needed to use the gap (its standard error ≈ 0.15)
MIN_IDENTICAL_GAP = 0.4  # mean z of identical hypotheses minus mean z of all


def sid_lines(documents: Sequence[str]) -> list[int]:
    """1-based line of each SID (index SID − 1), from the document id of each line."""
    lines = [n for n, doc in enumerate(documents, start=1) if not doc.startswith(TEST_SUITE_PREFIX)]
    return sorted(lines, key=lambda n: documents[n - 1])  # stable: order within a document kept


@dataclass(frozen=True)
class AlignmentCheck:
    n: int
    r: float | None
    mean_z: float | None
    identical_n: int
    identical_mean_z: float | None

    @property
    def gap(self) -> float | None:
        if self.identical_mean_z is None or self.mean_z is None:
            return None
        return self.identical_mean_z - self.mean_z

    @property
    def problems(self) -> list[str]:
        """Why the check fails; empty when it passes."""
        if self.n < MIN_SEGMENTS:
            return [f"only {self.n} scored sentences (the check needs {MIN_SEGMENTS})"]
        out = []
        if self.r is None or self.r < MIN_R:
            out.append(f"r with chrF below {MIN_R}")
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
            f"z vs sentence chrF r = {num(self.r, '.3f')} over {self.n:,} sentences; "
            f"{self.identical_n:,} hypotheses identical to the reference: mean z "
            f"{num(self.identical_mean_z, '+.2f')} (all: {num(self.mean_z, '+.2f')})"
        )
        if self.identical_n < MIN_IDENTICAL:
            text += f" — too few to use (needs {MIN_IDENTICAL})"
        return text


def check_alignment(
    scored: Sequence[tuple[float, str, str]], cache: dict | None = None
) -> AlignmentCheck:
    """(z, hypothesis, reference) of each aligned segment score → the check's figures.

    `cache` keeps sentence chrF by (hypothesis, reference) between calls.
    """
    if not scored:
        return AlignmentCheck(0, None, None, 0, None)
    chrf, cache = CHRF(), {} if cache is None else cache
    for _, h, r in scored:
        if (h, r) not in cache:
            cache[h, r] = chrf.sentence_score(h, [r]).score
    z = np.array([s[0] for s in scored], dtype=float)
    sim = np.array([cache[h, r] for _, h, r in scored])
    r = float(np.corrcoef(z, sim)[0, 1]) if len(z) > 1 and z.std() and sim.std() else None
    identical = [zi for zi, h, ref in scored if h.strip() == ref.strip()]
    return AlignmentCheck(
        n=len(scored),
        r=r,
        mean_z=float(z.mean()),
        identical_n=len(identical),
        identical_mean_z=float(np.mean(identical)) if identical else None,
    )
