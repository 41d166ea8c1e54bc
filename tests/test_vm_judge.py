"""Every check of the virtual Pi can fail: each one, given what a broken box would show in the
guest, finds a problem, and given what a working one shows, none (vm/judge.py; the stages in
vm/stages.py raise on its problems and mark the check false in the summary)."""

from pathlib import Path

import pytest

from vm import judge, summary
from vm.checks import PI_CONFIG

UNIT = {"Type": "notify", "ActiveState": "active", "SubState": "running", "StatusText": "3 stations",
        "TimeoutStartUSec": "30s", "WatchdogUSec": "10s"}
TIMEOUTS = judge.own_timeouts((Path(__file__).parent.parent / "systemd/companion.service").read_text())
READY_LOG = "companion.daemon.presenting: ready: first frame on every display\n"
PRIORITIES = ("loop: pid 310's current scheduling policy: SCHED_FIFO pid 310's current scheduling priority: 20\n"
              "reader: pid 330's current scheduling policy: SCHED_FIFO pid 330's current scheduling priority: 20\n")
RACE = {"action": "draw", "winners": [0, 1, 2], "player": None}
SELFTEST = ("companion.adapters.gpioreader --fd 3\nselftest rc=0\n"
            "all 12 buttons pressed; every display shown; 9 cues played\n"
            "GPIO delivery delay of 240 edges (kernel stamp to the daemon): p50 20.0, p90 60.0, p99 150.0, max 170.0 ms\n")
TTYACM = ("loaded after start: EPERM\nloaded before start: ENXIO\nmodules-load loads cdc_acm: yes\n"
          "ordered after systemd-modules-load: yes\nafter modules-load, board plugged later: ENXIO\n"
          "a serial port the unit does not allow (ttyUSB): EPERM\n")
UPDATE = "rc=1\npid=300 now=300 state=active\nold program: runs\nactive again\n"
ROLLBACK = ("rc=1\ninstall.sh: the new version did not start (journalctl -u companion); back on the previous one\n"
            "active again\nvenv: venv-b -> venv-b\nold program: runs\n")
UNINSTALL = ("rc=0\nstate=not-found\nreadable by anyone: /var/lib/companion/games/a.jsonl\njournals=1\n"
             "log: readable\n")
AT_BOOT = ("active at boot\nenabled: enabled\nstarted by: 0 restarts, 1 ready\nmodules-load: active\n"
           "cdc_acm: loaded\ni2c-dev: in modules-load\ni2c-dev: loaded\ndevice: /dev/i2c-1 i2c 660\ndevice: /dev/gpiochip0 gpio 660\n"
           "lines held: companion buttons\n")
PLAIN_DEBIAN = "before install: no i2c-dev"
CHIPS = ("pi5-legacy: header /dev/gpiochip4 /sys/devices/platform/gpio-sim.0/gpiochip4\n"
         "gpiozero: /dev/gpiochip4 -> /dev/gpiochip4\nreader: /dev/gpiochip4 -> /dev/gpiochip4\n")
CURRENT_PI5_CHIPS = ("pi5: header /dev/gpiochip0 /sys/devices/platform/gpio-sim.0/gpiochip0\n"
                     "gpiozero: /dev/gpiochip4 -> /dev/gpiochip0\nreader: /dev/gpiochip0 -> /dev/gpiochip0\n")
MAKER_SELFTEST = "selftest by: maker, groups: maker sudo gpio i2c\nselftest rc=0\n"
WEB_ON = (f"drop-in: {judge.PHONES_DROP_IN}\nnetwork: PrivateNetwork=no\n"
          "page: 200 5120 bytes\nsocket: HTTP/1.1 101 Switching Protocols\n")
WEB_OFF = "drop-in: none\nnetwork: PrivateNetwork=yes\npage: refused ([Errno 111] Connection refused)\n"

INSTALLED_CONFIG = PI_CONFIG.replace("arm_64bit=1\n", "arm_64bit=1\ndtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n")
RECORD = "file /etc/systemd/system/companion.service\nboot-line dtparam=i2c_arm=on\nboot-line dtparam=i2c_arm_baudrate=400000\n"

# check -> (what a working box shows, what a broken one shows), each as a call of its judgement
CASES = {
    "install_ok": (lambda: judge.install(0, UNIT, 900), lambda: judge.install(0, {**UNIT, "ActiveState": "failed"}, 900)),
    "boot_config_ok": (lambda: judge.boot_config(INSTALLED_CONFIG, RECORD),   # appended after [cm5]: a Pi 4 never reads it
                       lambda: judge.boot_config(PI_CONFIG + "dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n", RECORD)),
    "reinstall_ok": (lambda: judge.reinstall(0, "a", "a", "active", 900),
                     lambda: judge.reinstall(0, "a", "b", "active", 900)),
    "update_failure_keeps_old": (lambda: judge.update_failure(UPDATE),
                                 lambda: judge.update_failure(UPDATE.replace("now=300", "now=301"))),
    "rollback_ok": (lambda: judge.rollback(ROLLBACK), lambda: judge.rollback(ROLLBACK.replace("-> venv-b", "-> venv-a"))),
    "uninstall_ok": (lambda: judge.uninstall(UNINSTALL),
                     lambda: judge.uninstall(UNINSTALL + "changed: /boot/firmware/config.txt\n  > [all]\n")),
    "unit_ready": (lambda: judge.unit_ready(UNIT, READY_LOG, PRIORITIES, TIMEOUTS),
                   lambda: judge.unit_ready(UNIT, "companion.daemon: not ready: display 3 already down\n", PRIORITIES, TIMEOUTS)),
    "watchdog_ok": (lambda: judge.watchdog("companion.service: Watchdog timeout (limit 10s)!"),
                    lambda: judge.watchdog("pinged: 1 -> 2")),
    "resumed_after_kill": (lambda: judge.resumed("the game is not over", "the game was resumed by the players"),
                           lambda: judge.resumed("the game is not over", "the players' ok did not resume the game")),
    "gpio_game_matches_mock": (lambda: judge.game([RACE], [RACE], [(1, 60.0, 60.2)], []),
                               lambda: judge.game([RACE], [{**RACE, "winners": [0, 2]}], [(1, 60.0, 60.2)], [])),
    "panels_ok": (lambda: judge.missing_panel("3 stations; display 3 not working", "[Errno 121] Remote I/O error"),
                  lambda: judge.missing_panel("3 stations", "[Errno 121] Remote I/O error")),
    "sensor_lines_ok": (lambda: judge.sensor_lines({"moves_read": True, "edges": judge.SENSOR_EDGES}),
                        lambda: judge.sensor_lines({"moves_read": True, "edges": judge.SENSOR_EDGES[1:]})),
    "selftest_ok": (lambda: judge.delivery(SELFTEST, "idle", 240)[1],
                    lambda: judge.delivery(SELFTEST.replace("rc=0", "rc=1"), "idle", 240)[1]),
    "ttyacm_modules_load_fix_ok": (
        lambda: judge.ttyacm(TTYACM), lambda: judge.ttyacm(TTYACM.replace("later: ENXIO", "later: EPERM"))),
    "board_chips_ok": (lambda: judge.board_chips(CHIPS),
                       lambda: judge.board_chips(CHIPS.replace("gpiozero: /dev/gpiochip4 -> /dev/gpiochip4",
                                                                    "gpiozero: /dev/gpiochip0 -> /dev/gpiochip0"))),
    "maker_selftest_ok": (lambda: judge.maker_selftest(MAKER_SELFTEST, "maker"),
                          lambda: judge.maker_selftest(MAKER_SELFTEST.replace(" i2c", ""), "maker")),
    "web_profile_ok": (lambda: judge.web_profile(WEB_ON, WEB_OFF),
                       lambda: judge.web_profile(WEB_ON, WEB_OFF.replace("drop-in: none", f"drop-in: {judge.PHONES_DROP_IN}"))),
    "boot_ok": (lambda: judge.at_boot(AT_BOOT, PLAIN_DEBIAN),
                lambda: judge.at_boot(AT_BOOT.replace("0 restarts", "2 restarts"), PLAIN_DEBIAN)),
}


def test_every_check_of_the_summary_has_a_case():
    assert set(CASES) == set(summary.CHECKS)


@pytest.mark.parametrize("check", summary.CHECKS)
def test_each_check_passes_a_working_box_and_fails_a_broken_one(check):
    working, broken = CASES[check]
    assert working() == []
    assert broken(), f"{check} cannot fail"


@pytest.mark.parametrize("log", [
    "companion.daemon: not ready yet\n", "already running\n",
    "companion.daemon.presenting: ready without display 3: retrying in the background\n",
    "x: ready: first frame on every display, then crashed\n",
])
def test_ready_is_the_daemons_whole_line_not_a_word_in_the_log(log):
    assert judge.unit_ready(UNIT, log, PRIORITIES, TIMEOUTS)


def test_the_service_runs_its_loop_and_reader_at_the_priority_the_unit_grants():
    assert judge.unit_ready(UNIT, READY_LOG, PRIORITIES.replace("SCHED_FIFO", "SCHED_OTHER", 1), TIMEOUTS)
    assert judge.unit_ready(UNIT, READY_LOG, PRIORITIES.splitlines()[0], TIMEOUTS)


@pytest.mark.parametrize("changed, why", [
    ("GPIO delivery delay of 200 edges (x): p50 20.0, p90 60.0, p99 150.0, max 170.0 ms", "edges delivered"),
    ("GPIO delivery delay of 240 edges (x): p50 20.0, p90 60.0, p99 150.0, max 12500.0 ms", "out of bounds"),
    ("GPIO delivery delay of 240 edges (x): p50 0.0, p90 0.0, p99 0.0, max 0.0 ms", "out of bounds"),
    ("GPIO delivery delay of 240 edges (x): p50 90.0, p90 60.0, p99 50.0, max 170.0 ms", "out of bounds"),
    ("GPIO delivery delay of 260 edges (x): p50 20.0, p90 60.0, p99 150.0, max 170.0 ms", "edges delivered"),
])
def test_delivery_figures_are_bounded(changed, why):
    out = SELFTEST.replace(SELFTEST.splitlines()[-1], changed)
    figures, problems = judge.delivery(out, "idle", 240)
    assert any(why in p for p in problems), problems


def test_delivery_figures_count_only_with_the_selftests_own_verdict():
    figures, problems = judge.delivery(SELFTEST, "stress", 240)
    assert figures == {"p50_ms": 20.0, "p99_ms": 150.0, "max_ms": 170.0, "edges": 240} and problems == []
    _, problems = judge.delivery(SELFTEST.replace("all 12 buttons pressed", "station 2 (P2): ok never pressed"),
                                 "idle", 240)
    assert any("every button" in p for p in problems)


@pytest.mark.parametrize("left", ["changed: /etc/group", "added and left: /etc/udev/rules.d/60-companion-gpiochip.rules",
                                  "left: user companion", "NOT readable: /var/lib/companion/games/a.jsonl"])
def test_uninstall_fails_on_anything_left_or_changed(left):
    assert left in judge.uninstall(UNINSTALL + left + "\n")


def test_uninstall_fails_when_the_log_cannot_be_read():
    assert judge.uninstall(UNINSTALL.replace("log: readable\n", ""))


def test_the_ttyacm_probe_must_see_the_device_policy():
    assert judge.ttyacm(TTYACM.replace("(ttyUSB): EPERM", "(ttyUSB): ENXIO"))


@pytest.mark.parametrize("out, before", [
    (AT_BOOT.replace("i2c-dev: in modules-load\n", ""), PLAIN_DEBIAN),   # loaded by something else at boot
    (AT_BOOT.replace("i2c-dev: loaded\n", ""), PLAIN_DEBIAN),            # listed, not loaded
    (AT_BOOT, "before install: i2c-dev loaded"),                         # the harness had loaded it
    (AT_BOOT, ""),                                                       # never looked at
])
def test_the_boot_check_wants_i2c_dev_from_the_installer_alone(out, before):
    """Plain Debian on a Pi loads no i2c-dev (only raspi-config does): /dev/i2c-1 at boot counts
    only when the guest had none before the installer and the installer's entry loaded it."""
    assert any("i2c-dev" in p for p in judge.at_boot(out, before))


@pytest.mark.parametrize("config, record, why", [
    (INSTALLED_CONFIG.replace("dtparam=i2c_arm_baudrate=400000\n", ""), RECORD, "not in config.txt"),
    (INSTALLED_CONFIG.replace("[cm4]\n", "[pi4]\n"), RECORD + "boot-line dtoverlay=i2c-gpio,bus=3\n", "not in config.txt"),
    (INSTALLED_CONFIG + "[cm5]\ndtoverlay=i2c-gpio,bus=3\n", RECORD + "boot-line dtoverlay=i2c-gpio,bus=3\n", "only in [cm5]"),
    (INSTALLED_CONFIG.replace("arm_64bit=1\n", "arm_64bit=1\n[ pi4 ]\n"), RECORD, "only in [pi4]"),
])
def test_the_boot_config_check_finds_a_line_missing_or_read_by_some_pis_only(config, record, why):
    assert any(why in p for p in judge.boot_config(config, record))


def test_a_line_in_an_all_section_after_a_models_counts_for_every_pi():
    assert judge.boot_config(PI_CONFIG + "[all]\ndtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n", RECORD) == []


def test_the_unit_runs_under_its_own_timeouts_not_a_harness_drop_ins():
    """The harness once gave the unit TimeoutStartSec=300 (the unit says 30): a box that regressed
    to a 31-300 s start passed."""
    assert TIMEOUTS == {"TimeoutStartUSec": "30s", "WatchdogUSec": "10s"}
    assert any("TimeoutStartUSec=5min" in p for p in
               judge.unit_ready({**UNIT, "TimeoutStartUSec": "5min"}, READY_LOG, PRIORITIES, TIMEOUTS))


@pytest.mark.parametrize("judgement", [
    lambda: judge.install(124, {}, 1800), lambda: judge.reinstall(124, "", "", None, 1800),
    lambda: judge.update_failure(UPDATE.replace("rc=1", "rc=124")), lambda: judge.rollback(ROLLBACK.replace("rc=1", "rc=124")),
])
def test_an_install_that_ran_out_of_time_says_so_by_name(judgement):
    assert any("timed out" in p and "install bound" in p for p in judgement())


def test_the_install_bound_scales_with_the_hosts_pace_and_never_shrinks():
    from vm.checks import INSTALL_BOUND_S, PACE_REFERENCE_S, install_bound

    assert install_bound(PACE_REFERENCE_S / 3) == INSTALL_BOUND_S
    assert install_bound(PACE_REFERENCE_S * 4) == 4 * INSTALL_BOUND_S


def test_a_pi5_on_a_current_kernel_is_the_header_chip_through_the_gpiochip4_link():
    """RP1 is gpiochip0 since Raspberry Pi OS's 6.6.45, and gpiozero opens the gpiochip4 link to it:
    the same chip as the reader's, not a different one."""
    assert judge.board_chips(CURRENT_PI5_CHIPS) == []
    elsewhere = CURRENT_PI5_CHIPS.replace("/dev/gpiochip4 -> /dev/gpiochip0", "/dev/gpiochip4 -> /dev/gpiochip4")
    assert judge.board_chips(elsewhere) == ["gpiozero took /dev/gpiochip4, not the header's /dev/gpiochip0"]
    assert judge.board_chips("pi5: header /dev/gpiochip0 x\ngpiozero: /dev/gpiochip4\n")  # no node said: no verdict


@pytest.mark.parametrize("seen, why", [
    ("selftest by: companion, groups: companion gpio i2c dialout\nselftest rc=0\n", "not the maker"),
    ("selftest by: root, groups: root\nselftest rc=0\n", "not the maker"),
    ("selftest by: maker, groups: maker sudo gpio i2c\nselftest rc=1\n", "maker's self-test exited 1"),
    ("selftest by: maker, groups: maker sudo gpio i2c\n", "exited without a code"),
    ("selftest by: maker, groups: maker sudo gpio\nselftest rc=0\n", "not in the i2c group"),
    ("selftest by: maker, groups: maker sudo\nselftest rc=0\n", "not in the gpio and i2c group"),
    ("selftest rc=0\n", "nobody"),
])
def test_the_makers_self_test_is_theirs_in_both_groups_and_passes(seen, why):
    """BUILD.md's form: the maker runs it in the gpio and i2c groups, and it passes; run as the
    service's user or root, or failing, it does not count."""
    assert why in " ".join(judge.maker_selftest(seen, "maker"))


@pytest.mark.parametrize("on, off, why", [
    (WEB_ON.replace("phones.conf", "other.conf"), WEB_OFF, "drop-in is not installed"),
    (WEB_ON.replace("PrivateNetwork=no", "PrivateNetwork=yes"), WEB_OFF, "no network"),
    (WEB_ON.replace("page: 200", "page: 403"), WEB_OFF, "did not get the page"),
    (WEB_ON.replace("101 Switching", "403 Forbidden"), WEB_OFF, "websocket was not accepted"),
    (WEB_ON, WEB_OFF.replace("PrivateNetwork=yes", "PrivateNetwork=no"), "still on the network"),
    (WEB_ON, WEB_OFF + "page: 200 10 bytes\n", "still reaches"),
    ("", WEB_OFF, "drop-in is not installed"),  # web_on saw nothing
])
def test_the_web_profile_check_fails_on_each_missing_part(on, off, why):
    assert why in " ".join(judge.web_profile(on, off))
