"""The French demo (`demo --language fr`): its WMT21 de-fr slice, its study file written in
French, and its refusal to share a database with a demo into another language."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from survey.importers import import_documents, import_wmt
from survey.management.commands.demo import DEMOS
from survey.models import Corpus, Segment

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


def test_the_demo_refuses_a_database_holding_another_target_language():
    english = DEMOS["en"].slice / "txt"
    import_wmt(english, lps=["de-en"])
    before = Segment.objects.count()
    with pytest.raises(CommandError, match=r"holds test sets into en; the --language fr demo"):
        call_command("demo", "--language", "fr", verbosity=0)
    assert Segment.objects.count() == before
    assert not Segment.objects.filter(target_lang="fr").exists()
