"""One name per system: a judgment file's name maps to the imported system as the importers
report it, and every table uses that name."""

from wojdb.core.formats.wmt import canonical_system, imported_system


def test_a_judgment_files_system_is_named_as_imported():
    # WMT22's per-rater files number their systems; the test set names them without.
    assert imported_system("JDExploreAcademy.6", {"JDExploreAcademy"}) == "JDExploreAcademy"
    assert imported_system("Online-G.7", set()) == "Online-G"
    # A name imported as it is stays, although it looks numbered (WMT24's Claude-3.5).
    assert imported_system("Claude-3.5", {"Claude-3.5"}) == "Claude-3.5"
    assert canonical_system("Claude-3.5") != "Claude-3.5"
    # WMT21's HUMAN.0 is its second human reference.
    assert imported_system("HUMAN.0", {"Facebook-AI"}) == "refB"
