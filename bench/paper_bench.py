"""Print questionnaires, fill them with a simulated pen, scan and read them back.

Usage: .venv/bin/python bench/paper_bench.py [--copies 20] [--seed 1] [--dpi 200 300]
Targets (issue 23): 0 answers wrong and not flagged; at most 1% flagged; at least 5 pages per
second. Each copy is a real-length questionnaire (50 WMT21 pairs from fixtures/, the about-you
and consent boxes, the practice pair), rasterised at each resolution, marked by
wojdb.core.paper.pen's model (ticks and crosses of varying size and ink, 10% in pencil and 1% so
faint that they can only be flagged, 5% corrections, 5% stray marks, 4% blank) and scanned by
its scanner model (rotation within ±3°, scale ±3%, shift ±3 mm, noise, JPEG at quality 75, 10%
upside down). Reading time covers code, registration and boxes for every page, in one process.
"""

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wojdb.settings")

import django  # noqa: E402

django.setup()

from survey.paper.print_runs import about_questions  # noqa: E402
from wojdb.core.language.codes import LANGUAGE_NAMES  # noqa: E402
from wojdb.core.paper import pen, printing, scanning, thresholds  # noqa: E402
from wojdb.core.texts import en  # noqa: E402

TXT = ROOT / "fixtures" / "wmt21-slice" / "txt"


def wmt_pairs(rng: random.Random, count: int) -> list[printing.Pair]:
    """`count` (hypothesis, reference) pairs drawn from the WMT21 slice."""
    pool = []
    for ref_file in sorted(TXT.glob("newstest2021.*-en.ref.A.en")):
        src = ref_file.name.split(".")[1].split("-")[0]
        name = LANGUAGE_NAMES.get(src, src)
        refs = ref_file.read_text(encoding="utf-8").splitlines()
        for hyp_file in sorted(TXT.glob(f"newstest2021.{src}-en.hyp.*.en")):
            hyps = hyp_file.read_text(encoding="utf-8").splitlines()
            pool += [(name, h, r) for h, r in zip(hyps, refs, strict=True) if len(r) < 300]
    return [printing.Pair(n, *rng.choice(pool)) for n in range(1, count + 1)]


def questionnaire(rng: random.Random, number: int) -> printing.Questionnaire:
    return printing.Questionnaire(
        study="bench",
        number=number,
        title="Word Ordering in Machine Translation",
        researcher="",
        paper="a4",
        scales=(
            printing.Scale(
                "holistic",
                "How difficult would it be to grasp the meaning of the "
                "second sentence if you were only shown the first?",
                "Very difficult",
                "Very easy",
            ),
            printing.Scale(
                "word_order",
                "How much does the ordering of the words on its own "
                "cloud the meaning of the first sentence?",
                "Enormously",
                "Not at all",
            ),
        ),
        about=about_questions("English"),
        consent_statements=en.CONSENT_STATEMENTS,
        consent_closing=en.CONSENT_CLOSING,
        practice=printing.Pair(
            0,
            "French",
            "The man saw the dog for doctor, as ill over day.",
            "The man went to see the vet about his dog, which had been ill for days.",
        ),
        practice_notes=(en.SAMPLE_HOLISTIC_NOTE, en.SAMPLE_ORDER_NOTE),
        practice_lead="This example shows how the questions work.",
        pairs=wmt_pairs(rng, 50),
    )


def run(copies: int, seed: int, dpis: list[int]) -> None:
    rng = random.Random(f"paper_bench:{seed}")
    with tempfile.TemporaryDirectory() as tmp:
        printed = []
        start = time.perf_counter()
        for n in range(copies):
            doc = questionnaire(rng, n + 1)
            layout, _ = printing.typeset(doc, f"BENCH{n:03d}", Path(tmp) / f"{n}.pdf")
            printed.append((Path(tmp) / f"{n}.pdf", layout))
        print(
            f"printed {copies} copies of {printed[0][1].pages} pages in "
            f"{time.perf_counter() - start:.1f} s"
        )
        for dpi in dpis:
            correct = flagged = faint_flagged = wrong = pages = 0
            seconds = 0.0
            checked_cov, filled_cov = [], []
            for path, layout in printed:
                rasters = [grey for _, grey in scanning.load_pages(path, dpi)]
                faint = set()
                truth = pen.mark(rasters, layout, dpi, rng, faint_marks=faint)
                scans = [pen.scan(page, rng) for page in rasters]
                start = time.perf_counter()
                readings = []
                for scan in scans:
                    readings += scanning.read_page(scan, lambda code, lay=layout: lay).boxes
                seconds += time.perf_counter() - start
                pages += len(scans)
                for name, decision in scanning.decide(readings).items():
                    if decision.status == "flagged":
                        flagged += 1
                        faint_flagged += name in faint
                    elif decision.value == truth[name]:
                        correct += 1
                    else:
                        wrong += 1
                checked_cov += [b.coverage for b in readings if b.value == truth[b.field]]
                filled_cov += [b.coverage for b in readings if b.state == thresholds.FILLED]
            total = correct + flagged + wrong
            checked_cov.sort()
            print(
                f"{dpi} dpi: {total} answers on {pages} pages: {correct} read correctly, "
                f"{flagged} flagged ({100 * flagged / total:.2f}%; {faint_flagged} of them "
                f"marked faintly on purpose), {wrong} wrong and not flagged; "
                f"{pages / seconds:.1f} pages/s"
            )
            print(
                f"  inked share of the marked boxes: min {checked_cov[0]:.3f}, "
                f"99th percentile {checked_cov[int(0.99 * len(checked_cov))]:.3f}, max "
                f"{checked_cov[-1]:.3f}; of filled boxes: min "
                f"{min(filled_cov, default=float('nan')):.3f}"
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dpi", type=int, nargs="+", default=[200, 300])
    args = parser.parse_args()
    if args.copies < 1:
        parser.error("--copies must be at least 1")
    run(args.copies, args.seed, args.dpi)


if __name__ == "__main__":
    main()
