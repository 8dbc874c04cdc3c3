"""Every refusal of every command exits with status 2, as a bad argument or setting does; 1 is
left to a crash. The commands run here as `django-admin` and `manage.py` run them (Django's
`run_from_argv`), not through the `wojdb` command, which makes a 1 a 2 on its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.core.management import ManagementUtility

from survey.management.reporting import refused
from tests.factories import make_study

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = sorted(
    [*ROOT.glob("survey/management/**/*.py"), *ROOT.glob("analysis/management/commands/*.py")]
)


def run(*argv: str) -> int:
    try:
        ManagementUtility(["manage.py", *argv]).execute()
    except SystemExit as stop:
        return stop.code
    return 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    "argv, message",
    [
        (["create_study", "{tmp}/study.toml"], "study.toml, line 2, key colour: unknown key"),
        (["import_wmt", "{tmp}/nowhere"], "nowhere"),
        (["import_documents", "{tmp}"], "Nothing was written."),
        (["launch", "--keep-piloting"], "--keep-piloting goes with --clear-pilot"),
        (["launch", "--study", "{slug}"], "was launched already. Nothing was changed."),
        (["study_config", "no-such-study"], "no study with slug 'no-such-study'"),
        (["import_scans", "{tmp}/study.toml"], "study.toml: not a PDF or an image"),
        (["build_questionnaires", "--count", "1", "--seed", "1", "--study", "{slug}"], "already"),
        (["import_parses"], "give FILE.conllu"),
        (["score", "--permutation", "1", "--hyp", "a"], "not both"),
        (["power_analysis", "--r-a", "0.1", "--difference", "1.2"], "must be above -1"),
        (["power_analysis", "--word-marks", "--r-a", "0.1"], "--r-a: not an option"),
    ],
)
def test_a_refusing_command_exits_with_status_2(tmp_path, capsys, argv, message):
    (tmp_path / "study.toml").write_text('slug = "s"\ncolour = "red"\n')
    study = make_study()
    argv = [a.format(tmp=tmp_path, slug=study.slug) for a in argv]
    assert run(*argv) == 2
    err = capsys.readouterr().err  # after any progress bar
    assert "\nCommandError: " in f"\n{err}" and message in err and "Traceback" not in err


def _refusals(path: Path) -> list[tuple[int, str]]:
    """Every `raise CommandError(...)` in a file that does not pass returncode=2."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Raise) or not isinstance(node.exc, ast.Call):
            continue
        called = node.exc.func
        name = called.id if isinstance(called, ast.Name) else getattr(called, "attr", "")
        given = {k.arg: k.value for k in node.exc.keywords}
        two = isinstance(given.get("returncode"), ast.Constant) and given["returncode"].value == 2
        if name == "CommandError" and not two:
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_every_command_refuses_with_status_2():
    """A command refuses through `refused` (survey/management/reporting.py), or passes
    returncode=2 itself."""
    assert len(COMMANDS) > 20
    wrong = {str(p.relative_to(ROOT)): found for p in COMMANDS if (found := _refusals(p))}
    assert wrong == {}
    assert refused("no").returncode == 2


def test_the_check_finds_a_refusal_without_status_2(tmp_path):
    source = tmp_path / "command.py"
    source.write_text(
        "def handle():\n"
        "    raise CommandError('no')\n"
        "    raise base.CommandError('no', returncode=1)\n"
        "    raise CommandError('no', returncode=2)\n"
        "    raise refused('no')\n"
    )
    assert [line for line, _ in _refusals(source)] == [2, 3]
