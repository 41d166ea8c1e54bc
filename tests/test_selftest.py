"""The self-test on mock pins: every button lights its box, the report names what is missing."""

import os
import subprocess
import sys
from pathlib import Path

from companion.cli import main
from companion.cues import CUES
from companion.arbiter.inputs import KEYS, InputEvent
from companion.selftest import SelfTest
from helpers import sensed_mock_3

ROOT = Path(__file__).parent.parent
MS = 1_000_000


def lit(image, box):
    return sum(image.crop(box).histogram()[1:])


def test_each_press_fills_its_box_and_names_the_gap_since_the_last_edge():
    test = SelfTest(("Ana", "Ben"))
    before = test.screen(0)
    test.handle(InputEvent(0, "left", True, 100 * MS))
    test.handle(InputEvent(0, "ok", True, 112 * MS))
    after = test.screen(0)
    left_box, slap_box = (62 + 2, 16 + 2, 62 + 17, 16 + 11), (40 + 2, 16 + 2, 40 + 17, 16 + 11)
    assert lit(after, left_box) > lit(before, left_box) + 50
    assert lit(after, slap_box) == lit(before, slap_box)
    assert test.last[0] == "ok +12.0ms"
    assert test.screen(1).tobytes() != after.tobytes()
    assert not test.complete
    assert "station 1 (Ana): slap never pressed" in test.report()


def test_the_buzzer_tour_plays_every_cue_once():
    test = SelfTest(("Ana", "Ben"))
    now, played = 0, []
    while True:
        test.tick(now, now)
        played += test.cues
        test.cues.clear()
        if test.wakeup_ns() is None:
            break
        now = test.wakeup_ns()
    assert played == list(CUES)


def test_selftest_command_on_mock_pins(tmp_path, capsys):
    script = tmp_path / "all.txt"
    script.write_text("".join(f"{0.1 + 0.05 * i:.2f} {s} {k}\n"
                              for i, (s, k) in enumerate((s, k) for s in (1, 2, 3) for k in KEYS)))
    profile = ROOT / "hardware" / "profiles" / "mock-3.toml"
    assert main(["selftest", "--profile", str(profile), "--script", str(script)]) == 0
    assert "all 12 buttons pressed" in capsys.readouterr().out
    script.write_text("0.1 1 slap\n0.2 2 ok\n")
    assert main(["selftest", "--profile", str(profile), "--script", str(script)]) == 1
    out = capsys.readouterr().out
    assert "station 3 (Cy): right never pressed" in out and "station 1 (Ana): slap" not in out


def test_the_report_names_a_display_that_is_not_working():
    test = SelfTest(("Ana", "Ben"))
    for s in range(2):
        for k in KEYS:
            test.handle(InputEvent(s, k, True, 100 * MS))
    assert test.report().startswith("all 8 buttons pressed")
    assert test.report([1]) == "station 2 (Ben): display not working (check its wiring and address)"


def test_selftest_command_measures_the_light_on_a_box_with_sensors(tmp_path, capsys, monkeypatch):
    """Mock pins: nothing drives the sensors, so the report names each and the check fails (the
    report on sensors that see the panels is tests/test_light.py's, on the scan model)."""
    import companion.selftest

    monkeypatch.setattr(companion.selftest, "LIGHT_REVEALS", 3)
    profile = sensed_mock_3(tmp_path)
    script = tmp_path / "all.txt"
    script.write_text("".join(f"{0.1 + 0.05 * i:.2f} {s} {k}\n"
                              for i, (s, k) in enumerate((s, k) for s in (1, 2, 3) for k in KEYS)))
    assert main(["selftest", "--profile", str(profile), "--script", str(script)]) == 1
    out = capsys.readouterr().out
    assert "all 12 buttons pressed" in out and "light: 3 reveals" in out
    assert "station 2 (Ben): its light sensor saw nothing" in out


def test_selftest_measures_the_light_through_the_gpio_reader(tmp_path, capsys, monkeypatch):
    """With the GPIO reader the button test's loop has stopped, and so has the reader: the light
    check starts it again and waits for its watermark. Ana's and Cy's sensors see every reveal
    (driven through the reader's mock pins once the panels took the display-on), Ben's nothing."""
    import companion.selftest
    from companion.adapters.gpiolink import ReaderWait

    monkeypatch.setattr(companion.selftest, "LIGHT_REVEALS", 3)
    profile = sensed_mock_3(tmp_path, '\n[timing]\ngpio_watermark = "reader"\n')
    script = tmp_path / "all.txt"
    script.write_text("".join(f"{0.1 + 0.05 * i:.2f} {s} {k}\n"
                              for i, (s, k) in enumerate((s, k) for s in (1, 2, 3) for k in KEYS)))
    past = ReaderWait.past

    def lit_then_past(self, t_ns, timeout_s):
        for pin in (9, 11):
            self.reader.drive(pin, 0)
            self.reader.drive(pin, 1)
        return past(self, t_ns, timeout_s)

    monkeypatch.setattr(ReaderWait, "past", lit_then_past)
    assert main(["selftest", "--profile", str(profile), "--script", str(script)]) == 1
    out = capsys.readouterr().out
    assert "all 12 buttons pressed" in out and "light: 3 reveals" in out
    assert "station 1 (Ana): lag p50" in out and "in 3 reveals" in out and "station 3 (Cy): lag p50" in out
    assert "station 2 (Ben): its light sensor saw nothing" in out


def test_selftest_off_a_pi_and_on_mock_pins_without_a_script_says_why_it_cannot_run(capsys):
    """A real-pin profile on a machine without lgpio: a plain sentence and exit 2, no traceback.
    A mock profile without a script: refused, since nobody can press simulated buttons."""
    import importlib.util

    if importlib.util.find_spec("lgpio") is None:
        assert main(["selftest", "--profile", str(ROOT / "hardware" / "profiles" / "mux-3.toml")]) == 2
        err = capsys.readouterr().err
        assert "no lgpio" in err and "Traceback" not in err and 'backend = "mock"' in err
    assert main(["selftest", "--profile", str(ROOT / "hardware" / "profiles" / "mock-3.toml")]) == 2
    assert "--script" in capsys.readouterr().err


LG_WD_CHILD = """
import os, sys
from companion.wiring import lgpio_work_dir
path = lgpio_work_dir()
os.mkfifo(os.path.join(path, ".lgd-nfy-3"))  # what lgpio makes there
print(path, os.environ["LG_WD"], flush=True)
"""


def test_lgpio_gets_a_work_dir_of_its_own_not_the_current_one(tmp_path):
    """`sudo -u companion ... selftest` from a maker's 0700 home: lgpio could neither enter the
    current directory nor make its FIFO there (the virtual Pi's maker stage runs exactly that).
    Without LG_WD the process now gets a private directory, not the current one, removed when it
    ends; the unit's LG_WD is kept."""
    home = tmp_path / "maker"
    home.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if k != "LG_WD"}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run([sys.executable, "-c", LG_WD_CHILD], cwd=home, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    path, told = proc.stdout.split()
    assert path == told and not path.startswith(str(home))
    assert not Path(path).exists()  # removed at exit
    given = subprocess.run([sys.executable, "-c", LG_WD_CHILD], cwd=tmp_path, capture_output=True, text=True,
                           env={**env, "LG_WD": str(tmp_path)}, timeout=60)
    assert given.stdout.split() == [str(tmp_path)] * 2  # the unit's LG_WD is kept
