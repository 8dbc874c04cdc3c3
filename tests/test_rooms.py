"""The rooms of docs/rooms.json hold against the code: every product module lies in one room,
and no module imports one in a room its room must never reach. Imports are read with `ast`
(top-level and inside functions alike), so a lazy import counts as an arrow too."""

from __future__ import annotations

import ast
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROOMS = json.loads((ROOT / "docs/rooms.json").read_text())
PRODUCT = ("wojdb", "survey", "analysis")


def room_of(path: str) -> str | None:
    """The room whose longest entry holds `path` (a file or a folder ending in /)."""
    best, room = -1, None
    for name, part in ROOMS["parts"].items():
        for entry in part["is"]:
            if (path == entry or (entry.endswith("/") and path.startswith(entry))) and len(
                entry
            ) > best:
                best, room = len(entry), name
    return room


def module_path(dotted: str) -> str | None:
    base = ROOT / dotted.replace(".", "/")
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate.relative_to(ROOT).as_posix()
    return None


def imports(path: Path, source: str | None = None) -> set[str]:
    """The product modules `path` (or `source`, read as if it were there) imports, as paths from
    the root."""
    found = set()
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    tree = ast.parse(path.read_text() if source is None else source, str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] in PRODUCT and (target := module_path(name)):
                found.add(target)
    return found


def product_files() -> list[Path]:
    """Every module of the product but the empty `__init__.py` of a package (no room: it holds
    nothing and imports nothing)."""
    return sorted(p for top in PRODUCT for p in (ROOT / top).rglob("*.py") if p.read_text().strip())


def test_every_product_module_is_in_a_room():
    homeless = [p.relative_to(ROOT).as_posix() for p in product_files()]
    homeless = [p for p in homeless if room_of(p) is None]
    assert not homeless, f"modules in no room of docs/rooms.json: {homeless}"


def reach() -> dict[str, set[str]]:
    """Each product module and every module it reaches through imports, its own rooms' or not."""
    graph = {path.relative_to(ROOT).as_posix(): imports(path) for path in product_files()}
    reached = {}
    for start in graph:
        seen, todo = set(), [start]
        while todo:
            for target in graph.get(todo.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        reached[start] = seen
    return reached


def test_no_import_runs_where_a_room_must_never_reach():
    """Through any chain of imports: a room that may not reach another may not reach it by way
    of a third either."""
    never = {(a, b): why for a, b, why in ROOMS["never"]}
    broken = []
    for start, reached in reach().items():
        here = room_of(start)
        for target in sorted(reached):
            if (here, room_of(target)) in never:
                why = never[here, room_of(target)]
                broken.append(f"{start} reaches {target} ({here} -> {room_of(target)}: {why})")
    assert not broken, "\n".join(broken[:20])


def test_the_check_sees_a_lazy_import():
    """An import inside a function counts: the kind a never-arrow most often hides in."""
    probe = ROOT / "survey/sources/probe.py"
    lazy = "def f():\n    from survey.participants import views\n"
    assert imports(probe, lazy) == {
        "survey/participants/views.py",
        "survey/participants/__init__.py",
    }
    assert ("sources", "participants") in {(a, b) for a, b, _ in ROOMS["never"]}
