"""The test-set layout readers, on slices of the real releases (tests/survey/data/README.md)."""

import shutil
from pathlib import Path

import pytest

from wojdb.core import formats
from wojdb.core.formats import appraise, common, mqm, pairwise, plaintext, wmt
from wojdb.core.formats.common import document_lines, language, ref_name
from wojdb.core.formats.judgments import read_mqm
from wojdb.core.io import InputError

DATA = Path(__file__).resolve().parents[1] / "survey" / "data"
WMT22 = DATA / "wmt22-news-systems"
WMT24 = DATA / "wmt24-news-systems/txt-ts"


def lines(path: Path) -> list[str]:
    """The file's lines as WMT's tools split them: on "\n" only (wmt16's end in "\r\r\n")."""
    return [line.rstrip("\r") for line in path.read_bytes().decode("utf-8").split("\n")[:-1]]


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


# --- judgment readers ---------------------------------------------------------------------

HUMANEVAL22 = WMT22 / "humaneval"
ESA24 = DATA / "wmt24-news-systems/humeval/esa_generalMT2024_wave2.csv"
MQM = DATA / "wmt-mqm-human-evaluation"
WMT16 = DATA / "wmt16"


def csv_rows(path: Path) -> list[list[str]]:
    import csv

    return list(csv.reader(lines(path)))


def test_appraise_esa_keeps_spans_including_those_without_a_position():
    judgments = appraise.read(ESA24)
    assert len(judgments) == len(lines(ESA24)) and appraise.sniff(ESA24)
    j = next(j for j in judgments if j.line == 92)
    row = csv_rows(ESA24)[91]
    assert (j.rater, j.system, j.item_id, j.score) == (row[0], row[1], int(row[2]), float(row[6]))
    assert (j.source_lang, j.target_lang, j.document) == ("en", "ja", row[7])
    assert j.spans == (
        appraise.ErrorSpan(9, 18, "minor", ""),
        appraise.ErrorSpan(None, None, "minor", ""),
    )
    assert j.seconds == pytest.approx(float(row[11]) - float(row[10]))
    # The ESA item id counts from 0 over the WMT24 text files, whose line 0 is the canary.
    assert j.test_set_line({}) == 759
    bad = next(j for j in judgments if j.item_type == "BAD")
    assert bad.doc_tag == "bad" and bad.document == row_doc(bad, ESA24).split("#")[0]


def row_doc(j, path):
    return csv_rows(path)[j.line - 1][7]


def test_appraise_document_level_ids_map_through_the_documents():
    path = HUMANEVAL22 / "WMT22.Appraise.calibrationHITs.20221103.csv"
    judgments = appraise.read(path)
    first = judgments[0]
    assert first.fields == 11 and (first.document, first.doc_tag) == ("ecommerce_en_29", "3-13")
    assert (first.source_lang, first.target_lang, first.item_type) == ("en", "cs", "TGT")
    docs = document_lines(["other", "ecommerce_en_29", "t3_q8vmve", "t3_q8vmve"])
    assert first.test_set_line(docs) == 2
    third = judgments[2]
    assert (third.document, third.item_id, third.test_set_line(docs)) == ("t3_q8vmve", 2, 4)


def test_appraise_segment_level_rows_name_the_system_by_its_file():
    path = HUMANEVAL22 / "WMT22.Appraise.SegLvlLivSrc.20221031.filtered.csv"
    j = appraise.read(path)[0]
    raw = csv_rows(path)[0]
    assert raw[1] == "generaltest2022.en-liv.hyp.TartuNLP.liv.txt" and j.system == "TartuNLP"
    assert (j.target_lang, j.test_set_line({}), j.fields) == ("liv", int(raw[2]), 9)


def test_appraise_refuses_bad_spans_by_line_and_field(tmp_path):
    rows = lines(ESA24)
    rows[3] = rows[3].replace("[]", '"[{""start_i"":5,""end_i"":2}]"', 1)
    path = tmp_path / "esa.csv"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError, match=r"line 4, field spans: span offsets \[5, 2\]"):
        appraise.read(path)


def test_mqm_errors_give_the_released_segment_scores_with_the_standard_weights():
    errors = mqm.read(MQM / "mqm_ted_ende.tsv")
    assert mqm.sniff(MQM / "mqm_ted_ende.tsv")
    assert not mqm.sniff(MQM / "mqm_ted_ende.avg_seg_scores.tsv")
    released = mqm.read_scores(MQM / "mqm_ted_ende.avg_seg_scores.tsv")
    computed = mqm.segment_scores(errors)
    # The release names the reference "ref" in the errors and "ref-A" in the scores.
    checked = [s for s in released if s.system != "ref-A"]
    assert len(checked) == 6 * 13
    for s in checked:
        assert computed[(s.system, s.segment)] == pytest.approx(s.score), s
    first = errors[0]
    assert (first.system, first.document, first.doc_segment, first.rater) == (
        "Facebook-AI", "talk.1", 1, "rater1",
    )  # fmt: skip
    assert (first.side, first.span) == ("target", "in Betracht zu ziehen")
    target = (
        lines(MQM / "mqm_ted_ende.tsv")[1].split("\t")[6].replace("<v>", "").replace("</v>", "")
    )
    assert target[first.start : first.end] == first.span


def test_an_mqm_error_whose_marks_do_not_pair_up_keeps_its_weight_not_its_span(tmp_path):
    # As in the released TED files: a <v> opened and never closed (or closed, never opened).
    rows = lines(MQM / "mqm_ted_ende.tsv")
    cols = rows[1].split("\t")
    cols[6] = cols[6].replace("</v>", "")
    rows[1] = "\t".join(cols)
    cols = rows[2].split("\t")
    cols[5] = cols[5] + " </v>"  # the source this time
    rows[2] = "\t".join(cols)
    path = tmp_path / "mqm_ted_ende.tsv"
    path.write_text("\n".join(rows) + "\n")
    errors = mqm.read(path)
    intact = mqm.read(MQM / "mqm_ted_ende.tsv")
    assert [e.span_dropped for e in errors[:3]] == [True, True, False]
    for e in errors[:2]:
        assert (e.side, e.start, e.end, e.span) == ("", None, None, "")
    assert [(e.category, e.severity) for e in errors] == [(e.category, e.severity) for e in intact]
    assert mqm.segment_scores(errors) == mqm.segment_scores(intact)
    judgments = read_mqm(path)
    dropped = [a for j in judgments for a in j.errors if a.span_dropped]
    assert len(dropped) == 2 and all(a.weight is not None for a in dropped)


def test_mqm_weights_are_mt_metrics_evals():
    assert mqm.weight("Major", "Accuracy/Mistranslation") == 5
    assert mqm.weight("Minor", "Fluency/Punctuation") == 0.1
    assert mqm.weight("Major", "Fluency/Punctuation") == 5
    assert mqm.weight("Major", "Non-translation!") == 25
    assert mqm.weight("No-error", "No-error") == 0 and mqm.weight("Neutral", "Style") == 0


def test_pairwise_rankings_are_grouped_back_into_the_collapsed_rankings():
    path = WMT16 / "wmt16.deu-eng.csv"
    assert pairwise.sniff(path) and not appraise.sniff(path)
    rankings = pairwise.read(path)
    collapsed = pairwise.read(WMT16 / "wmt16.collapsed.deu-eng.csv")
    assert len(rankings) == len(collapsed) == 4

    def by_system(r):
        return {s: rank for systems, rank in r.ranks for s in systems}

    for r, c in zip(rankings, collapsed, strict=True):
        assert (r.source_lang, r.target_lang, r.segment_id, r.judge) == (
            "de", "en", c.segment_id, c.judge,
        )  # fmt: skip
        assert by_system(r) == by_system(c)
    assert rankings[0].segment_id == 1020 and len(rankings[0].ranks) == 8


def test_pairwise_refuses_a_system_ranked_two_ways_in_one_ranking(tmp_path):
    rows = lines(WMT16 / "wmt16.deu-eng.csv")
    cols = rows[2].split(",")
    cols[6] = "5"  # jhu-syntax is rank 4 in the row before
    rows[2] = ",".join(cols)
    path = tmp_path / "r.csv"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError, match="line 3, field system1rank: ranking 181 gives"):
        pairwise.read(path)


def test_a_rank_field_holding_a_unicode_line_separator_is_read_as_one_field(tmp_path):
    rows = lines(DATA / "rankings.csv")
    rows[1] = rows[1].replace(",judge1,", ",judge\u2028one\x85two,", 1)
    path = tmp_path / "rankings.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    rankings = wmt.read_rankings(path)
    assert len(rankings) == len(rows) - 1
    assert rankings[0].judge == "judge\u2028one\x85two" and rankings[0].line == 2


@pytest.mark.parametrize("rank", ["\u00b2", "0_2", "\u0662"])
def test_a_rank_python_would_read_but_no_file_means_is_refused(tmp_path, rank):
    rows = lines(WMT16 / "wmt16.deu-eng.csv")
    cols = rows[2].split(",")
    cols[6] = rank
    rows[2] = ",".join(cols)
    path = tmp_path / "r.csv"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError, match=f"line 3, field system1rank: '{rank}' is not a number"):
        pairwise.read(path)
    five_way = lines(DATA / "rankings.csv")
    cols = five_way[1].split(",")
    cols[16] = rank
    five_way[1] = ",".join(cols)
    path.write_text("\n".join(five_way) + "\n")
    with pytest.raises(InputError, match=f"line 2, field system1rank: '{rank}' is not a number"):
        wmt.read_rankings(path)


def test_a_pair_without_system_outputs_is_named(tmp_path):
    root = Path(shutil.copytree(WMT22 / "txt", tmp_path / "txt"))
    (root / "system-outputs/generaltest2022.en-hr.hyp.Online-A.hr").unlink()
    assert "generaltest2022 en-hr: no system outputs, not imported" in find(root).notes


def test_reference_names_lose_mt_metrics_evals_ref_prefix_but_never_become_empty():
    assert [ref_name(n) for n in ("refA", "refb", "ref", "stud")] == ["A", "b", "ref", "stud"]


def test_sgml_system_missing_a_document_is_refused_naming_it(tmp_path):
    root = Path(shutil.copytree(DATA / "sgml", tmp_path / "sgml"))
    hyp = root / "wmttest2022.SRPOL.en-hr.sgm"
    hyp.write_text(hyp.read_text().replace('docid="bbc.381765"', 'docid="other"'))
    with pytest.raises(InputError, match="SRPOL.en-hr.sgm, field docid: document 'bbc.381765'"):
        find(root)


@pytest.mark.parametrize("seg_id", ["0_2", "\u00b2", "\u0662"])
def test_a_seg_id_python_would_read_but_no_file_means_is_refused(tmp_path, seg_id):
    path = tmp_path / "wmttest2022.en-hr.all.xml"
    text = (WMT22 / "xml/wmttest2022.en-hr.all.xml").read_text()
    path.write_text(text.replace('<seg id="2">', f'<seg id="{seg_id}">', 1))
    with pytest.raises(InputError, match=f"en-hr.all.xml, field seg id: .* '{seg_id}' is not"):
        find(tmp_path)


def test_a_byte_order_mark_inside_an_xml_segment_is_dropped(tmp_path):
    path = tmp_path / "wmttest2022.en-hr.all.xml"
    text = (WMT22 / "xml/wmttest2022.en-hr.all.xml").read_text()
    path.write_text(text.replace('<seg id="1">Takes', '<seg id="1">\ufeffTakes', 1))
    (ts,) = find(tmp_path).test_sets
    assert ts.sources[0] == "Takes a delicate touch!"


def test_wmt23s_ref_refa_is_reference_a(tmp_path):
    root = Path(shutil.copytree(WMT22 / "txt", tmp_path / "txt"))
    ref = root / "references/generaltest2022.en-hr.ref.A.hr"
    ref.rename(ref.with_name("generaltest2022.en-hr.ref.refA.hr"))
    (ts,) = find(root, lps=["en-hr"], refs=["A"]).test_sets
    assert ts.ref_name == "A"


def test_a_language_pair_asked_for_but_absent_is_refused():
    with pytest.raises(InputError, match="field --lp: no test set for language pair.s. de-en"):
        find(WMT22 / "txt", lps=["cs-en", "de-en"])


def esa_with(tmp_path, row: int, changes: dict[int, str], extra: list[str] = ()) -> Path:
    """The ESA slice with fields of one row (0-based) changed, and `extra` rows added."""
    import csv
    import io

    rows = csv_rows(ESA24)
    for column, value in changes.items():
        rows[row][column] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows + [r.split(",") for r in extra])
    path = tmp_path / "esa.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        (6, "1_0", "line 4, field score: '1_0' is not a number"),
        (6, "٣", "line 4, field score: '٣' is not a number"),
        (6, "nan", "line 4, field score: 'nan' is not a number"),
        (2, "²", "line 4, field itemId: '²' is not a number"),
        (2, "1_0", "line 4, field itemId: '1_0' is not a number"),
        (10, "nan", "line 4, field timeStart: 'nan' is not a number"),
        (11, "inf", "line 4, field timeEnd: 'inf' is not a number"),
        (0, "r" * 100, "line 4, field username: longer than 64 characters"),
        (3, "TGTTGTTGT", "line 4, field itemType: longer than 8 characters"),
        (7, "d" * 129, "line 4, field docId: longer than 128 characters"),
        (9, '[{"start_i": true, "end_i": 4}]', "line 4, field spans: span offset true"),
        (9, '[{"start_i": 0, "end_i": 1e3}]', "line 4, field spans: span offset 1000.0"),
        (9, '[{"start_i": 0, "end_i": NaN}]', "line 4, field spans: span offset NaN"),
        (
            9,
            '[{"start_i": 0, "end_i": 100000000000000000000}]',
            "span offset 100000000000000000000",
        ),
        (9, '[{"start_i": 0, "end_i": 2, "severity": {"a": 1}}]', 'span severity {"a": 1}'),
        (9, '[{"start_i": 0, "end_i": 2, "severity": "' + "m" * 33 + '"}]', "field severity"),
    ],
)
def test_appraise_numbers_offsets_and_names_are_checked_by_line_and_field(
    tmp_path, column, value, message
):
    with pytest.raises(InputError) as error:
        appraise.read(esa_with(tmp_path, 3, {column: value}))
    assert message in str(error.value)


def test_appraise_rows_repeated_exactly_are_read_once_and_conflicts_refused(tmp_path):
    rows = csv_rows(ESA24)
    first = next(i for i, r in enumerate(rows) if r[3] == "TGT" and r[10] != r[11])
    again = list(rows[first])
    # The same row again (WMT24's waves hold 95 and 87): read once, as the organisers read it,
    # the repeat's line kept on the row read.
    read = appraise.read(esa_with(tmp_path, 0, {}, [",".join(again)] * 2))
    assert len(read) == len(rows)
    assert read[first].line == first + 1
    assert read[first].repeated_at == (len(rows) + 1, len(rows) + 2)
    assert sum(bool(j.repeated_at) for j in read) == 1
    other = [*rows[first][:6], "3" if rows[first][6] != "3" else "67", *rows[first][7:]]
    with pytest.raises(InputError) as error:
        appraise.read(esa_with(tmp_path, 0, {}, [",".join(other)]))
    assert f"the rater, system, item and times of line {first + 1} but another judgment" in str(
        error.value
    )
    assert f"score {float(rows[first][6]):g} there, {float(other[6]):g} here" in str(error.value)
    # The same item by the same rater at another time is a judgment of its own.
    later = [*other[:10], str(float(other[10]) + 60), str(float(other[11]) + 60)]
    assert len(appraise.read(esa_with(tmp_path, 0, {}, [",".join(later)]))) == len(rows) + 1


def test_every_standard_code_is_accepted_as_it_is():
    """Whatever a code stands for is a code the same check accepts: `sh` (standard tag sr-Latn)
    is `sr`, never a tag no reader or study would take."""
    import itertools
    import string

    for size in (2, 3):
        for letters in itertools.product(string.ascii_lowercase, repeat=size):
            if (standard := language("".join(letters))) is not None:
                assert language(standard) == standard, "".join(letters)


def test_a_language_is_right_to_left_by_its_script():
    from wojdb.core.language.codes import right_to_left

    assert [c for c in ("he", "ar", "fa", "ur", "ug", "ps", "yi", "dv", "sd", "ckb", "syr", "nqo")
            if not right_to_left(c)] == []  # fmt: skip
    assert [
        c for c in ("en", "fr", "pa", "hi", "zh", "liv", "sr", "az", "tr") if right_to_left(c)
    ] == []
    assert right_to_left("az-Arab") and not right_to_left("ks-Deva") and not right_to_left("")


def test_mqm_numbers_and_names_are_checked_by_line_and_field(tmp_path):
    rows = lines(MQM / "mqm_ted_ende.tsv")
    cols = rows[1].split("\t")
    for column, value, message in (
        (4, "r" * 65, "line 2, field rater: longer than 64 characters"),
        (3, "1_0", "line 2, field seg_id: '1_0' is not a number"),
        (2, "\u00b2", "line 2, field doc_id: '²' is not a number"),
    ):
        path = tmp_path / "mqm_ted_ende.tsv"
        path.write_text("\n".join([rows[0], "\t".join([*cols[:column], value, *cols[column + 1 :]]),
                                   *rows[2:]]) + "\n")  # fmt: skip
        with pytest.raises(InputError, match=message):
            mqm.read(path)
    scores = lines(MQM / "mqm_ted_ende.avg_seg_scores.tsv")
    path = tmp_path / "mqm_ted_ende.avg_seg_scores.tsv"
    path.write_text("\n".join([scores[0], scores[1].replace(scores[1].split()[1], "1_0")]) + "\n")
    with pytest.raises(InputError, match="line 2, field mqm_avg_score: '1_0' is not a number"):
        mqm.read_scores(path)


def test_a_year_in_a_name_is_written_in_ascii_digits():
    # Python's \d and int() take Arabic-Indic digits: "wmt٢٤" would be read as 2024.
    with pytest.raises(InputError, match="cannot tell the test set's name and year"):
        common.testset_of(Path("wmt\u0662\u0664"), formats.Selection.of())
    assert common.testset_of(Path("wmt24"), formats.Selection.of()) == ("wmt24", 2024)
    assert not plaintext.TEXT_FILE.match("newstest\u0662\u0660\u0661\u0669.de-en.src.de")
    assert plaintext.TEXT_FILE.match("newstest2019.de-en.src.de")
