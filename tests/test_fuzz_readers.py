"""Every reader of files the box cannot trust, fed random and mangled files: never a traceback,
always a clean result, exit 2 with a message, or (in the daemon) a logged skip."""

import contextlib
import io
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from companion.cli import main
from companion.record.recovery import pick_up

ROOT = Path(__file__).parent.parent
SEED_GAME = (ROOT / "tests" / "journals" / "paytoplay-seed.jsonl").read_bytes()
PROFILE = (ROOT / "hardware" / "profiles" / "mock-3.toml").read_bytes()
DECKS = (ROOT / "companion" / "words" / "green.toml").read_bytes().replace(b'"green"', b'"mine"')
SCRIPT = (ROOT / "companion" / "demo" / "paytoplay.txt").read_bytes()

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20)


@st.composite
def mangled(draw, good: bytes):
    """``good`` with a few bytes flipped, cut, repeated or replaced, or random bytes."""
    kind = draw(st.sampled_from(["flip", "cut", "splice", "random", "deep"]))
    data = bytearray(good)
    if kind == "flip":
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(data) - 1))
            data[i] ^= 1 << draw(st.integers(0, 7))
    elif kind == "cut":
        data = data[: draw(st.integers(0, len(data)))]
    elif kind == "splice":
        i = draw(st.integers(0, len(data)))
        data[i:i] = draw(st.sampled_from([b"[" * 2000, b"9" * 5000, b"1e308", b"NaN", b"\\ud800", b"\x00\xff",
                                          json.dumps(draw(json_values)).encode()]))
    elif kind == "random":
        data = bytearray(draw(st.binary(max_size=300)))
    else:
        data = bytearray(b"[" * draw(st.integers(30, 4000)) + b"\n")
    return bytes(data)


def run_cli(argv) -> int:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            return main(argv)
        except SystemExit as e:  # argparse's own usage errors
            return e.code


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(mangled(SEED_GAME))
def test_replay_and_games_and_resume_never_raise(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "20260101-000000-paytoplay.jsonl"
        path.write_bytes(data)
        assert run_cli(["replay", str(path)]) in (0, 2)
        assert run_cli(["replay", "--json", str(path)]) in (0, 2)
        assert run_cli(["games", "--journal-dir", tmp]) == 0
        found = pick_up(Path(tmp))
        if hasattr(found, "writer"):
            found.writer.close()


def in_file(data: bytes, name: str, read):
    """``read(path)`` of a file holding ``data``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        return read(path)


@FUZZ
@given(mangled(PROFILE))
def test_profile_check_never_raises(data):
    assert in_file(data, "p.toml", lambda path: run_cli(["profile", "check", str(path)])) in (0, 2)


@FUZZ
@given(mangled(DECKS))
def test_words_check_never_raises(data):
    assert in_file(data, "d.toml", lambda path: run_cli(["words", "check", str(path)])) in (0, 2)


@FUZZ
@given(mangled(SCRIPT))
def test_scripts_never_raise(data):
    from companion.script import ScriptError, load_script

    try:
        presses = in_file(data, "s.txt", lambda path: load_script(path, 2))
    except ScriptError:
        return
    assert all(0 <= p.at_s <= 86400 and 0 < p.hold_s <= 86400 for p in presses)


@FUZZ
@given(mangled(b"apple\nbanana split\n# a comment\npear\n"))
def test_word_files_never_raise(data):
    from companion.words.wordlist import WordListError, read_word_file

    try:
        in_file(data, "w.txt", read_word_file)
    except WordListError:
        pass
