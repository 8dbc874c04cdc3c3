"""WMT22's into-English DA and Google's TED MQM through WOJ-DB: the published tables, the
alignment check against shifted alignments, and import times.

Usage: .venv/bin/python bench/tables_bench.py [--wmt22 DIR] [--mqm DIR] [--wmt24 DIR]
       [--wmt20 DIR]

--wmt22: wmt-conference/wmt22-news-systems, --mqm: google/wmt-mqm-human-evaluation, each a
checkout or a bare git directory (a mirror; its files are read with `git show`). Without
--mqm, the TED files bundled in fixtures/ted-mqm.tar.xz (the same files) are read; without
--wmt22, the WMT22 part is skipped, saying where to get the release. Into a fresh
SQLite database it imports WMT22's texts of cs, de, ja, ru, uk and zh → en, the document ids of
the XML files the release holds (matched to a test set by their source sentences), the twelve
DA files of humaneval/DA/newstest2022-toen (segment scores and per-rater judgments, one
import_judgments), then compares `system_scores --source da` with the release's
ad-sys-ranking-LP-z-names.csv and clusters.csv: order, z (3 decimals), raw (1 decimal),
segments, judgments and clusters. For TED en-de and zh-en it rebuilds the test set each error
file annotates from the file's own texts, imports the error file and compares
`system_scores --source mqm` with the mean of the published avg_seg_scores per system. The
alignment check is run on every pair's true alignment and on the same scores shifted by one
to three lines either way.
WMT24 (--wmt24: wmt-conference/wmt24-news-systems; without it, the bundled waves 2 and 3 on a test
set of the release's documents with placeholder texts, `wojdb.bundled.wmt24_esa_texts`): imports
the texts of the pairs the waves rate, then every ESA wave the release holds whole, and compares
`system_scores --source esa` (protocol wmt24, from the test set's year) with the organisers'
figures (tests/core/data/wmt24_esa_organisers.csv): order, score (6 digits), rank ranges,
clusters.
WMT20 (--wmt20: WMT-Metrics-task/wmt20-metrics; without it, the bundled de-en and en-de slices):
every `manual-evaluation/DA/ad-seg-scores-LP.csv` imported into placeholder test sets, each
pair's system table compared with the release's `ad-sys-scores-LP.csv` (order, z and raw to
1e-12, segments, judgments); Google's newstest2020 MQM segment scores (from --mqm, else the
bundled slices) compared with the README's MQM table (2 places, order); WMT23's published
results (bundled, whole) imported for its eight pairs and written in the published order.
Targets: the twelve DA files import in ≤ 20 s and one ~8,000-row MQM file in ≤ 5 s; the WMT24
ESA waves present in ≤ 10 s CPU and their system_scores in ≤ 5 s CPU, on a quiet 2-core
machine; every table equal to the release's, or the organisers'.
"""

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PAIRS = ("cs", "de", "ja", "ru", "uk", "zh")
DA = "humaneval/DA/newstest2022-toen"
TESTSET = "generaltest2022"
MQM_FILES = {"en-de": "ted/ende/mqm_ted_ende", "zh-en": "ted/zhen/mqm_ted_zhen"}
SHIFTS = (-3, -2, -1, 1, 2, 3)


class Release:
    """A release's files from a checkout, or from a bare git directory into `into`."""

    def __init__(self, root: Path, into: Path):
        self.root, self.into = root, into
        self.git = not (root / "README.md").exists() and (root / "HEAD").exists()
        if self.git:
            listing = self._git("ls-tree", "-r", "--name-only", "HEAD").decode()
            self.names = set(listing.split("\n")) - {""}

    def _git(self, *args) -> bytes:
        return subprocess.run(
            ["git", f"--git-dir={self.root}", *args], capture_output=True, check=True
        ).stdout

    def get(self, name: str) -> Path | None:
        """The file, or None where the release lacks it (or keeps only a large-file pointer)."""
        if not self.git:
            path = self.root / name
            return path if path.is_file() and path.stat().st_size > 1000 else None
        path = self.into / name
        if not path.exists():
            if name not in self.names:
                return None
            try:
                data = self._git("show", f"HEAD:{name}")
            except subprocess.CalledProcessError:  # a blob the mirror does not hold
                return None
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return path

    def glob(self, folder: str, pattern: str) -> list[Path]:
        if self.git:
            names = sorted(n for n in self.names if n.startswith(folder + "/"))
            return [p for n in names if Path(n).match(pattern) and (p := self.get(n))]
        return sorted(p for p in (self.root / folder).glob(pattern) if p.stat().st_size > 1000)


def timed(label: str, call, *args, **kwargs):
    """The call's result and its (wall, CPU) seconds, printed (the machine may be shared: CPU
    time is what a quiet machine would take, the database's waits aside)."""
    start, cpu = time.perf_counter(), time.process_time()
    result = call(*args, **kwargs)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"  {label:<56} {seconds:6.1f} s wall, {cpu:5.1f} s CPU")
    return result, (seconds, cpu)


def documents_by_source(xml_ts, txt_ts) -> list[str] | None:
    """The document of each line of `txt_ts`, from an XML test set of the same source sentences
    (in the same order, or another); None unless every sentence is there. A sentence found in
    several documents takes that of the line before or after it, where that is one of them."""
    if xml_ts.sources == txt_ts.sources:
        return list(xml_ts.documents)
    docs = defaultdict(set)
    for source, document in zip(xml_ts.sources, xml_ts.documents, strict=True):
        docs[source].add(document)
    if not all(docs.get(source) for source in txt_ts.sources):
        return None
    out = [min(docs[s]) if len(docs[s]) == 1 else None for s in txt_ts.sources]
    for i, source in enumerate(txt_ts.sources):
        if out[i] is None:
            near = [out[j] for j in (i - 1, i + 1) if 0 <= j < len(out) and out[j]]
            out[i] = next((d for d in near if d in docs[source]), min(docs[source]))
    return out


def check_shifts(label, scored_lines, hypotheses, references, kind):
    """The check of (z, system, line) scores at their lines and shifted by SHIFTS lines."""
    from wojdb.core.formats.segment_ids import check_alignment

    def at(shift):
        return check_alignment(
            [
                (z, system, hypotheses[system][line + shift - 1], references[line + shift - 1])
                for z, system, line in scored_lines
                if 1 <= line + shift <= len(references)
            ],
            kind,
        )

    true = at(0)
    shifted = {k: at(k) for k in SHIFTS}
    verdict = "ok" if true.passed and not any(c.passed for c in shifted.values()) else "WRONG"
    print(
        f"  {label:<24} n={true.n:>6,}  true r={true.r:.3f} {'pass' if true.passed else 'FAIL'};"
        " shifted "
        + " ".join(f"{k:+d}:{c.r:.3f}{'' if not c.passed else ' PASS'}" for k, c in shifted.items())
        + f"  (min r {true.min_r}) {verdict}"
    )
    return verdict == "ok"


def wmt22(release: Release, tmp: Path) -> bool:
    from django.core.management import call_command

    from survey.sources.documents import import_documents
    from survey.sources.human_judgments import import_judgments
    from survey.sources.testsets import import_wmt
    from wojdb.core import formats
    from wojdb.core.formats import segment_ids, wmt
    from wojdb.core.formats.segment_ids import DIRECT_ASSESSMENT

    lps = [f"{p}-en" for p in PAIRS]
    for lp in lps:
        for folder in ("txt/sources", "txt/references", "txt/system-outputs"):
            release.glob(folder, f"{TESTSET}.{lp}.*")
    txt = release.get(f"txt/sources/{TESTSET}.cs-en.src.cs").parents[1]
    texts = formats.find(txt, formats.Selection.of(lps=lps))
    timed(f"import_wmt {len(lps)} pairs", import_wmt, txt, lps=lps)
    by_lp = {ts.lp: ts for ts in texts.test_sets}
    xml_dir = tmp / "xml"
    xml_dir.mkdir()
    for path in release.glob("xml", "*.all.xml"):
        (xml_dir / path.name).symlink_to(path)
    documents = {}
    for xml_ts in formats.find(xml_dir, formats.Selection.of()).test_sets:
        for lp, ts in by_lp.items():
            if lp not in documents and (docs := documents_by_source(xml_ts, ts)):
                documents[lp] = docs
                path = tmp / f"{TESTSET}.{lp}.docids"
                path.write_text("".join(d + "\n" for d in docs))
                import_documents([path], testset=TESTSET)
                print(f"    {lp}: document ids from {xml_ts.lp}'s XML (same sources)")
    print(f"    no document ids in the release for {', '.join(sorted(set(lps) - set(documents)))}")
    files = [release.get(f"{DA}/ad-seg-scores-{lp}.csv") for lp in lps]
    files += [release.get(f"{DA}/ad-{p}en-good-stnd.csv") for p in PAIRS]
    report, seconds = timed("import_judgments: the 12 DA files", import_judgments, files,
                            testset=TESTSET)  # fmt: skip
    print(f"    {', '.join(f'{k} {v:,}' for k, v in report.created.items())}")
    out = tmp / "da.csv"
    call_command("system_scores", "--out", str(out), "--lp", *lps, verbosity=0)
    equal = compare_da(release, out, {lp: set(by_lp[lp].hypotheses) for lp in lps})

    print("\nThe alignment check, true and shifted (r within systems)")
    ok = True
    for lp in sorted(documents):
        ts = by_lp[lp]
        lines = segment_ids.sid_lines(documents[lp])
        scored = []
        for r in wmt.read_segment_scores(release.get(f"{DA}/ad-seg-scores-{lp}.csv")):
            name = wmt.imported_system(r.system, ts.hypotheses)
            if name in ts.hypotheses:
                scored.append((r.z, name, lines[r.segment_id - 1]))
        ok &= check_shifts(f"WMT22 {lp} DA", scored, ts.hypotheses, ts.references,
                           DIRECT_ASSESSMENT)  # fmt: skip
    return equal and ok, seconds


def compare_da(release: Release, out: Path, imported: dict[str, set[str]]) -> bool:
    """The system table written to `out` against the release's, pair by pair; `imported`
    holds the systems imported for each pair."""
    import pandas as pd

    from wojdb.core.formats import wmt

    ours = pd.read_csv(out)
    clusters = pd.read_csv(release.get(f"{DA}/clusters.csv"), sep=" ")
    print("\nsystem_scores --source da against the release (order, z 3 dp, raw 1 dp, n, "
          "judgments, clusters)")  # fmt: skip
    all_equal = True
    for lp, names in imported.items():
        published = pd.read_csv(
            release.get(f"{DA}/ad-sys-ranking-{lp}-z-names.csv"), sep=" ", header=None,
            usecols=range(5), names=["raw", "z", "n", "judgments", "system"],
        )  # fmt: skip
        cl = clusters[clusters["SRC"] == lp[:2]]
        published["cluster"] = pd.factorize(cl["CLUSTER_START"])[0] + 1
        assert list(cl["SYSTEM"]) == list(published["system"])
        mine = ours[ours["lp"] == lp].reset_index(drop=True)
        checks = {
            # Systems named as imported (JDExploreAcademy.6 is JDExploreAcademy).
            "order": list(mine["system"])
            == [wmt.imported_system(name, names) for name in published["system"]],
            "z": (mine["z"].round(3) == published["z"]).all(),
            "raw": (mine["raw"].round(1) == published["raw"]).all(),
            "n": (mine["n"] == published["n"]).all(),
            "judgments": (mine["judgments"] == published["judgments"]).all(),
            "clusters": list(mine["cluster"]) == list(published["cluster"]),
        }
        equal = all(checks.values())
        all_equal &= equal
        print(
            f"  {lp}: {len(mine):>2} systems  "
            + " ".join(f"{k} {'=' if v else 'DIFFERS'}" for k, v in checks.items())
            + f"  → {'equal' if equal else 'NOT EQUAL'}"
        )
    return all_equal


def rebuild_ted(path: Path, root: Path, lp: str):
    """The test set an error file annotates, from its own texts: sources, the `ref` system's
    target as reference A, every other system's target as its output, the documents' ids.
    Returns the folder and, per system and line, (hypotheses, references, line of seg_id)."""
    from wojdb.core.formats import mqm

    rows = [r.split("\t") for r in path.read_text(encoding="utf-8").splitlines()[1:]]
    plain = {}
    for r in rows:
        plain[r[0], int(r[3])] = (r[1], *(mqm.SPAN.sub(r"\1", t).replace("<v>", "")
                                          for t in (r[5], r[6])))  # fmt: skip
    segments = sorted({seg for _, seg in plain})
    systems = sorted({system for system, _ in plain})
    txt = root / f"ted-{lp}"
    txt.mkdir()
    src, tgt = lp.split("-")

    def write(name, lines):
        (txt / f"tedtalks2021.{lp}.{name}").write_text("".join(t + "\n" for t in lines))

    write(f"src.{src}", [plain["ref", s][1] for s in segments])
    references = [plain["ref", s][2] for s in segments]
    write(f"ref.A.{tgt}", references)
    hypotheses = {}
    for system in systems:
        if system != "ref":
            hypotheses[system] = [plain[system, s][2] for s in segments]
            write(f"hyp.{system}.{tgt}", hypotheses[system])
    write("docids", [plain["ref", s][0] for s in segments])
    return txt, hypotheses, references, {s: n for n, s in enumerate(segments, start=1)}


def ted_mqm(release: Release, tmp: Path) -> tuple[bool, dict]:
    import pandas as pd
    from django.core.management import call_command

    from survey.sources.human_judgments import import_judgments
    from survey.sources.testsets import import_wmt
    from wojdb.core.formats import mqm
    from wojdb.core.formats.judgments import read_mqm
    from wojdb.core.formats.segment_ids import ERROR_ANNOTATION
    from wojdb.core.stats.system import RATER, RAW, standardise

    all_ok, seconds = True, {}
    for lp, stem in MQM_FILES.items():
        path = release.get(f"{stem}.tsv")
        rows = len(path.read_text(encoding="utf-8").splitlines()) - 1
        txt, hypotheses, references, line_of = rebuild_ted(path, tmp, lp)
        import_wmt(txt)
        report, seconds[lp] = timed(f"import_judgments {path.name} ({rows:,} rows)",
                                    import_judgments, [path], testset="tedtalks2021")  # fmt: skip
        for note in report.lines():
            if "chrF" in note or "dropped" in note:
                print(f"    {note[:160]}")
        out = tmp / f"mqm-{lp}.csv"
        call_command("system_scores", "--out", str(out), "--source", "mqm", "--lp", lp,
                     "--testset", "tedtalks2021", verbosity=0)  # fmt: skip
        ours = pd.read_csv(out).set_index("system")["z"]
        published = defaultdict(list)
        for s in mqm.read_scores(release.get(f"{stem}.avg_seg_scores.tsv")):
            published[s.system].append(s.score)
        # The score files name the references ref-A and ref-B, the error files ref and refB.
        renamed = {"ref": "ref-A", "refB": "ref-B"}
        names = {system: renamed.get(system, system) for system in ours.index}
        diff = max(
            abs(ours[system] - statistics.fmean(published[names[system]])) for system in ours.index
        )
        # system_scores writes 6 significant digits.
        same = set(names.values()) == set(published) and diff < 5e-6
        print(f"    system MQM of {len(ours)} systems against the mean of avg_seg_scores: "
              f"max |difference| {diff:.1e} (6 digits written) → "
              f"{'equal' if same else 'NOT EQUAL'}")  # fmt: skip
        # The check's figures, true and shifted: each rater's scores standardised, averaged
        # per output, as the import does.
        judgments = read_mqm(path)
        standard = standardise(pd.DataFrame({RATER: [j.rater for j in judgments],
                                             RAW: [j.score for j in judgments]}))  # fmt: skip
        z = defaultdict(list)
        for j, zj in zip(judgments, standard, strict=True):
            if j.system != "ref" and not math.isnan(zj):
                z[j.system, line_of[j.item_id]].append(zj)
        scored = [(statistics.fmean(v), system, line) for (system, line), v in z.items()]
        ok = check_shifts(f"TED {lp} MQM", scored, hypotheses, references, ERROR_ANNOTATION)
        all_ok &= same and ok
    return all_ok, seconds


def bundled_mqm(tmp: Path) -> Path:
    """The bundled TED files (fixtures/ted-mqm.tar.xz) laid out as the repository has them."""
    from wojdb.bundled import ted_mqm as bundled

    root = tmp / "wmt-mqm-human-evaluation"
    for stem in MQM_FILES.values():
        for suffix in (".tsv", ".avg_seg_scores.tsv"):
            link = root / f"{stem}{suffix}"
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(bundled() / f"{Path(stem).name}{suffix}")
    (root / "README.md").write_text("bundled\n")
    return root


WMT20_DA = "manual-evaluation/DA"
WMT20_MQM = {"en-de": "newstest2020/ende/mqm_newstest2020_ende",
             "zh-en": "newstest2020/zhen/mqm_newstest2020_zhen"}  # fmt: skip


def placeholder_texts(folder: Path, testset: str, lp: str, systems, lines: int = 1) -> None:
    """A test set of placeholder lines whose outputs are the `systems` that are no human
    reference: system tables need no texts."""
    from wojdb.core.formats import wmt

    src, tgt = lp.split("-")
    folder.mkdir(exist_ok=True)
    outputs = sorted(f"hyp.{s}.{tgt}" for s in systems if not wmt.human_reference(s))
    for name in (f"src.{src}", f"ref.A.{tgt}", *outputs):
        (folder / f"{testset}.{lp}.{name}").write_text("a line\n" * lines, encoding="utf-8")


def wmt20_files(release: Release | None) -> list[Path]:
    """WMT20's DA segment-score files: every pair's, or the bundled de-en and en-de slices."""
    from wojdb import bundled

    if release is None:
        print("  the bundled slices of de-en and en-de (give --wmt20 DIR for every pair)")
        return sorted((bundled.wmt20_human() / "da").glob("ad-seg-scores-*.csv"))
    return release.glob(WMT20_DA, "ad-seg-scores-*.csv")


def newstest2020_mqm_files(release: Release | None) -> tuple[dict[str, Path], Path]:
    """Google's newstest2020 MQM segment scores by pair (the repository's, or the bundled
    slices) and the README that tabulates them."""
    from wojdb import bundled

    if release is None or not release.get(f"{WMT20_MQM['en-de']}.avg_seg_scores.tsv"):
        folder = bundled.wmt20_human() / "mqm"
        print("  newstest2020 MQM: the bundled slices, two systems a pair (give --mqm DIR)")
        files = {lp: folder / f"{Path(stem).name}.avg_seg_scores.tsv"
                 for lp, stem in WMT20_MQM.items()}  # fmt: skip
        return files, folder / "README.md"
    files = {lp: release.get(f"{stem}.avg_seg_scores.tsv") for lp, stem in WMT20_MQM.items()}
    return files, release.get("README.md")


def as_imported(raw_names) -> dict[str, str]:
    """Each system name of a file → its name in a test set holding them all: the canonical
    name, or the name as written where two submissions of a team share one (WMT20 en-pl's
    Tilde.1425 and Tilde.1430)."""
    from collections import Counter

    from wojdb.core.formats import wmt

    canonical = {name: wmt.canonical_system(name) for name in raw_names}
    shared = {c for c, n in Counter(canonical.values()).items() if n > 1}
    return {raw: raw if c in shared else c for raw, c in canonical.items()}


def newstest2020_texts(tmp: Path, da: list[Path], mqm: dict[str, Path]) -> None:
    """One placeholder test set newstest2020 for both sources: every system either scores, as
    many lines as the MQM files' segments (they are matched by line; the DA scores, without
    document ids, are kept unlinked)."""
    from survey.sources.testsets import import_wmt
    from wojdb.core.formats import wmt

    systems, lines = defaultdict(set), defaultdict(lambda: 1)
    for path in da:
        lp = "-".join(wmt.lp_from_name(path))
        raw = {r.split()[0] for r in path.read_text().splitlines()[1:]}
        systems[lp] |= set(as_imported(raw).values())
    for lp, path in mqm.items():
        rows = path.read_text().splitlines()[1:]
        systems[lp] |= set(as_imported({r.split()[0] for r in rows}).values())
        lines[lp] = max(int(r.split()[2]) for r in rows)
    for lp, names in systems.items():
        placeholder_texts(tmp / "newstest2020", "newstest2020", lp, names, lines[lp])
    import_wmt(tmp / "newstest2020")


def wmt20(files: list[Path], release: Release | None) -> tuple[bool, tuple, tuple]:
    """WMT20's DA segment scores against the release's ad-sys-scores-LP.csv."""
    import pandas as pd

    from analysis import frames
    from survey.sources.human_judgments import import_judgments
    from wojdb.core.formats import wmt

    rows = sum(len(p.read_text().splitlines()) - 1 for p in files)
    report, seconds = timed(f"import_judgments: {len(files)} segment-score files ({rows:,} rows)",
                            import_judgments, files, testset="newstest2020")  # fmt: skip
    print(f"    {', '.join(f'{k} {v:,}' for k, v in report.created.items())}")
    table, scored = timed("the system tables (wmt22: mean over segments)",
                          frames.external_system_table, "da", "newstest2020")  # fmt: skip
    print("\nWMT20 system tables against the release's ad-sys-scores-LP.csv (order by z, z, raw, "
          "segments, judgments)")  # fmt: skip
    all_equal = True
    for path in files:
        lp = "-".join(wmt.lp_from_name(path))
        published = pd.read_csv(path.with_name(f"ad-sys-scores-{lp}.csv") if release is None
                                else release.get(f"{WMT20_DA}/ad-sys-scores-{lp}.csv"),
                                sep=r"\s+")  # fmt: skip
        published = published.assign(system=published["SYS"].map(as_imported(published["SYS"])))
        published = published.sort_values("Z.SCR", ascending=False).set_index("system")
        mine = table[table["lp"] == lp].set_index("system")
        extra = sorted(set(mine.index) - set(published.index))
        mine = mine.drop(extra)
        theirs = published.reindex(mine.index)
        checks = {
            "order": list(mine.index) == list(published.index),
            "z": bool((mine["z"] - theirs["Z.SCR"]).abs().max() < 1e-12),
            "raw": bool((mine["raw"] - theirs["RAW.SCR"]).abs().max() < 1e-11),
            "n": list(mine["n"]) == list(theirs["N"]),
            "judgments": list(mine["judgments"]) == list(theirs["N.ALL"]),
        }
        equal = all(checks.values())
        all_equal &= equal
        left_out = f"  (segment scores of {', '.join(extra)}, not in the table)" if extra else ""
        print(f"  {lp}: {len(mine):>2} systems  "
              + " ".join(f"{k} {'=' if v else 'DIFFERS'}" for k, v in checks.items())
              + f"  → {'equal' if equal else 'NOT EQUAL'}{left_out}")  # fmt: skip
    return all_equal, seconds, scored


def readme_mqm(readme: Path, lp: str) -> dict[str, float]:
    """The MQM column of the repository README's newstest2020 table of `lp`."""
    import re

    section = readme.read_text(encoding="utf-8").split("\n## newstest2020 ##")[1].split("\n## ")[0]
    heading = {"en-de": "### English to German ###", "zh-en": "### Chinese to English ###"}[lp]
    table = section.split(heading)[1].split("###")[0]
    return {m[1]: float(m[2]) for m in re.finditer(r"^\| (\S+) \| ([\d.]+)\(\d+\)", table, re.M)}


def newstest2020_mqm(files: dict[str, Path], readme: Path, tmp: Path) -> bool:
    """Google's newstest2020 MQM segment scores through import_scores and system_scores,
    against the README's MQM table."""
    import pandas as pd
    from django.core.management import call_command

    from analysis.scores_import import import_scores

    all_equal = True
    for lp, path in files.items():
        rows = path.read_text().splitlines()[1:]
        timed(f"import_scores {path.name} ({len(rows):,} rows)", import_scores, [path])
        out = tmp / f"mqm2020-{lp}.csv"
        call_command("system_scores", "--out", str(out), "--source", "mqm", "--lp", lp,
                     "--testset", "newstest2020", verbosity=0)  # fmt: skip
        ours = pd.read_csv(out).set_index("system")["z"]
        published = readme_mqm(readme, lp)
        # The README prints MQM as a cost, the references as Human-A/-B/-P; Huoshan_Translate
        # in zh-en as VolcTrans.
        named = {
            "refA": "Human-A",
            "refB": "Human-B",
            "refP": "Human-P",
            "Huoshan_Translate": "VolcTrans" if lp == "zh-en" else "Huoshan_Translate",
        }
        theirs = [published[named.get(s, s)] for s in ours.index]
        equal = [round(-z, 2) for z in ours] == theirs and theirs == sorted(theirs)
        all_equal &= equal
        print(f"    {lp}: {len(ours)} systems, MQM (2 places) and order against the README → "
              f"{'equal' if equal else 'NOT EQUAL'}")  # fmt: skip
        if not equal:
            for system, z, cost in zip(ours.index, ours, theirs, strict=True):
                print(f"      {system:<24} {-z:.4f}  README {cost:.2f}")
    return all_equal


def wmt23(tmp: Path) -> tuple[bool, tuple]:
    """WMT23's published results (the bundled WMT23.results.txt) imported for its eight pairs
    and written by system_scores in the published order."""
    import pandas as pd
    from django.core.management import call_command

    from survey.sources.human_judgments import import_judgments
    from survey.sources.testsets import import_wmt
    from wojdb import bundled
    from wojdb.core.formats import wmt, wmt_clusters

    path = bundled.REPO / "fixtures" / "wmt23-results" / "WMT23.results.txt"
    results = wmt_clusters.read(path)
    txt = tmp / "wmt23-txt"
    by_lp = defaultdict(list)
    for r in results:
        by_lp[f"{r.source_lang}-{r.target_lang}"].append(r)
    for lp, rows in by_lp.items():
        placeholder_texts(
            txt, "generaltest2023", lp, [wmt.canonical_system(r.system) for r in rows]
        )
    import_wmt(txt)
    _, seconds = timed(f"import_judgments {path.name} ({len(results)} systems)",
                       import_judgments, [path], testset="generaltest2023")  # fmt: skip
    out = tmp / "wmt23.csv"
    call_command("system_scores", "--out", str(out), "--testset", "generaltest2023", verbosity=0)
    ours = pd.read_csv(out)
    equal = all(
        list(ours[ours["lp"] == lp]["system"]) == [wmt.canonical_system(r.system) for r in rows]
        and list(ours[ours["lp"] == lp]["cluster"]) == [r.cluster for r in rows]
        for lp, rows in by_lp.items()
    )
    print(f"    {len(by_lp)} pairs, {len(ours)} systems: order (by raw) and clusters as printed "
          f"→ {'equal' if equal else 'NOT EQUAL'}")  # fmt: skip
    return equal, seconds


WMT24_PAIRS = ("en-cs", "en-hi", "en-ja", "en-zh")


def wmt24(release: Release | None, tmp: Path) -> tuple[bool, tuple, tuple]:
    import pandas as pd
    from django.core.management import call_command

    from survey.sources.human_judgments import import_judgments
    from survey.sources.testsets import import_wmt
    from wojdb import bundled

    if release is None:
        txt, waves = bundled.wmt24_esa_texts(tmp / "wmt24-placeholder"), bundled.wmt24_esa_waves()
        print("  the bundled waves 2 and 3, placeholder texts (give --wmt24 DIR for the texts)")
    else:
        for lp in WMT24_PAIRS:
            for folder in ("txt/sources", "txt/references", "txt/documents"):
                release.glob(folder, f"{lp}.*")
            release.glob(f"txt/system-outputs/{lp}", "*.txt")
        txt = release.get("txt/sources/en-cs.txt").parents[1]
        waves = [
            w for n in range(4) if (w := release.get(f"humeval/esa_generalMT2024_wave{n}.csv"))
        ]
        print(f"  waves present: {', '.join(w.name for w in waves)}")
    timed(f"import_wmt {len(WMT24_PAIRS)} pairs", import_wmt, txt, lps=list(WMT24_PAIRS))
    rows = sum(len(w.read_text(encoding="utf-8").splitlines()) for w in waves)
    report, imported = timed(f"import_judgments: {len(waves)} ESA waves ({rows:,} rows)",
                             import_judgments, waves, testset="wmt24")  # fmt: skip
    print(f"    {', '.join(f'{k} {v:,}' for k, v in report.created.items())}")
    out = tmp / "esa.csv"
    _, scored = timed("system_scores --source esa", call_command, "system_scores", "--out",
                      str(out), "--source", "esa", verbosity=0)  # fmt: skip
    ours = pd.read_csv(out)
    organisers = pd.read_csv(ROOT / "tests/core/data/wmt24_esa_organisers.csv")
    print("\nsystem_scores --source esa against the organisers' code (order, score 6 digits, "
          "rank ranges, clusters)")  # fmt: skip
    all_equal = True
    for lp, theirs in organisers.groupby("lp", sort=True):
        mine = ours[ours["lp"] == lp].reset_index(drop=True)
        theirs = theirs.reset_index(drop=True)
        checks = {
            "order": list(mine["system"]) == list(theirs["system"]),
            "score": len(mine) == len(theirs)
            and bool(((mine["z"] - theirs["overall"]).abs() < 5e-4).all()),
            "ranks": list(mine["ranks"]) == list(theirs["rank"]),
            "clusters": list(mine["cluster"]) == list(theirs["cluster"]),
        }
        equal = all(checks.values())
        all_equal &= equal
        print(f"  {lp}: {len(mine):>2} systems  "
              + " ".join(f"{k} {'=' if v else 'DIFFERS'}" for k, v in checks.items())
              + f"  → {'equal' if equal else 'NOT EQUAL'}")  # fmt: skip
    return all_equal, imported, scored


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wmt22", type=Path, metavar="DIR", help="wmt22-news-systems")
    parser.add_argument(
        "--mqm", type=Path, metavar="DIR", help="wmt-mqm-human-evaluation (default: bundled)"
    )
    parser.add_argument("--wmt24", type=Path, metavar="DIR", help="wmt24-news-systems")
    parser.add_argument(
        "--wmt20",
        type=Path,
        metavar="DIR",
        help="WMT-Metrics-task/wmt20-metrics (default: bundled)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as var:
        os.environ["WOJDB_HOME"] = var
        os.environ["DATABASE_URL"] = f"sqlite:///{var}/bench.db"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wojdb.settings")
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        tmp = Path(var)
        da_ok, da_seconds = True, None
        if args.wmt22:
            print("WMT22 into English (DA)")
            da_ok, da_seconds = wmt22(Release(args.wmt22, tmp / "wmt22"), tmp)
        print("\nGoogle MQM, TED (wmt-mqm-human-evaluation)")
        mqm_ok, mqm_seconds = ted_mqm(Release(args.mqm or bundled_mqm(tmp), tmp / "mqm"), tmp)
        print("\nWMT20 DA (wmt20-metrics) and Google MQM, newstest2020 (wmt-mqm-human-evaluation)")
        release = Release(args.wmt20, tmp / "wmt20") if args.wmt20 else None
        da_files = wmt20_files(release)
        mqm_files, readme = newstest2020_mqm_files(
            Release(args.mqm, tmp / "mqm") if args.mqm else None
        )
        newstest2020_texts(tmp, da_files, mqm_files)
        wmt20_ok, wmt20_import, wmt20_tables = wmt20(da_files, release)
        mqm20_ok = newstest2020_mqm(mqm_files, readme, tmp)
        print("\nWMT23 DA+SQM, the published results (wmt23-news-systems)")
        wmt23_ok, wmt23_import = wmt23(tmp)
        print("\nWMT24 ESA (wmt24-news-systems)")
        release = Release(args.wmt24, tmp / "wmt24") if args.wmt24 else None
        esa_ok, esa_import, esa_scores = wmt24(release, tmp)
    print(f"\nsummary (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; wall "
          "time on a quiet machine is about the CPU time)")  # fmt: skip
    if da_seconds:
        wall, cpu = da_seconds
        print(f"  WMT22 into-English DA files: {wall:.1f} s wall, {cpu:.1f} s CPU (target ≤ 20 s)")
    else:
        print("  WMT22 into-English DA files: not measured (give --wmt22 DIR, a checkout of "
              "github.com/wmt-conference/wmt22-news-systems)")  # fmt: skip
    for lp, (wall, cpu) in mqm_seconds.items():
        print(f"  TED {lp} MQM file: {wall:.1f} s wall, {cpu:.1f} s CPU (target ≤ 5 s)")
    print(f"  WMT24 ESA waves: {esa_import[0]:.1f} s wall, {esa_import[1]:.1f} s CPU "
          "(target ≤ 10 s CPU)")  # fmt: skip
    print(f"  WMT24 system_scores --source esa: {esa_scores[0]:.1f} s wall, {esa_scores[1]:.1f} s "
          "CPU (target ≤ 5 s CPU)")  # fmt: skip
    print(f"  WMT20 DA segment scores: {wmt20_import[0]:.1f} s wall, {wmt20_import[1]:.1f} s CPU; "
          f"their tables {wmt20_tables[0]:.1f} s wall")  # fmt: skip
    print(f"  WMT23 results: {wmt23_import[0]:.1f} s wall")
    ok = da_ok and mqm_ok and esa_ok and wmt20_ok and mqm20_ok and wmt23_ok
    print(f"  tables and checks: {'all as published' if ok else 'DIFFERENCES'}")


if __name__ == "__main__":
    main()
