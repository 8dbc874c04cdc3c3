"""Rules every WOJ-DB command follows for its arguments: numeric options are range-checked by
the parser, and the range is shown in --help."""

import argparse
import re
import tomllib

import pytest
from django.core.management import CommandError, call_command, get_commands, load_command_class

from survey.models import Study
from tests.factories import make_study
from wojdb.arguments import IntList, Number, Output, float_range, int_range

OURS = sorted(name for name, app in get_commands().items() if app in ("survey", "analysis"))


def parser_of(name: str) -> argparse.ArgumentParser:
    return load_command_class(get_commands()[name], name).create_parser("manage.py", name)


def own_actions(parser: argparse.ArgumentParser):
    """The options a command adds, not Django's shared ones (--verbosity, --traceback…)."""
    shared = {
        "verbosity",
        "settings",
        "pythonpath",
        "traceback",
        "no_color",
        "force_color",
        "skip_checks",
        "version",
        "help",
    }
    return [a for a in parser._actions if a.dest not in shared]


def test_the_commands_are_found():
    assert {"sample_pool", "simulate_responses", "power_analysis", "import_wmt"} <= set(OURS)


@pytest.mark.parametrize("name", OURS)
def test_every_numeric_option_is_range_checked_and_shows_its_range(name):
    parser = parser_of(name)
    text = " ".join(parser.format_help().split())
    for action in own_actions(parser):
        assert action.type not in (int, float), f"{name} {action.option_strings}: no range"
        if isinstance(action.type, Number | IntList):
            assert action.type.__name__ in text, f"{name} {action.option_strings}"


def test_sample_pool_refuses_a_negative_count_before_touching_anything(db):
    with pytest.raises(CommandError, match="--per-corpus: -1 is outside the allowed range"):
        call_command("sample_pool", "--per-corpus", "-1", verbosity=0)
    help_text = " ".join(parser_of("sample_pool").format_help().split())
    assert "triples per corpus (whole number >= 1; default 450)" in help_text


def test_from_the_command_line_a_bad_value_is_one_line_not_a_traceback(capsys):
    command = load_command_class("survey", "sample_pool")
    with pytest.raises(SystemExit) as exit:
        command.run_from_argv(["manage.py", "sample_pool", "--per-corpus", "x"])
    assert exit.value.code != 0
    err = capsys.readouterr().err
    assert "argument --per-corpus: 'x' is not a number: expected a whole number >= 1" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("kind", "text", "problem"),
    [
        (int_range(1), "0", "outside the allowed range: whole number >= 1"),
        (int_range(0, 9), "10", "outside the allowed range: whole number from 0 to 9"),
        (float_range(0, 1, high_open=True), "1", r"number in \[0, 1\)"),
        (float_range(0, 1, low_open=True), "0", r"number in \(0, 1\]"),
        (float_range(0), "nan", "'nan' is not a number"),
        (float_range(0), "1e999", "'1e999' is not a finite number"),
        (float_range(0), "-0.5", "number >= 0"),
        (IntList(int_range(2)), "3,1", "whole number >= 2"),
        (IntList(int_range(2)), ",", "names no number"),
    ],
)
def test_range_types_refuse_values_outside(kind, text, problem):
    with pytest.raises(argparse.ArgumentTypeError, match=problem):
        kind(text)


def test_range_types_accept_the_ends_they_include():
    assert int_range(0, 9)("9") == 9
    assert float_range(0, 1, low_open=True)("1") == 1.0
    assert IntList(int_range(2))("12, 2,12") == [2, 12]
    assert re.fullmatch(
        r"number in \(-1, 1\)", str(float_range(-1, 1, low_open=True, high_open=True))
    )


@pytest.mark.parametrize("name", ["analyse", "print_questionnaires"])
def test_an_output_folder_that_is_a_file_is_refused_before_anything_runs(name, tmp_path, db):
    """`analyse --out FILE` ran the analysis, then stopped on a traceback (NotADirectoryError)."""
    taken = tmp_path / "report.txt"
    taken.write_text("kept")
    with pytest.raises(CommandError, match=f"--out: {taken}: exists and is not a folder"):
        call_command(name, "--out", str(taken))
    inside = taken / "report"
    with pytest.raises(CommandError, match=f"cannot be created: {taken} exists and is not a"):
        call_command(name, "--out", str(inside))
    assert taken.read_text() == "kept"


def test_simulated_participants_are_bounded_to_what_one_run_holds_in_memory(db):
    """A run of 99,999,999,999 participants was refused by nothing and ran until killed."""
    with pytest.raises(CommandError, match="--participants: 99999999999 is outside the allowed"):
        call_command("simulate_responses", "--participants", "99999999999")


@pytest.mark.parametrize("name", ["export_judgments", "system_scores", "study_config"])
def test_an_output_file_that_is_a_folder_is_refused_before_anything_runs(name, tmp_path, db):
    """`export_judgments --out FOLDER` and `system_scores --out FOLDER` ended on a traceback
    (IsADirectoryError)."""
    given = ["demo"] if name == "study_config" else []
    with pytest.raises(CommandError, match=f"--out: {tmp_path}: is a folder; name the file"):
        call_command(name, *given, "--out", str(tmp_path))
    missing = tmp_path / "nowhere" / "out.csv"
    with pytest.raises(CommandError, match=f"--out: {missing}: {missing.parent} is not a folder"):
        call_command(name, *given, "--out", str(missing))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "name, option, given",
    [
        # `compute_metrics --jobs 99999999999` hung starting processes, with nothing to score.
        ("compute_metrics", "--jobs", "99999999999"),
        ("create_study", "--jobs", "99999999999"),
        ("generate_permutations", "--jobs", "99999999999"),
        # `print_questionnaires --copies 99999999` grew past 1.5 GB without writing a page.
        ("print_questionnaires", "--copies", "99999999"),
    ],
)
def test_a_huge_count_of_processes_or_copies_is_refused(name, option, given, tmp_path, db):
    with pytest.raises(CommandError, match=f"{option}: {given} is outside the allowed range"):
        call_command(name, option, given, "--out" if name == "print_questionnaires" else "-v0",
                     *([str(tmp_path)] if name == "print_questionnaires" else []))  # fmt: skip
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "name, option, given",
    [
        # Each ended on a traceback: MemoryError, numpy asking for 54.6 TiB.
        ("generate_permutations", "--max-degree", "99999999999"),
        ("analyse", "--bootstrap", "99999999999"),
    ],
)
def test_a_count_that_cannot_fit_in_memory_is_refused(name, option, given, db):
    with pytest.raises(CommandError, match=f"{option}: {given} is outside the allowed range"):
        call_command(name, option, given)


def test_analyse_refuses_a_study_beside_a_release(tmp_path, db):
    """`analyse --release R --study S` analysed the release and ignored --study."""
    with pytest.raises(CommandError, match="give one of them. Nothing was written."):
        call_command("analyse", "--release", str(tmp_path), "--study", "x", "--out",
                     str(tmp_path / "report"))  # fmt: skip
    assert list(tmp_path.iterdir()) == []


# --- outputs -----------------------------------------------------------------------------------

#: Every command that writes a path it is given: its option, the arguments it needs besides,
#: and whether the path is a folder.
WRITERS = [
    ("study_config", "--out", ["demo"], False),
    ("study_log", "--out", ["demo"], False),
    ("system_scores", "--out", [], False),
    ("export_judgments", "--out", [], False),
    ("analyse", "--out", [], True),
    ("print_questionnaires", "--out", [], True),
    ("export_wojdb", "--out", [], True),
    ("import_alignments", "--write-pairs", [], False),
    ("import_parses", "--write-permutations", [], False),
]
OUTPUT_TYPES = {"output_file", "output_folder", "output_path"}


def test_every_command_that_writes_a_path_refuses_an_existing_one_unless_forced():
    found = set()
    for name in OURS:
        for action in own_actions(parser_of(name)):
            option = max(action.option_strings, default=action.dest, key=len)
            if getattr(action.type, "__name__", "") in OUTPUT_TYPES:
                found.add((name, option))
            elif re.search(r"out|write", option):
                assert action.type is None and action.nargs == 0, (name, option)  # a flag
    assert found == {(name, option) for name, option, _, _ in WRITERS}
    for name, option in found:
        actions = parser_of(name)._option_string_actions
        assert f"replace an existing {option}" in actions["--force"].help, name
        assert "symbolic link" in actions["--force"].help


def refusal(name: str, *arguments: str) -> CommandError:
    with pytest.raises(CommandError) as error:
        call_command(name, *arguments, verbosity=0)
    assert error.value.returncode == 2 and "\n" not in str(error.value)
    return error.value


@pytest.mark.parametrize("name, option, given, folder", WRITERS)
def test_an_existing_output_is_refused_and_kept(name, option, given, folder, tmp_path, db):
    """`system_scores --out`, `export_judgments --out` and `study_config --out` replaced an
    existing file and exited 0."""
    out = tmp_path / "taken"
    if folder:
        out.mkdir()
        (out / "report.html").write_text("kept")
    else:
        out.write_text("kept")
    error = refusal(name, *given, option, str(out))
    assert str(error) == f"{option}: {out} exists; --force replaces it. Nothing was written."
    kept = out / "report.html" if folder else out
    assert kept.read_text() == "kept"
    assert sorted(tmp_path.rglob("*")) == sorted({out, kept})  # no temporary file left


@pytest.mark.parametrize("name, option, given, folder", WRITERS)
def test_an_output_that_is_a_symbolic_link_is_never_written_through(
    name, option, given, folder, tmp_path, db
):
    """`system_scores --out link.csv` wrote into the file the link points to."""
    pointed = tmp_path / "elsewhere"
    if folder:
        pointed.mkdir()
    else:
        pointed.write_text("kept")
    link = tmp_path / "link"
    link.symlink_to(pointed)
    for force in ([], ["--force"]):
        error = refusal(name, *given, option, str(link), *force)
        assert str(error).startswith(f"{option}: {link} is a symbolic link (to {pointed}); ")
        assert "even with --force" in str(error)
    assert link.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "link"]
    assert list(pointed.iterdir()) == [] if folder else pointed.read_text() == "kept"


def test_the_ids_file_beside_written_permutations_is_kept_as_well(tmp_path, db):
    (tmp_path / "perms.ids").write_text("kept")
    error = refusal("import_parses", "--write-permutations", str(tmp_path / "perms.txt"))
    assert str(error).startswith(f"--write-permutations: {tmp_path / 'perms.ids'} exists")
    assert [p.name for p in tmp_path.iterdir()] == ["perms.ids"]


def test_a_forced_output_is_replaced_and_nothing_is_left_beside_it(tmp_path, db):
    Study.objects.filter(pk=make_study().pk).update(slug="demo")
    out = tmp_path / "study.toml"
    out.write_text("old")
    call_command("study_config", "demo", "--out", str(out), "--force")
    assert tomllib.loads(out.read_text())["slug"] == "demo"
    assert [p.name for p in tmp_path.iterdir()] == ["study.toml"]


def test_a_refusal_from_the_command_line_is_one_line_and_exit_status_2(tmp_path, capsys, db):
    out = tmp_path / "scores.csv"
    out.write_text("kept")
    command = load_command_class("analysis", "system_scores")
    with pytest.raises(SystemExit) as exit:
        command.run_from_argv(["manage.py", "system_scores", "--out", str(out)])
    assert exit.value.code == 2
    assert capsys.readouterr().err == (
        f"CommandError: --out: {out} exists; --force replaces it. Nothing was written.\n"
    )
    assert out.read_text() == "kept"


@pytest.mark.parametrize("folder", [False, True])
def test_an_output_is_renamed_into_place_only_when_whole(folder, tmp_path):
    path = tmp_path / "out"
    output = Output(path, folder=folder, holds="a")  # a folder this "command" wrote holds `a`
    with pytest.raises(RuntimeError), output.writing(force=False) as temporary:
        assert temporary.parent == tmp_path and temporary.name.startswith(".out.")
        (temporary / "a" if folder else temporary).write_text("half")
        raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []  # nothing in place, nothing left beside it
    with output.writing(force=False) as temporary:
        (temporary / "a" if folder else temporary).write_text("first")
        if folder:
            (temporary / "old").write_text("gone once replaced")
    with pytest.raises(RuntimeError), output.writing(force=True) as temporary:
        (temporary / "a" if folder else temporary).write_text("second")
        raise RuntimeError("interrupted")
    written = path / "a" if folder else path
    assert written.read_text() == "first" and list(tmp_path.iterdir()) == [path]
    with output.writing(force=True) as temporary:
        (temporary / "a" if folder else temporary).write_text("second")
        if folder:
            (temporary / "b").write_text("new")
    assert (path / "a" if folder else path).read_text() == "second"
    assert not folder or sorted(p.name for p in path.iterdir()) == ["a", "b"]  # replaced whole
    assert list(tmp_path.iterdir()) == [path]


def test_an_output_appearing_while_it_is_written_is_not_replaced(tmp_path):
    path = tmp_path / "out.csv"
    output = Output(path, folder=False)
    with (
        pytest.raises(CommandError, match="exists; --force replaces"),
        output.writing(False) as new,
    ):
        new.write_text("new")
        path.write_text("written meanwhile")
    assert path.read_text() == "written meanwhile" and list(tmp_path.iterdir()) == [path]


def test_an_empty_folder_is_written_into_without_force(tmp_path):
    (tmp_path / "report").mkdir()
    with Output(tmp_path / "report", folder=True).writing(force=False) as temporary:
        (temporary / "report.html").write_text("done")
    assert (tmp_path / "report" / "report.html").read_text() == "done"


@pytest.mark.parametrize("name, option, given, folder", [w for w in WRITERS if w[3]])
def test_force_never_replaces_a_folder_the_command_did_not_write(
    name, option, given, folder, tmp_path, db
):
    """`analyse --out ~/Desktop --force` must not empty the desktop: a folder is replaced only
    when it holds what the command writes."""
    desktop = tmp_path / "Desktop"
    desktop.mkdir()
    (desktop / "thesis.tex").write_text("kept")
    error = refusal(name, *given, option, str(desktop), "--force")
    assert "this command did not write" in str(error) and "--force does not replace" in str(error)
    assert (desktop / "thesis.tex").read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Desktop"]
