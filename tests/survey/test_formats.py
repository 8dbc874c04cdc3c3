"""The test-set layout readers, on slices of the real releases (tests/survey/data/README.md)."""

import shutil
from pathlib import Path

import pytest

from survey import formats
from survey.formats.common import language
from survey.wmt import InputError

DATA = Path(__file__).resolve().parent / "data"
WMT22 = DATA / "wmt22-news-systems"
WMT24 = DATA / "wmt24-news-systems/txt-ts"


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def find(root, **selection):
    return formats.find(root, formats.Selection.of(**selection))


def test_mt_metrics_eval_layout_keeps_documents_and_domains():
    found = find(WMT24)
    assert found.layout == "mt-metrics-eval"
    (ts,) = found.test_sets
    assert (ts.testset, ts.year, ts.lp, ts.ref_name) == ("wmt24", 2024, "en-cs", "A")
    assert ts.sources == lines(WMT24 / "sources/en-cs.txt")
    assert ts.references == lines(WMT24 / "references/en-cs.refA.txt")
    assert ts.hypotheses["ONLINE-B"] == lines(WMT24 / "system-outputs/en-cs/ONLINE-B.txt")
    docs = [row.split("\t") for row in lines(WMT24 / "documents/en-cs.docs")]
    assert ts.domains == [d for d, _ in docs] and ts.documents == [doc for _, doc in docs]
    assert ts.documents[1] == "test-en-news_beverly_press.3585" and ts.domains[1] == "news"


def test_wmt_xml_reads_what_the_release_unwrapped_into_txt():
    (xml,) = find(WMT22 / "xml").test_sets
    (txt,) = find(WMT22 / "txt", lps=["en-hr"]).test_sets
    assert xml.layout == "WMT XML" and (xml.testset, xml.lp) == ("wmttest2022", "en-hr")
    assert xml.sources == txt.sources and xml.references == txt.references
    assert xml.hypotheses["Online-A"] == txt.hypotheses["Online-A"]
    assert len(xml.hypotheses) == 9
    assert xml.documents[0] == "review_toys-and-games_21_5" and xml.domains[0] == "ecommerce"
    assert xml.documents[-1] == "bbc.381765" and xml.domains[-1] == "news"


def test_xml_picks_the_reference_asked_for_and_lists_the_others():
    (ts,) = find(WMT22 / "xml", refs=["B", "stud"]).test_sets
    assert ts.ref_name == "stud"
    with pytest.raises(InputError, match=r"--ref: none of .*\(C\) exists; there are: A, stud"):
        find(WMT22 / "xml", refs=["C"])


def test_sgml_files_read_like_the_xml_they_were_written_from():
    found = find(DATA / "sgml")
    (sgm,) = found.test_sets
    (xml,) = find(WMT22 / "xml").test_sets
    assert found.layout == "WMT SGML" and sgm.lp == "en-hr" and sgm.ref_name == "A"
    assert sgm.sources == xml.sources and sgm.references == xml.references
    assert sgm.hypotheses["SRPOL"] == xml.hypotheses["SRPOL"]
    assert sgm.documents == xml.documents and sgm.domains == xml.domains


def test_plain_text_picks_the_first_reference_present_or_the_preferred_one():
    (ts,) = find(WMT22 / "txt", lps=["cs-en"]).test_sets
    assert ts.layout == "WMT plain text" and ts.ref_name == "B"
    (ts,) = find(WMT22 / "txt", lps=["cs-en"], refs=["A", "refC", "B"]).test_sets
    assert ts.ref_name == "C"
    assert ts.references == lines(WMT22 / "txt/references/generaltest2022.cs-en.ref.C.en")
    with pytest.raises(InputError, match="there are: B, C"):
        find(WMT22 / "txt", lps=["cs-en"], refs=["A"])


def test_plain_text_keeps_document_ids_from_a_docids_file(tmp_path):
    root = Path(shutil.copytree(WMT22 / "txt", tmp_path / "txt"))
    ids = [f"doc{n // 10}" for n in range(30)]
    (root / "generaltest2022.cs-en.docids").write_text("\n".join(ids) + "\n")
    (ts,) = find(root, lps=["cs-en"]).test_sets
    assert ts.documents == ids and ts.domains == [""] * 30
    (root / "generaltest2022.cs-en.docids").write_text("\n".join(ids[:29]) + "\n")
    with pytest.raises(InputError, match="has 29 lines but the source has 30"):
        find(root, lps=["cs-en"])


def test_same_system_in_two_subfolders_is_refused_naming_both(tmp_path):
    root = Path(shutil.copytree(WMT22 / "txt", tmp_path / "txt"))
    (root / "again").mkdir()
    hyp = "generaltest2022.cs-en.hyp.Online-A.en"
    shutil.copy(root / "system-outputs" / hyp, root / "again" / hyp)
    with pytest.raises(InputError, match="several files") as e:
        find(root)
    assert str(root / "again" / hyp) in str(e.value)
    assert str(root / "system-outputs" / hyp) in str(e.value)


def test_unmatched_files_are_listed(tmp_path):
    root = Path(shutil.copytree(WMT22 / "txt", tmp_path / "txt"))
    (root / "generaltest2022.cs-en.hyp.Online-A.en.bak").write_text("x\n")
    (root / "notes.txt").write_text("x\n")
    found = find(root)
    assert {p.name for p in found.unmatched_files} == {
        "generaltest2022.cs-en.hyp.Online-A.en.bak",
        "notes.txt",
    }


def test_a_folder_in_no_layout_is_refused_saying_what_it_holds(tmp_path):
    (tmp_path / "a.csv").write_text("x\n")
    (tmp_path / "b.csv").write_text("x\n")
    with pytest.raises(InputError, match=r"no known layout here .*it holds: 2 \.csv"):
        find(tmp_path)


def test_languages_are_any_iso_639_code():
    assert language("liv") == "liv" and language("sah") == "sah"
    assert language("ces") == "cs" and language("en") == "en"
    assert language("xx") is None and language("english") is None


def test_mt_metrics_eval_needs_a_test_set_name_when_no_folder_gives_one(tmp_path):
    root = Path(shutil.copytree(WMT24, tmp_path / "data"))
    with pytest.raises(InputError, match="--testset NAME --year YYYY"):
        find(root)
    (ts,) = find(root, testset="mine", year=2024).test_sets
    assert (ts.testset, ts.year) == ("mine", 2024)


def test_xml_that_is_not_well_formed_is_refused_with_its_line(tmp_path):
    path = tmp_path / "wmttest2022.en-hr.all.xml"
    rows = lines(WMT22 / "xml/wmttest2022.en-hr.all.xml")
    rows[7] = rows[7].replace("</seg>", "")
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError, match=r"line \d+: is not well-formed XML"):
        find(tmp_path)
