"""The documentation's commands are the commands that exist: docs/commands.md is what each
command's --help says, and every command example in README.md and docs/ names a command, script
or module that exists, with options its parser takes. Examples in shell blocks are parsed whole
(arguments and values, as the command line would); a command written inline in the prose, such
as `sample_pool [--study SLUG] [--per-corpus 450]`, must name options the command has. Running
the README's own study, command by command, is tests/test_readme_study.py."""

from __future__ import annotations

import difflib
import importlib.util
import os
import re
import shlex
from pathlib import Path

import pytest
from django.core.management import CommandError, get_commands

from wojdb import command_reference
from wojdb.arguments import output_file, output_folder

ROOT = Path(__file__).resolve().parents[1]
#: The pages a reader follows; docs/commands.md is written from the parsers themselves.
PAGES = [ROOT / "README.md"] + sorted(
    page for page in (ROOT / "docs").glob("*.md") if page != command_reference.REFERENCE
)
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
SCRIPT = re.compile(r"(?<![\w./-])(bin/[a-z0-9-]+|bench/[a-z0-9_]+\.py)(?![\w.])")


def test_the_command_reference_is_each_command_s_own_help():
    written = command_reference.REFERENCE.read_text(encoding="utf-8")
    made = command_reference.reference()
    if written != made:
        diff = difflib.unified_diff(
            written.splitlines(), made.splitlines(), "docs/commands.md", "--help", lineterm="", n=1
        )
        pytest.fail(
            f"docs/commands.md is not what the commands' --help says: run "
            f"`{command_reference.COMMAND}` and commit it.\n" + "\n".join(list(diff)[:40])
        )


def test_the_reference_lists_every_command_of_the_apps():
    listed = set(re.findall(r"^### (\w+)$", command_reference.REFERENCE.read_text(), re.M))
    ours = {name for name, app in get_commands().items() if app in ("survey", "analysis")}
    assert ours <= listed and {"create_study", "analyse", "migrate"} <= listed


def fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def shell_lines(page: Path) -> list[str]:
    """Each command line of the page's bash blocks: continuation lines joined, comments dropped."""
    lines = []
    for block in fenced(page.read_text(encoding="utf-8"), "bash"):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words:
                lines.append(words)
    return lines


def simple_commands(words: list[str]) -> list[list[str]]:
    """The commands of one shell line (split at &&, ;, |), without leading VAR=value."""
    parts, current = [], []
    for word in words + [";"]:
        if word in ("&&", "||", ";", "|"):
            while current and re.fullmatch(r"[A-Z_]+=.*", current[0]):
                current.pop(0)
            if current:
                parts.append(current)
            current = []
        else:
            current.append(word)
    return parts


def inline_spans(page: Path) -> list[str]:
    """The page's `code spans` outside fenced blocks, whitespace collapsed."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", text)]


def examples() -> list[tuple[str, str, list[str], bool]]:
    """(page, command, arguments, whole) of every management-command example: `whole` for a
    shell line, parsed as given; an inline one is checked for its options only."""
    commands = get_commands()
    found = []
    for page in PAGES:
        name = page.relative_to(ROOT).as_posix()
        for line in shell_lines(page):
            for words in simple_commands(line):
                at = next((i for i, w in enumerate(words) if w.endswith("manage.py")), None)
                if at is None and words[0] == "wojdb":
                    at = 0
                if at is not None and len(words) > at + 1:
                    found.append((name, words[at + 1], words[at + 2 :], True))
        for span in inline_spans(page):
            words = span.split()
            if words[0].endswith("manage.py") or words[0] == "wojdb":
                words = words[1:]
            elif words[0] not in commands or not OPTION.search(span):
                continue  # a word such as `score` in the prose, not a command line
            if words and not words[0].startswith("-") and words[0].upper() != words[0]:
                found.append((name, words[0], words[1:], False))
    return found


EXAMPLES = examples()


def parser_for_checking(name: str):
    """The command's parser, output paths taken as they are written: whether a folder exists
    here says nothing of the example."""
    parser = command_reference.parser_of(name)
    for action in parser._actions:
        if action.type in (output_file, output_folder):
            action.type = None
    return parser


def test_the_pages_hold_examples_of_the_commands():
    named = {command for _, command, _, _ in EXAMPLES}
    assert {"create_study", "launch", "analyse", "import_wmt", "print_questionnaires"} <= named
    assert any(whole for *_, whole in EXAMPLES)


@pytest.mark.parametrize(
    ("page", "command", "arguments", "whole"),
    EXAMPLES,
    ids=[f"{page}:{command} {' '.join(args)}"[:90] for page, command, args, _ in EXAMPLES],
)
def test_each_command_example_names_a_command_and_options_it_takes(page, command, arguments, whole):
    assert command in get_commands(), f"{page}: no command {command!r}"
    parser = parser_for_checking(command)
    if whole:
        try:
            parser.parse_args(arguments)
        except CommandError as error:
            pytest.fail(f"{page}: manage.py {command} {shlex.join(arguments)}: {error}")
    else:
        options = OPTION.findall(" ".join(arguments))
        unknown = [o for o in options if o not in parser._option_string_actions]
        assert not unknown, f"{page}: `{command}` has no option {', '.join(unknown)}"


def bench_source(script: Path) -> str:
    """A bench script's source and that of the bench modules it imports, which may define
    its options (crash_test.py takes load_test.py's)."""
    source = script.read_text(encoding="utf-8")
    imported = re.findall(r"^(?:from|import) (\w+)", source, flags=re.M)
    siblings = [script.parent / f"{name}.py" for name in imported]
    return "\n".join([source] + [s.read_text(encoding="utf-8") for s in siblings if s.is_file()])


def test_each_script_and_module_named_exists_and_takes_the_options_given():
    problems = []
    for page in PAGES:
        name = page.relative_to(ROOT).as_posix()
        text = page.read_text(encoding="utf-8")
        for script in sorted(set(SCRIPT.findall(text))):
            path = ROOT / script
            if not path.is_file() or (script.startswith("bin/") and not os.access(path, os.X_OK)):
                problems.append(f"{name}: {script} is not there")
        for module in sorted(set(re.findall(r"python -m ([\w.]+)", text))):
            if importlib.util.find_spec(module) is None:
                problems.append(f"{name}: no module {module}")
        runs = [w for line in shell_lines(page) for w in simple_commands(line)]
        runs += [span.split() for span in inline_spans(page)]
        for words in runs:
            at = next((i for i, w in enumerate(words) if re.fullmatch(SCRIPT, w)), None)
            if at is None or not words[at].startswith("bench/"):
                continue
            source = bench_source(ROOT / words[at])
            for option in OPTION.findall(" ".join(words[at + 1 :])):
                if f'"{option}"' not in source:
                    problems.append(f"{name}: {words[at]} takes no {option}")
    assert not problems, "\n".join(problems)
