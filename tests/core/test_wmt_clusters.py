"""WMT21's system-level clusters file, on the French demo's slice of it, and WMT23's results
file, whole (fixtures/README.md).

Expected values are copied from the release's wmt21clusters.filtered.20210930.txt, [deu-->fra],
and WMT23.results.txt, [ces-->ukr].
"""

from collections import Counter
from pathlib import Path

import pytest

from wojdb.core.formats import wmt_clusters
from wojdb.core.formats.judgments import CLUSTERS, read_judgment_file
from wojdb.core.io import InputError

CLUSTERS_FILE = (
    Path(__file__).resolve().parents[2]
    / "fixtures/wmt21-defr-slice/humaneval/wmt21clusters.filtered.20210930.deu-fra.txt"
)
# (system, n, z, raw, wins, cluster): the tuple lines and the table of the release's file.
DE_FR = [
    ("Online-B", 1913, 0.15951255205589446, 87.87845036107525, 7, 1),
    ("translator-A", 1721, 0.12551531284628506, 86.53037111766264, 7, 1),
    ("Manifold", 1849, 0.017970729969432067, 83.4229434408959, 4, 2),
    ("Online-W", 2158, 0.006039041295178949, 84.83616511659946, 4, 2),
    ("Online-A", 2301, 0.0038114554973658933, 84.53085646692965, 4, 2),
    ("Online-G", 2184, -0.08359521960903447, 83.01415892750514, 0, 3),
    ("P3AI", 2157, -0.148383570403334, 83.5243146665878, 0, 3),
    ("LISN", 2096, -0.14863753629751789, 81.30547141204949, 0, 3),
    ("Online-Y", 2263, -0.17748049666437365, 83.72479081538022, 0, 3),
    ("talp_upc", 2376, -0.18961375098172123, 80.98374647746262, 0, 3),
]


def test_the_de_fr_block_reads_as_published():
    results = wmt_clusters.read(CLUSTERS_FILE)
    assert {(r.source_lang, r.target_lang) for r in results} == {("de", "fr")}
    assert [(r.system, r.n, r.z, r.raw, r.wins, r.cluster) for r in results] == DE_FR
    # Each system's line is its (system, n, z, raw, H) line.
    assert results[0].line == 25 and results[-1].line == 34


def test_it_is_recognised_by_content():
    assert wmt_clusters.sniff(CLUSTERS_FILE)
    name, rows = read_judgment_file(CLUSTERS_FILE)
    assert name == CLUSTERS and len(rows) == 10
    assert read_judgment_file(CLUSTERS_FILE, "fr-de")[1] == []


def edited(tmp_path, old: str, new: str) -> Path:
    text = CLUSTERS_FILE.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / CLUSTERS_FILE.name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "line", "field"),
    [
        # n no longer the system's count in the lists above
        ("('Online-B', 1913,", "('Online-B', 1931,", 25, "n"),
        # a z that is not the rounded one in front of it
        ("0.16 ('Online-B', 1913, 0.159", "0.16 ('Online-B', 1913, 0.259", 25, "z"),
        ("('LISN', 2096, -0.14863753629751789, 81.30547141204949",
         "('LISN', 2096, -0.14863753629751789, 181.30547141204949", 32, "raw"),
        ("('P3AI', 2157,", "('P3AI', '2157',", 31, "n"),
        ("-0.19 ('talp_upc'", "-0.19 'talp_upc'", 34, None),
        # the table disagreeing with the result lines
        ("Online-W  0.00604 4.00000 84.83617", "Online-W  0.00604 4.00000 84.83618", 42, "R Score"),
        ("    Online-Y -0.17748", "    Online-X -0.17748", 48, "System ID"),
        ("07                                            Online-B",
         "10                                            Online-B", 38, "Wins"),
        ("[deu-->fra]", "[deu-->xxq]", 4, "language pair"),
        ("P3AI-->2157", "P3AI-->2156", 18, "count"),
        ("P3AI: 2157", "P3AI: 2156", 18, "count"),
        # numbers Python reads but no file means: 1_913 as 1913, 1e999 as infinity, "٣" as 3
        ("('Online-B', 1913,", "('Online-B', 1_913,", 25, "n"),
        ("87.87845036107525, 4.0)", "87.87845036107525, 1e999)", 25, "H"),
        ("P3AI: 2157", "P3AI: \u0662157", 8, "count"),
        ("07                                            Online-B",
         "\u00b2                                             Online-B", 38, "Wins"),
    ],
)  # fmt: skip
def test_a_malformed_line_is_refused_by_line_and_field(tmp_path, old, new, line, field):
    path = edited(tmp_path, old, new)
    with pytest.raises(InputError) as e:
        wmt_clusters.read(path)
    assert f"line {line}" in str(e.value)
    assert str(path) in str(e.value)
    if field:
        assert f"field {field}" in str(e.value)


def test_a_system_missing_from_the_table_is_refused(tmp_path):
    path = edited(tmp_path, "00                                            Online-G -0.08360 "
                  "4.00000 83.01416\n", "")  # fmt: skip
    with pytest.raises(InputError, match="the table lacks Online-G"):
        wmt_clusters.read(path)


def test_a_file_without_the_first_line_is_not_this_format(tmp_path):
    path = tmp_path / "clusters.txt"
    path.write_text("\n".join(CLUSTERS_FILE.read_text().split("\n")[1:]), encoding="utf-8")
    assert not wmt_clusters.sniff(path)
    with pytest.raises(InputError, match="line 1"):
        wmt_clusters.read(path)


# --- WMT23 (fixtures/wmt23-results/, the release's humaneval/DA+SQM/WMT23.results.txt) ----------

WMT23_FILE = Path(__file__).resolve().parents[2] / "fixtures/wmt23-results/WMT23.results.txt"
# cs-uk as the release prints it, (system, n, z, raw, wins, cluster): ranked by raw.
CS_UK = [
    ("ONLINE-B", 1672, 0.1617897407524018, 83.66551040634289, 11, 1),
    ("GPT4-5shot", 1645, 0.21571171177488424, 83.61413941195902, 11, 1),
    ("Human-refA", 1670, 0.20210145266981905, 83.24413610835809, 11, 1),
    ("ONLINE-W", 1633, 0.091813481397513, 82.7657746944169, 6, 2),
    ("CUNI-GA", 1614, 0.033416572799705384, 82.38115295672284, 6, 2),
    ("CUNI-Transformer", 1591, 0.0036072137563981956, 81.8207796498183, 6, 2),
    ("GTCOM_DLUT", 1660, 0.05775745385138423, 81.30822596630327, 6, 2),
    ("ONLINE-A", 1670, 0.0697722153741217, 80.55797819623386, 6, 2),
    ("ONLINE-G", 1722, -0.05271155512424875, 79.52114304592003, 3, 3),
    ("ONLINE-Y", 1618, -0.11469099242265253, 78.68665345226297, 1, 3),
    ("MUNI-NLP", 1669, -0.11015406764897637, 78.66468450611166, 1, 3),
    ("Lan-BridgeMT", 1641, -0.18937336417802106, 77.42781631978856, 1, 3),
    ("NLLB_MBR_BLEU", 1670, -0.1695930129394048, 76.92748595969604, 1, 3),
    ("NLLB_Greedy", 1716, -0.2427037320235682, 76.69193921374297, 0, 4),
]


def test_wmt23_results_read_as_published():
    results = wmt_clusters.read(WMT23_FILE)
    pairs = Counter(f"{r.source_lang}-{r.target_lang}" for r in results)
    # The eight pairs WMT23 judged with DA+SQM, and their systems (the release's count lists).
    assert pairs == {"cs-uk": 14, "de-en": 14, "en-cs": 16, "en-de": 13, "en-ja": 17,
                     "en-zh": 16, "ja-en": 18, "zh-en": 16}  # fmt: skip
    cs_uk = [r for r in results if (r.source_lang, r.target_lang) == ("cs", "uk")]
    assert [(r.system, r.n, r.z, r.raw, r.wins, r.cluster) for r in cs_uk] == CS_UK
    assert cs_uk[0].line == 33 and cs_uk[-1].line == 46
    assert [r.raw for r in cs_uk] == sorted((r.raw for r in cs_uk), reverse=True)
    assert [r.system for r in wmt_clusters.read(WMT23_FILE, "cs-uk")] == [s[0] for s in CS_UK]
    assert read_judgment_file(WMT23_FILE)[0] == CLUSTERS


def wmt23_edited(tmp_path, old: str, new: str) -> Path:
    text = WMT23_FILE.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / WMT23_FILE.name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "line", "field"),
    [
        # WMT23 leads each result line with the raw score, not z
        ("83.67 ('ONLINE-B'", "0.16 ('ONLINE-B'", 33, "raw"),
        ("  ONLINE-B  83.7\n", "  ONLINE-B  83.8\n", 50, "Ave Score"),
        # the tab-separated summary after the LaTeX tables
        ("cs-uk\tONLINE-B\t1-3\t83.7", "cs-uk\tONLINE-B\t1-3\t83.6", 752, "ave"),
        ("cs-uk\tONLINE-B\t1-3\t83.7", "cs-uk\tONLINE-Q\t1-3\t83.7", 752, "system"),
    ],
)  # fmt: skip
def test_a_wmt23_line_disagreeing_with_its_result_is_refused(tmp_path, old, new, line, field):
    path = wmt23_edited(tmp_path, old, new)
    with pytest.raises(InputError) as e:
        wmt_clusters.read(path)
    assert f"line {line}" in str(e.value) and f"field {field}" in str(e.value)


def test_a_wmt23_summary_lacking_a_system_is_refused(tmp_path):
    path = wmt23_edited(tmp_path, "cs-uk\tONLINE-B\t1-3\t83.7\n", "")
    with pytest.raises(InputError, match="the summary lacks cs-uk ONLINE-B"):
        wmt_clusters.read(path)
