"""A command given an output path it cannot write says so in one sentence and exits 2, as a bad
input does: no traceback, nothing half-written, a file in the way left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli import main

ROOT = Path(__file__).resolve().parent.parent
MOCK3 = ROOT / "hardware" / "profiles" / "mock-3.toml"
MUX3 = ROOT / "hardware" / "profiles" / "mux-3.toml"
SCRIPT = ROOT / "companion" / "demo" / "triangle.txt"
MISSING = "/proc/nope"
"""A folder no one can make (the kernel's own file system), whoever runs the test."""


@pytest.fixture(scope="module")
def journals(tmp_path_factory) -> Path:
    """A folder holding one finished demo game, for ``history``."""
    out = tmp_path_factory.mktemp("demo")
    assert main(["demo", "--out", str(out)]) == 0
    return out


def in_the_way(tmp_path: Path) -> Path:
    """A file where a folder is asked for; its bytes must survive the refusal."""
    path = tmp_path / "scores"
    path.write_text("keep me\n")
    return path


@pytest.mark.parametrize("argv, said", [
    (["words", "print", "--out", f"{MISSING}/x.png"],
     f"--out {MISSING}/x.png: cannot write {MISSING}/x-1.png: No such file or directory"),
    (["words", "print", "--out", f"{MISSING}/x.pdf"],
     f"--out {MISSING}/x.pdf: cannot write {MISSING}/x.pdf: No such file or directory"),
    (["profile", "diagram", str(MUX3), "--out", MISSING],
     f"--out {MISSING}: cannot write {MISSING}: No such file or directory"),
    (["run", "--profile", str(MOCK3), "--script", str(SCRIPT), "--snapshots", MISSING],
     f"--snapshots {MISSING}: cannot write {MISSING}: No such file or directory"),
    (["demo", "--out", MISSING], f"--out {MISSING}: cannot write {MISSING}: No such file or directory"),
])
def test_an_output_folder_that_cannot_be_made_is_one_sentence_and_exit_2(argv, said, tmp_path, capsys):
    assert main(argv + (["--journal-dir", str(tmp_path)] if argv[0] == "run" else [])) == 2
    out, err = capsys.readouterr()
    assert err == f"companion: {said}\n"
    assert "wrote" not in out


def test_history_plot_into_a_missing_folder_is_one_sentence_and_exit_2(journals, capsys):
    assert main(["history", "--journal-dir", str(journals), "--plot", MISSING]) == 2
    out, err = capsys.readouterr()
    assert err == f"companion: --plot {MISSING}: cannot write {MISSING}: No such file or directory\n"
    assert out == ""  # refused before the report, not after it


@pytest.mark.parametrize("argv", [
    ["history", "--journal-dir", "JOURNALS", "--plot", "FILE"],
    ["profile", "diagram", str(MUX3), "--out", "FILE"],
    ["demo", "--out", "FILE"],
])
def test_a_file_where_an_output_folder_goes_is_named_and_kept(argv, journals, tmp_path, capsys):
    file = in_the_way(tmp_path)
    argv = [str(journals) if a == "JOURNALS" else str(file) if a == "FILE" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.endswith(f" {file}: {file} is a file, not a folder\n") and err.count("\n") == 1
    assert file.read_text() == "keep me\n"


def test_words_print_under_a_file_says_it_is_not_a_folder(tmp_path, capsys):
    file = in_the_way(tmp_path)
    assert main(["words", "print", "--out", f"{file}/cards.pdf"]) == 2
    assert capsys.readouterr().err == f"companion: --out {file}/cards.pdf: cannot write {file}/cards.pdf: Not a directory\n"
    assert file.read_text() == "keep me\n"
