"""Log lines: syslog priorities for systemd's journal, and no game secrets."""

import io
import logging
import sys

from companion.logs import setup_logging


def test_under_systemd_lines_carry_their_priority(capsys):
    setup_logging(environ={"JOURNAL_STREAM": "8:1234"})
    logging.getLogger("companion.daemon").warning("display 2 failed")
    logging.getLogger("companion.daemon").info("ready")
    err = capsys.readouterr().err.splitlines()
    assert err == ["<4>companion.daemon: display 2 failed", "<6>companion.daemon: ready"]


def test_by_hand_lines_carry_time_and_level(capsys):
    setup_logging(environ={})
    logging.getLogger("companion.table").error("oops")
    line = capsys.readouterr().err.strip()
    assert line.endswith(" ERROR companion.table: oops") and line[:4].isdigit()


def test_a_handler_follows_stderr_and_never_writes_to_a_closed_one(monkeypatch):
    setup_logging(environ={})
    first, second = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    logging.getLogger("companion.daemon").warning("one")
    assert first.getvalue().endswith(" WARNING companion.daemon: one\n")
    first.close()                      # as pytest closes a test's captured stream
    monkeypatch.setattr(sys, "stderr", second)
    monkeypatch.setattr(logging, "raiseExceptions", True)
    logging.getLogger("companion.daemon").warning("two")
    assert second.getvalue().endswith(" WARNING companion.daemon: two\n")
    assert "Logging error" not in second.getvalue()


def test_a_played_game_logs_no_moves(tmp_path, caplog):
    import asyncio
    from pathlib import Path

    from companion.daemon import Daemon
    from companion.profile import load_profile
    from companion.script import load_script

    demo = Path(__file__).parent.parent / "companion" / "demo"
    profile = load_profile(demo / "profile.toml")
    caplog.set_level(logging.DEBUG)
    daemon = Daemon(profile, tmp_path)
    try:
        asyncio.run(daemon.play_script(load_script(demo / "paytoplay.txt", 2), speed=8, tail_s=0.1))
    finally:
        daemon.close()
    ours = [r.getMessage() for r in caplog.records if r.name.startswith("companion")]
    assert any("game started: paytoplay" in m for m in ours)
    for secret in ("cell", "balance", "pass", "wins", "Alice"):
        assert not any(secret in m for m in ours), secret
