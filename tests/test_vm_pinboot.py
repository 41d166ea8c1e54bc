"""The judgement of ``vm program --pins`` (vm/pinboot.py): the kernel's table of requested lines."""

import pytest

from vm import pinboot

BUTTONS = [4, 5, 6]
DEBUG_GPIO = """\
gpiochip1: GPIOs 570-577, parent: platform/gpio-sim.1, other-chip, can sleep:
 gpio-588 (lg) output-low
gpiochip0: GPIOs 512-569, parent: platform/gpio-sim.0, pinctrl-bcm2711, can sleep:
 gpio-512 (<unused>) input,pull-up
 gpio-516 (companion buttons) input,pull-up
 gpio-517 (companion buttons) input,pull-up
 gpio-518 (companion buttons) input,pull-up
 gpio-530 (lg) output-low,pull-down
"""
"""debugfs ``gpio`` as the pins' guest wrote it (gpio-sim's lines, numbered from its chip's base)."""


def test_lgpio_driving_the_buzzer_and_the_reader_holding_the_buttons_pass():
    assert pinboot.held_lines(DEBUG_GPIO) == {
        4: ("companion buttons", "in"), 5: ("companion buttons", "in"), 6: ("companion buttons", "in"),
        18: ("lg", "out")}
    assert pinboot.lgpio_problems(DEBUG_GPIO, BUTTONS) == []


@pytest.mark.parametrize("line, why", [
    (" gpio-530 (<unused>) input", "nobody requested it"),
    (" gpio-530 (lg) input", "lgpio claimed it as an input"),
    (" gpio-530 (gpiozero) output-low", "another library drove it"),
    ("", "only another chip's line 18 is lgpio's"),
])
def test_a_buzzer_line_lgpio_does_not_drive_fails(line, why):
    changed = DEBUG_GPIO.replace(" gpio-530 (lg) output-low,pull-down", line)
    [problem] = pinboot.lgpio_problems(changed, BUTTONS)
    assert problem.startswith("GPIO 18 (the buzzer) of pinctrl-bcm2711 is not an output requested by lgpio"), why


def test_a_button_the_reader_does_not_hold_fails():
    missing = DEBUG_GPIO.replace(" gpio-518 (companion buttons) input,pull-up", " gpio-518 (<unused>) input,pull-up")
    assert pinboot.lgpio_problems(missing, BUTTONS) == [
        "buttons not held as inputs by the GPIO reader ('companion buttons'): GPIO 6 None"]


def test_no_header_chip_fails_every_line():
    assert len(pinboot.lgpio_problems(DEBUG_GPIO.replace("pinctrl-bcm2711", "pl061"), BUTTONS)) == 2


def test_the_game_is_cut_after_its_first_round():
    from vm import game

    tree = pinboot.HERE.parent
    whole, first = game.presses(tree), game.presses(tree, pinboot.FIRST_ROUND_S)
    assert first == whole[:len(first)] and len(first) < len(whole)
    slow = game.presses(tree, pinboot.FIRST_ROUND_S, pinboot.LOBBY_STEP_S)
    assert [(p.station, p.key) for p in slow] == [(p.station, p.key) for p in first]
    assert slow[0].at_s == pinboot.LOBBY_STEP_S
    assert {p.key for p in first} >= {"slap", "ok"}


@pytest.mark.parametrize("root", ["", "/"])
def test_the_module_build_refuses_this_machines_own_root(root, tmp_path):
    """build.sh deletes and builds in ROOT/usr/src/vm-modules: with an empty ROOT (or /) that is
    this machine's own /usr/src, so it stops before touching anything."""
    import subprocess

    source = tmp_path / "linux-source.tar.xz"
    source.write_bytes(b"")
    proc = subprocess.run(["sh", str(pinboot.HERE / "kernel" / "build.sh"), root, str(source)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "ROOT must be a chroot's root" in proc.stderr
