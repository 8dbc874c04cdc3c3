"""WMT21's system-level clusters file, on the French demo's slice of it (fixtures/README.md).

Expected values are copied from the release's wmt21clusters.filtered.20210930.txt, [deu-->fra].
"""

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
