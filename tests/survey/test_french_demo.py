"""The French demo (`demo --language fr`): its WMT21 de-fr slice and its study file written in
French (tests/survey/test_study_build.py builds it beside the English one)."""

from __future__ import annotations

import re
import tomllib

import numpy as np
import pandas as pd
import pytest
import tomli_w
from django.core.management import call_command

from analysis.analysing import study_systems
from analysis.demo_studies import DEMOS
from survey.models import Corpus, Item, Segment, Study, SystemScore, Triple
from survey.sources.documents import import_documents
from survey.sources.human_judgments import import_judgments
from survey.sources.testsets import import_wmt
from wojdb.core import texts

pytestmark = pytest.mark.django_db
FRENCH = DEMOS["fr"]


def test_the_slice_imports_whole_documents_of_german_to_french():
    import_wmt(FRENCH.slice / "txt")
    import_documents(sorted((FRENCH.slice / "documents").glob("*.docids")))
    assert set(Corpus.objects.values_list("system", flat=True)) == {
        "Online-B", "Online-W", "LISN", "talp_upc",
    }  # fmt: skip
    assert set(Segment.objects.values_list("source_lang", "target_lang")) == {("de", "fr")}
    # The release's newstest2021.de-fr.all.xml: its first document, salzburg.com.306606, has
    # 13 segments and begins with this title; faz.79579 follows.
    first = Segment.objects.get(number=1)
    assert first.document == "salzburg.com.306606"
    assert first.reference == "Banque Mattersburg\u00a0: l’ÖVP et le FPÖ ouvrent le feu sur le SPÖ"
    assert first.source == "Mattersburg-Bank: ÖVP und FPÖ schießen sich auf SPÖ ein"
    assert Segment.objects.get(number=13).document == "salzburg.com.306606"
    assert Segment.objects.get(number=14).document == "faz.79579"


# What participants read of a study, beside the consent statements.
PARTICIPANT_TEXTS = (
    *texts.DOCUMENTS, "holistic_question", "holistic_low", "holistic_high", "order_question",
    "order_low", "order_high", "sample_holistic_note", "sample_order_note", "reward",
    "results_date", "duration", "institution",
)  # fmt: skip
ENGLISH_WORDS = re.compile(r"\b(?:the|and|you|your|of|to|is|are|this|with)\b", re.IGNORECASE)


def test_the_french_demos_study_file_gives_a_study_in_french(tmp_path):
    declared = tomllib.loads(FRENCH.study_file.read_text(encoding="utf-8"))
    for table in ("sources", "pool", "permutations", "questionnaires", "practice_item"):
        declared.pop(table)  # the settings alone: no build (test_study_build.py builds it)
    (tmp_path / "fr.toml").write_text(tomli_w.dumps(declared))
    call_command("create_study", str(tmp_path / "fr.toml"), verbosity=0)
    study = Study.objects.get(slug=FRENCH.slug)
    consent = declared.pop("consent_texts")
    assert {k: getattr(study, k) for k in declared} == declared
    assert study.language == "fr" and study.slug == FRENCH.slug
    (version,) = study.consent_texts.all()
    assert (version.statements, version.optional, version.sharing) == (
        consent[0]["statements"], [5], 5,
    )  # fmt: skip
    english = texts.study_defaults("en")
    for name in PARTICIPANT_TEXTS:
        value = getattr(study, name)
        assert value and value != english.get(name), name
        assert not ENGLISH_WORDS.search(texts.fill(value, study)), name
    for statement in version.statements:
        assert not ENGLISH_WORDS.search(statement), statement
    assert texts.unfilled(study) == []


def test_the_demo_imports_wmt21s_de_fr_system_ranking_for_its_report():
    import_wmt(FRENCH.slice / "txt")
    import_judgments(sorted((FRENCH.slice / "humaneval").glob("*.txt")))
    # The release's wmt21clusters.filtered.20210930.txt, [deu-->fra]: z, raw, cluster.
    published = {
        "Online-B": (0.15951255205589446, 87.87845036107525, 1),
        "Online-W": (0.006039041295178949, 84.83616511659946, 2),
        "LISN": (-0.14863753629751789, 81.30547141204949, 3),
        "talp_upc": (-0.18961375098172123, 80.98374647746262, 3),
    }
    stored = SystemScore.objects.filter(system__in=published)
    assert {s.system: (s.z, s.raw, s.cluster) for s in stored} == published
    # The report's system-level table: the study's ratings of the four systems beside WMT's.
    triples = Triple.objects.filter(segment__number__lte=10).order_by("pk")
    items = [Item.objects.create(triple=t).pk for t in triples]
    ratings = pd.DataFrame(
        {
            "participant": np.repeat([1, 2], len(items)),
            "item": items * 2,
            "kind": "hypothesis",
            "holistic": np.random.default_rng(0).integers(1, 6, 2 * len(items)),
            "practice": False,
        }
    )
    table = study_systems(ratings)
    da = table[table["source"] == "da"].set_index("system")
    assert list(da.index[:2]) == ["Online-B", "translator-A"] and len(da) == 10
    assert {s: (da.loc[s, "z"], da.loc[s, "raw"], da.loc[s, "cluster"]) for s in published} == (
        published
    )
