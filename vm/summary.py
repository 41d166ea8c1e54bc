"""The check's result: one JSON object, its exit code and its lines for a person.

Every check is a key that starts false and turns true only when the check ran and passed, so a
check that could not run (an earlier stage failed, a timeout) reads as false with its reason in
``reasons``, never as passed. Figures are emulator figures: QEMU's TCG on a shared machine, never
a Raspberry Pi's.
"""

from __future__ import annotations

import json

CHECKS = (
    "install_ok", "boot_config_ok", "reinstall_ok", "update_failure_keeps_old", "rollback_ok", "uninstall_ok", "unit_ready",
    "watchdog_ok", "resumed_after_kill", "gpio_game_matches_mock", "panels_ok", "sensor_lines_ok",
    "selftest_ok", "ttyacm_modules_load_fix_ok", "boot_ok",
    "board_chips_ok", "maker_selftest_ok", "web_profile_ok",
)
FIGURES = ("vm_gpio_delivery_p50_ms", "vm_gpio_delivery_p99_ms")
REQUIRED = ("release",) + CHECKS + FIGURES + ("seconds",)


def new(release: str, board: str = "pi4", arch: str = "amd64") -> dict:
    summary: dict = {"release": release, "board": board, "arch": arch}
    summary.update({key: False for key in CHECKS})
    summary.update({key: None for key in FIGURES})
    summary.update({"seconds": 0.0, "stage_seconds": {}, "reasons": {}, "findings": {}})
    return summary


def fail(summary: dict, key: str, reason: str) -> None:
    """Mark a check false with why; the first reason given for a key is kept."""
    summary[key] = False
    summary["reasons"].setdefault(key, reason)


def exit_code(summary: dict) -> int:
    """0 only when every check passed and the delivery figures were measured."""
    if any(summary.get(key) is not True for key in CHECKS):
        return 1
    if any(summary.get(key) is None for key in FIGURES):
        return 1
    return 0


def to_json(summary: dict) -> str:
    return json.dumps(summary, indent=2, sort_keys=False)


def to_text(summary: dict) -> str:
    lines = [f"virtual Pi check on {summary['release']} {summary.get('arch', 'amd64')}, "
             f"{summary.get('board', 'pi4')} "
             f"({summary['seconds']:.0f} s, emulator figures)"]
    for key in CHECKS:
        mark = "ok  " if summary.get(key) is True else "FAIL"
        reason = summary["reasons"].get(key)
        lines.append(f"  {mark} {key}" + (f": {reason}" if reason and summary.get(key) is not True else ""))
    for key in FIGURES:
        value = summary.get(key)
        lines.append(f"  {key} = {'not measured' if value is None else f'{value:.2f}'}")
    for name, seconds in summary["stage_seconds"].items():
        lines.append(f"  stage {name}: {seconds:.1f} s")
    for name, text in summary["findings"].items():
        lines.append(f"  finding {name}: {text}")
    return "\n".join(lines)
