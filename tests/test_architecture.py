"""No import climbs a layer: the layers of ``docs/ARCHITECTURE.md``, checked on every module.

Each module's imports are read with :mod:`ast` (deferred imports inside functions and
``TYPE_CHECKING`` ones too: a climb for an annotation is still a climb). A module may import
its own layer and any layer on a lower tier; layers on one tier stand side by side and never
import each other. A new top-level module or package must be given a layer here and in the doc.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ARCHITECTURE.md"

TIERS: tuple[dict[str, tuple[str, ...]], ...] = (
    # bottom to top: layer -> the top-level modules and packages of ``companion`` in it
    {"ground": ("__init__", "cues", "logs", "notify", "rulebook", "untrusted"),
     "arbiter": ("arbiter",),
     "screens": ("screens",)},
    {"games": ("bots", "games", "words"),
     "setup": ("profile", "script", "settings")},
    {"record": ("record",),
     "hardware": ("adapters", "board", "diagram")},
    {"table": ("selftest", "table")},
    {"table screen": ("tablescreen",)},
    {"box": ("daemon", "wiring")},
    {"front ends": ("__main__", "cli", "sim")},
)


def modules(package: Path) -> dict[str, Path]:
    """Dotted name (from the package's own name) -> file, for every module below ``package``."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = (package.name,) + path.relative_to(package).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(name: str, path: Path) -> set[str]:
    """The names of the package's own that the module ``name`` imports, made absolute."""
    root = name.split(".")[0]
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets.update(f"{module}.{a.name}" for a in node.names)  # each name may be a module
    return {t for t in targets if t == root or t.startswith(root + ".")}


def top(name: str) -> str:
    """The top-level module or package a dotted name belongs to (``__init__`` for the root)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def climbs(package: Path, tiers) -> list[str]:
    """Every import that climbs a layer or crosses to a layer beside its own, and every
    top-level module without a layer, one line each."""
    place = {member: (tier, layer) for tier, layers in enumerate(tiers)
             for layer, members in layers.items() for member in members}
    found = modules(package)
    problems = [f"{path.relative_to(package.parent)} has no layer: give it one in {Path(__file__).name} "
                f"and in docs/ARCHITECTURE.md" for name, path in found.items() if top(name) not in place]
    for name, path in found.items():
        if top(name) not in place:
            continue
        tier, layer = place[top(name)]
        for target in sorted(imported(name, path)):
            if top(target) not in place:
                continue  # named above, or not a module of ours (``from . import SOMETHING``)
            to_tier, to_layer = place[top(target)]
            if to_layer != layer and to_tier >= tier:
                how = "beside" if to_tier == tier else "above"
                problems.append(f"{name} ({layer}) imports {target} ({to_layer}), a layer {how} its own")
    return problems


def test_no_import_climbs_a_layer():
    assert climbs(ROOT / "companion", TIERS) == []


def test_the_doc_shows_the_layers_the_test_checks():
    """The stack in ``docs/ARCHITECTURE.md`` (top tier first, ``|`` between layers side by side)
    is the one checked here."""
    block = re.search(r"```layers\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert block, "docs/ARCHITECTURE.md has no ```layers block"
    tiers = []
    for line in reversed(block.group(1).strip().splitlines()):
        layers = {}
        for cell in line.split("|"):
            layer, _, members = cell.partition(":")
            layers[layer.strip()] = tuple(sorted(m.strip() for m in members.split(",")))
        tiers.append(layers)
    assert tuple(tiers) == TIERS


def test_every_layer_has_its_modules():
    """A layer names only what exists: a module renamed or moved cannot leave a stale entry."""
    present = {top(name) for name in modules(ROOT / "companion")}
    named = {m for layers in TIERS for members in layers.values() for m in members}
    assert named - present == set()


# --- the checker itself, on a small package of its own ---------------------------------------


def package(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / "box" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path / "box"


SMALL = ({"low": ("__init__", "low", "side")}, {"mid": ("mid",), "beside": ("beside",)}, {"high": ("high",)})

CLEAN = {"__init__.py": "", "low.py": "", "side.py": "from . import low\n",
         "mid/__init__.py": "from ..low import x\nfrom . import part\n", "mid/part.py": "from box.side import y\n",
         "beside.py": "import box.low\n", "high.py": "from .mid.part import z\nfrom .beside import w\n"}


def test_the_checker_passes_a_package_that_keeps_its_layers(tmp_path):
    assert climbs(package(tmp_path, CLEAN), SMALL) == []


@pytest.mark.parametrize("where, text, said", [
    ("low.py", "from .high import x\n", "box.low (low) imports box.high.x (high), a layer above its own"),
    ("mid/part.py", "def later():\n    from ..high import x\n",
     "box.mid.part (mid) imports box.high.x (high), a layer above its own"),
    ("mid/part.py", "import box.beside\n", "box.mid.part (mid) imports box.beside (beside), a layer beside its own"),
    ("beside.py", "from . import mid\n", "box.beside (beside) imports box.mid (mid), a layer beside its own"),
    ("side.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from box import mid\n",
     "box.side (low) imports box.mid (mid), a layer above its own"),
    ("extra.py", "", "box/extra.py has no layer: give it one in test_architecture.py and in docs/ARCHITECTURE.md"),
])
def test_the_checker_finds_an_import_that_climbs(tmp_path, where, text, said):
    problems = climbs(package(tmp_path, {**CLEAN, where: text}), SMALL)
    assert len(problems) == 1 and problems[0] == said, problems


HARDWARE = ("gpiozero", "lgpio", "luma", "serial", "pygame")
"""The hardware and UI libraries: the box's devices and the windows on a desktop."""


def hardware_importers(package: Path) -> set[str]:
    """The modules outside ``adapters`` that import a hardware or UI library, anywhere in them."""
    found = set()
    for name, path in modules(package).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            if any(n.split(".")[0] in HARDWARE for n in names) and top(name) != "adapters":
                found.add(name)
    return found


def test_the_adapters_docstring_names_every_other_hardware_importer():
    """The adapters package says where else the hardware libraries are imported; a module that
    starts importing one must be named there (a package by its name covers its modules)."""
    import companion.adapters

    named = set(re.findall(r":mod:`(companion[\w.]*)`", companion.adapters.__doc__))
    importers = hardware_importers(ROOT / "companion")
    unnamed = {m for m in importers if not any(m == n or m.startswith(n + ".") for n in named)}
    assert unnamed == set(), f"import hardware libraries but the adapters docstring does not say so: {unnamed}"
    stale = {n for n in named if not any(m == n or m.startswith(n + ".") for m in importers)}
    assert stale == set(), f"named in the adapters docstring but import no hardware library: {stale}"
