"""Time importing WMT text releases and their human judgments into a fresh SQLite database.

Usage: .venv/bin/python bench/import_bench.py [--data DIR] [--releases DIR]
           [--data-wmt22 DIR] [--data-wmt23 DIR] [--data-wmt24 DIR]

WMT21: the into-English data bundled in fixtures/wmt21-toen.tar.xz, or --data (same layout:
txt/, documents/, humaneval/). WMT22-24: checkouts of the public GitHub repositories
wmt-conference/wmt22-news-systems, wmt23-news-systems and wmt24-news-systems, each given with
--data-wmt2X, or found under --releases DIR by those names. A release not given is named
with where to get it, and skipped. Each release imports its texts (the release's XML gives
document ids to the plain-text test sets where it is present), then every human-judgment
file it holds, file by file; refusals are printed with their reason.
Target (issue 15): everything under 2 minutes on 2 cores.
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RELEASES = {
    2022: "wmt22-news-systems",
    2023: "wmt23-news-systems",
    2024: "wmt24-news-systems",
}
# Human-judgment files of each release, by glob below its root. Large files the repositories
# keep as pointers (WMT23's DA+SQM scores, WMT24's MQM and ESA waves 0-1) are absent there.
JUDGMENTS = {
    2022: [
        "humaneval/DA/newstest2022-toen/ad-seg-scores-*.csv",
        "humaneval/DA/newstest2022-toen/ad-*-good-stnd.csv",
        "humaneval/DA+SQM/scores/WMT22.Appraise.*.csv",
        "humaneval/DA+SQM/calibration-HITs/WMT22.Appraise.calibrationHITs.????????.csv",
    ],
    2023: ["humaneval/DA+SQM/WMT23.scores_all.csv"],
    2024: ["humeval/esa_generalMT2024_wave*.csv", "humeval/mqm_generalMT2024_*.tsv"],
}


class Clock:
    def __init__(self):
        self.total = 0.0

    def __call__(self, label, call, *args, **kwargs):
        start = time.perf_counter()
        try:
            result = call(*args, **kwargs)
        except ValueError as e:  # an InputError: the import refused the file
            result = e
        seconds = time.perf_counter() - start
        self.total += seconds
        print(f"  {label:<58} {seconds:6.1f} s")
        if isinstance(result, ValueError):
            print(f"    refused: {str(result)[:300]}")
            return None
        return result


def checks(report):
    """The alignment-check lines of an import report."""
    return [line for line in report.lines() if "chrF within" in line or "items name" in line]


def import_release(year, root, clock, tmp):
    from survey.models import Segment, Triple
    from survey.sources.documents import import_documents
    from survey.sources.human_judgments import import_judgments
    from survey.sources.testsets import import_wmt
    from wojdb.core import formats

    before = Triple.objects.count()
    clock(f"import_wmt {root.name}/txt", import_wmt, root / "txt")
    testsets = set(Segment.objects.filter(year=year).values_list("testset", flat=True))
    added = Triple.objects.count() - before
    print(f"    triples: {added:,}; test sets: {', '.join(sorted(testsets))}")
    xml = [p for p in sorted((root / "xml").glob("*.xml")) if p.stat().st_size > 1000]
    testset = next(iter(testsets)) if len(testsets) == 1 else None
    if xml and testset:
        # The XML's document ids, given to the plain-text test set of the same sentences.
        folder = tmp / f"xml{year}"
        folder.mkdir()
        for p in xml:
            (folder / p.name).symlink_to(p)
        docids = []
        read = clock("read the release's XML", formats.find, folder, formats.Selection.of())
        for ts in read.test_sets if read else []:
            path = tmp / f"{testset}.{ts.lp}.docids"
            path.write_text("".join(d + "\n" for d in ts.documents))
            docids.append(path)
        for path in docids:
            clock(f"import_documents {path.name}", import_documents, [path], testset=testset)
    found = [p for pattern in JUDGMENTS[year] for p in sorted(root.glob(pattern))]
    absent = [pattern for pattern in JUDGMENTS[year] if not list(root.glob(pattern))]
    if absent:
        print(f"    not in the repository (large-file pointers): {', '.join(absent)}")
    for path in found:
        if path.stat().st_size < 1000:
            print(f"    {path.name}: a large-file pointer, skipped")
            continue
        # Several releases hold a pair (de-en): the judgments are of this release's test set.
        report = clock(f"import_judgments {path.name}", import_judgments, [path], testset=testset)
        if report:
            created = ", ".join(f"{k} {v:,}" for k, v in report.created.items())
            print(f"    {created}")
            for line in checks(report):
                print(f"    {line[:200]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="WMT21 into English (default: bundled)")
    parser.add_argument("--releases", type=Path, help="folder holding wmt2X-news-systems/")
    for year in RELEASES:
        parser.add_argument(f"--data-wmt{year % 100}", type=Path, metavar="DIR")
    args = parser.parse_args()
    roots = {}
    for year, name in RELEASES.items():
        root = getattr(args, f"data_wmt{year % 100}") or (args.releases and args.releases / name)
        if root and (root / "txt").is_dir():
            roots[year] = root
        else:
            print(
                f"WMT{year % 100}: not given, skipped. Get it with `git clone "
                f"https://github.com/wmt-conference/{name}` and pass --data-wmt{year % 100} "
                f"DIR or --releases PARENT"
            )
    with tempfile.TemporaryDirectory() as var:
        os.environ["WOJDB_HOME"] = var
        os.environ["DATABASE_URL"] = f"sqlite:///{var}/bench.db"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wojdb.settings")
        import django

        django.setup()
        from django.core.management import call_command

        from survey.sources.documents import import_documents
        from survey.sources.human_judgments import import_judgments
        from survey.sources.testsets import import_wmt
        from wojdb.bundled import wmt21_toen

        call_command("migrate", verbosity=0)
        clock = Clock()
        data = args.data or wmt21_toen()
        print("WMT21 into English")
        clock("import_wmt (121,842 triples)", import_wmt, data / "txt")
        docids = sorted(data.glob("documents/*.docids"))
        clock(f"import_documents ({len(docids)} pairs)", import_documents, docids)
        judgments = sorted((data / "humaneval").glob("*.csv"))
        report = clock(f"import_judgments ({len(judgments)} files)", import_judgments, judgments)
        for line in checks(report) if report else []:
            print(f"    {line[:200]}")
        totals = {"WMT21": clock.total}
        for year, root in roots.items():
            print(f"WMT{year % 100}: {root}")
            start = clock.total
            tmp = Path(var) / f"wmt{year}"
            tmp.mkdir()
            import_release(year, root, clock, tmp)
            totals[f"WMT{year % 100}"] = clock.total - start
        again = time.perf_counter()
        import_wmt(data / "txt")
        again = time.perf_counter() - again
    print("total per release: " + ", ".join(f"{k} {v:.1f} s" for k, v in totals.items()))
    print(f"total: {clock.total:.1f} s (target < 120 s)")
    print(f"re-import of the WMT21 texts (no changes): {again:.1f} s")


if __name__ == "__main__":
    main()
