"""The virtual Pi's pure parts, without booting anything: its command line, its summary and exit
code, the job agent's file protocol, the i2c trace decoder and the race-gap arithmetic.
(The virtual Pi itself runs as ``python -m vm check``, docs/VIRTUAL-PI.md.)"""

import json
import threading
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from companion.adapters.framepack import pages
from vm import agent, game, panels, summary, wheels
from vm.guest import Guest
from vm.__main__ import main, parser

ROOT = Path(__file__).parent.parent


# --- command line and summary ----------------------------------------------------------------------

def test_check_defaults_to_trixie_and_text():
    args = parser().parse_args(["check"])
    assert (args.release, args.json, args.keep) == ("trixie", False, False)
    assert parser().parse_args(["check", "--release", "bookworm", "--json"]).release == "bookworm"


def test_an_unknown_release_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        parser().parse_args(["check", "--release", "buster"])
    assert e.value.code == 2
    assert "invalid choice: 'buster'" in capsys.readouterr().err


def passed(release="trixie") -> dict:
    s = summary.new(release)
    s.update({key: True for key in summary.CHECKS})
    s.update({key: 1.0 for key in summary.FIGURES})
    return s


def test_a_new_summary_has_every_key_and_fails():
    s = summary.new("bookworm")
    assert set(summary.REQUIRED) <= set(s)
    assert s["release"] == "bookworm" and not any(s[k] for k in summary.CHECKS)
    assert summary.exit_code(s) == 1


def test_exit_code_is_0_only_when_every_check_passed_and_figures_were_measured():
    assert summary.exit_code(passed()) == 0
    for key in summary.CHECKS:
        s = passed()
        summary.fail(s, key, "broken")
        assert summary.exit_code(s) == 1, key
    s = passed()
    s["vm_gpio_delivery_p99_ms"] = None
    assert summary.exit_code(s) == 1


def test_the_first_reason_for_a_failed_check_is_kept_and_shown():
    s = passed()
    summary.fail(s, "panels_ok", "panel 3 was sent no frame")
    summary.fail(s, "panels_ok", "a later consequence")
    assert s["reasons"]["panels_ok"] == "panel 3 was sent no frame"
    text = summary.to_text(s)
    assert "FAIL panels_ok: panel 3 was sent no frame" in text and "ok   install_ok" in text
    assert json.loads(summary.to_json(s))["panels_ok"] is False


def test_main_prints_json_and_exits_with_the_summary_code(monkeypatch, capsys):
    import vm.run

    failed = passed("bookworm")
    summary.fail(failed, "watchdog_ok", "no ping")
    asked = []
    monkeypatch.setattr(vm.run, "run_check",
                        lambda release, tree, log, keep, board, arch: asked.append((board, arch)) or failed)
    assert main(["check", "--release", "bookworm", "--board", "pi5", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["release"] == "bookworm" and out["watchdog_ok"] is False
    monkeypatch.setattr(vm.run, "run_check",
                        lambda release, tree, log, keep, board, arch: asked.append((board, arch)) or passed())
    assert main(["check", "--arch", "arm64"]) == 0
    assert asked == [("pi5", "amd64"), ("pi4", "arm64")]


def test_the_program_check_exits_with_its_verdict(monkeypatch, capsys):
    from vm import program

    result = {"release": "trixie", "arch": "arm64", "lgpio_built_ok": True, "game_matches_host": False,
              "program_ok": False, "seconds": 1.0, "stage_seconds": {"game": 1.0},
              "reasons": {"program_ok": "arm64 told another game"}}
    monkeypatch.setattr(program, "check", lambda release, arch, tree, log, pins: result)
    assert main(["program"]) == 1
    assert "FAIL game_matches_host" in capsys.readouterr().out
    result.update(game_matches_host=True, program_ok=True, reasons={})
    assert main(["program", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["program_ok"] is True


def test_pins_reach_the_program_check_and_its_two_checks_are_listed(monkeypatch, capsys):
    from vm import program

    asked = []
    result = {"release": "trixie", "arch": "arm64", "lgpio_built_ok": True, "game_matches_host": True,
              "lgpio_called_ok": False, "pins_game_ok": True, "program_ok": False, "seconds": 1.0,
              "stage_seconds": {"pins": 30.0}, "reasons": {"lgpio_called_ok": "GPIO 18 not lgpio's"}}
    monkeypatch.setattr(program, "check", lambda release, arch, tree, log, pins: asked.append(pins) or result)
    assert main(["program", "--pins"]) == 1
    out = capsys.readouterr().out
    assert asked == [True]
    assert "FAIL lgpio_called_ok" in out and "ok   pins_game_ok" in out and "stage pins: 30.0 s" in out
    assert main(["program"]) == 1 and asked == [True, False]
    del result["lgpio_called_ok"], result["pins_game_ok"]
    assert "pins_game_ok" not in program.to_text(result)


# --- a Pi's architecture ----------------------------------------------------------------------------

def test_an_arm64_guest_is_qemus_virt_machine_with_the_boards_own_core(tmp_path):
    pi5 = Guest(tmp_path, tmp_path, tmp_path, board="pi5", arch="arm64").command()
    assert pi5[:2] == ["qemu-system-aarch64", "-machine"] and pi5[pi5.index("-cpu") + 1] == "cortex-a76"
    assert "console=ttyAMA0" in pi5[pi5.index("-append") + 1]
    pi4 = Guest(tmp_path, tmp_path, tmp_path, board="pi4", arch="arm64").command()
    assert pi4[pi4.index("-cpu") + 1] == "cortex-a72"
    pc = Guest(tmp_path, tmp_path, tmp_path).command()
    assert pc[0] == "qemu-system-x86_64" and "console=ttyS0" in pc[pc.index("-append") + 1]


def test_a_guest_that_went_down_shows_its_kernels_first_report_not_only_registers(tmp_path):
    guest = Guest(tmp_path, tmp_path, tmp_path)
    lines = [f"[  1.{i:06d}] boot line {i}" for i in range(50)]
    lines += ["[  362.69] BUG: kernel NULL pointer dereference, address: 0000000000000008",
              "[  362.69] RIP: 0010:some_handler+0x1c/0x80"]
    lines += [f"[  362.70] R{i:02d}: 0000000000000000" for i in range(40)]
    lines += ["[  362.71] Kernel panic - not syncing: Fatal exception in interrupt"]
    guest.console_log.write_text("\n".join(lines) + "\n")
    shown = guest.console_tail().splitlines()
    assert "BUG: kernel NULL pointer dereference" in shown[2] and "some_handler" in shown[3]
    assert shown[-1].endswith("Fatal exception in interrupt") and len(shown) < 70
    assert not any("boot line" in line for line in shown)


def test_a_guest_console_without_a_fault_shows_its_last_lines(tmp_path):
    guest = Guest(tmp_path, tmp_path, tmp_path)
    guest.console_log.write_text("".join(f"[  1.0] line {i}\n" for i in range(100)))
    shown = guest.console_tail().splitlines()
    assert shown[0] == "guest console:" and shown[1].endswith("line 70") and len(shown) == 31


def test_each_architecture_has_its_own_kernel_archive_base_and_image():
    from vm import image

    assert "linux-image-arm64" in image.packages("arm64") and "linux-headers-amd64" in image.packages("amd64")
    assert not any("{" in name for name in image.packages("arm64"))
    assert image.apt_dir("trixie", "arm64") != image.apt_dir("trixie", "amd64")
    assert image.base_dir("trixie", "arm64") != image.base_dir("trixie", "amd64")
    assert image.image_dir("trixie", "arm64") != image.image_dir("trixie", "amd64")
    command = image.base_command("trixie", "arm64", Path("/a"), Path("/b/base.tar"))
    assert "--architectures=arm64" in command and command[-3:] == ["trixie", "/b/base.tar", image.MIRROR]


def test_the_base_is_named_by_its_recipe_not_by_where_it_is_built():
    from vm import image

    here = image.base_command("trixie", "arm64", Path("/cache/apt"), Path("/cache/base.tar"))
    assert image.recipe_hash(here) != image.recipe_hash(image.base_command("bookworm", "arm64", Path("/cache/apt"),
                                                                           Path("/cache/base.tar")))
    assert image.base_dir("trixie", "arm64") == image.base_dir("trixie", "arm64")


def test_wheels_for_an_arm64_guest_are_aarch64_ones():
    cmd = wheels.download_command(ROOT, "trixie", Path("/tmp/w"), arch="arm64")
    asked = [cmd[i + 1] for i, arg in enumerate(cmd) if arg == "--platform"]
    assert asked and all(p.endswith("aarch64") for p in asked)
    assert wheels.wheel_dir(ROOT, "trixie", "arm64") != wheels.wheel_dir(ROOT, "trixie", "amd64")


def test_a_compiled_module_is_known_by_its_elf_machine():
    import platform
    import sys

    from vm import program

    arch = {"x86_64": "amd64", "aarch64": "arm64"}[platform.machine()]
    assert program.elf_machine(Path(sys.executable).resolve()) == program.ELF_MACHINES[arch]


def test_two_journals_of_one_game_tell_the_same_story_whatever_the_times(tmp_path):
    from vm import program

    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text('{"header": 1}\n{"type": "action", "action": "slap", "player": 1, "t": 1.5}\n')
    b.write_text('{"header": 2}\n{"type": "action", "action": "slap", "player": 1, "t": 9.25}\n')
    verdict = {"scores": [0, 1], "winners": [1], "over": True}
    assert program.told(a, verdict) == program.told(b, verdict)
    b.write_text('{"header": 2}\n{"type": "action", "action": "slap", "player": 0, "t": 9.25}\n')
    assert program.told(a, verdict) != program.told(b, verdict)


# --- the job agent's protocol ------------------------------------------------------------------------

def test_a_job_runs_and_its_output_and_code_come_back(tmp_path):
    agent.submit(tmp_path, "0001-hello", "echo hello; echo oops >&2; exit 3")
    assert agent.result(tmp_path, "0001-hello") is None
    agent.serve(tmp_path, once=True)
    res = agent.result(tmp_path, "0001-hello")
    assert res["rc"] == 3 and res["output"] == "hello\noops\n"
    assert json.loads((tmp_path / "ready").read_text())["uptime_s"] > 0
    assert agent.pending(tmp_path) == []


def test_jobs_run_once_in_name_order(tmp_path):
    for name in ("0002-b", "0001-a"):
        agent.submit(tmp_path, name, f"echo {name} >> {tmp_path}/order")
    assert [p.stem for p in agent.pending(tmp_path)] == ["0001-a", "0002-b"]
    agent.serve(tmp_path, once=True)
    agent.serve(tmp_path, once=True)
    assert (tmp_path / "order").read_text() == "0001-a\n0002-b\n"


def test_a_job_appears_only_whole(tmp_path):
    """The agent never sees a half-written job: it is written aside and renamed."""
    agent.submit(tmp_path, "0001-x", "true")
    assert sorted(p.name for p in (tmp_path / "jobs").iterdir()) == ["0001-x.sh"]


def test_the_agent_serves_a_job_submitted_while_it_waits(tmp_path):
    server = threading.Thread(target=agent.serve, args=(tmp_path,), daemon=True)
    server.start()
    agent.submit(tmp_path, "0001-late", "echo late")
    for _ in range(400):
        if agent.result(tmp_path, "0001-late"):
            break
        server.join(0.05)
    assert agent.result(tmp_path, "0001-late")["output"] == "late\n"


def test_job_names_keep_order_and_safe_characters():
    assert agent.job_name(7, "unplug panel/3") == "0007-unplug-panel-3"
    assert agent.job_name(12, "") == "0012-job"


# --- the panels' frames from the i2c trace ------------------------------------------------------------

def trace_of(channel: int, frame: bytes, mux: int = 0x70) -> str:
    """Trace lines as the kernel prints them for one frame luma sends through the multiplexer."""
    lines = []

    def write(address: int, data: bytes) -> None:
        hexed = "-".join(f"{b:02x}" for b in data)
        lines.append(f" python3-420 [001] ..... 12.5: i2c_write: i2c-1 #0 a={address:03x} f=0000 l={len(data)} [{hexed}]")

    write(mux, bytes([1 << channel]))
    write(0x3C, bytes([0x00, 0x21, 0, 127, 0x22, 0, 7]))
    for i in range(0, len(frame), 32):
        write(mux, bytes([1 << channel]))
        write(0x3C, bytes([0x40]) + frame[i:i + 32])
    return "\n".join(lines) + "\n"


def drawn(text: str) -> bytes:
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).text((4, 4), text, fill=1)
    return pages(image)


def test_frames_are_read_back_per_channel_and_the_last_one_counts():
    one, two, three = drawn("P1"), drawn("P2"), drawn("P2 again")
    trace = trace_of(0, one) + trace_of(1, two) + trace_of(1, three)
    sent = panels.frames(trace)
    assert sent == {0: [one], 1: [two, three]}
    assert panels.compare([one, three], sent, [0, 1]) == []
    problems = panels.compare([one, two], sent, [0, 1])
    assert len(problems) == 1 and problems[0].startswith("panel 2 (channel 1): its last frame differs")


def test_a_panel_without_a_complete_frame_is_named():
    half = trace_of(2, drawn("P3")).splitlines()[:10]
    assert panels.compare([drawn("P3")], panels.frames("\n".join(half)), [2]) == [
        "panel 1 (channel 2) was sent no complete frame"]


def test_writes_on_other_buses_are_not_counted():
    assert panels.frames(trace_of(0, drawn("P1")).replace("i2c-1", "i2c-3")) == {}


# --- the game's comparison -------------------------------------------------------------------------

def test_reaction_gaps_pair_each_race_with_its_slaps():
    edges = [[1.5, 26, True, 2, "slap"], [1.55, 26, False, 2, "slap"],
             [3.4, 4, True, 0, "slap"], [3.403, 5, True, 1, "slap"], [3.406, 26, True, 2, "slap"]]
    ms = 1_000_000
    stamps = [0, 0, 3400 * ms, 3403 * ms + 10_000, 3406 * ms]
    races = [{"action": "draw", "winners": [0, 1, 2], "onset_ms": [0.0, 1.0, 0.0],
              "reaction_ms": [400.0, 402.01, 406.0]}]
    assert game.reaction_gaps(edges, stamps, races) == [(0, 3.01, 3.01), (0, 6.0, 6.0)]


def test_verdicts_compare_actions_and_winners():
    mock = [{"action": "draw", "winners": [0, 1, 2]}, {"action": "claim", "player": 1}]
    assert game.compare(mock, [dict(r) for r in mock]) == []
    assert game.compare(mock, [mock[0], {"action": "claim", "player": 0}])


def test_the_guest_game_script_walks_the_lobby_then_plays_triangle():
    presses = game.presses(ROOT)
    assert presses[0].key in ("ok", "right") and all(p.station == 0 for p in presses[:3])
    edges = game.pin_edges(presses, ROOT / game.GUEST_PROFILE)
    assert [e[1] for e in edges if e[4] == "slap" and e[2]][:2] == [26, 4]  # Cy's false start, then Ana
    assert edges == sorted(edges, key=lambda e: e[0])


def test_the_guest_game_script_keeps_clear_of_gpio_sims_stamping_jitter():
    """gpio-sim stamps edges late and merges a line's writes that fall into one pass of its
    interrupt work (docs/VIRTUAL-PI.md): ties are written together, other slaps 40 ms or more
    apart, every press is held long, and the false start comes well before the reveal."""
    presses = game.presses(ROOT)
    assert min(p.hold_s for p in presses) >= 0.15
    slaps = sorted(p.at_s for p in presses if p.key == "slap")
    gaps = [round(b - a, 6) for a, b in zip(slaps, slaps[1:])]
    assert gaps and all(g == 0 or g >= 0.04 for g in gaps), gaps
    assert gaps.count(0) == 2  # the three-way tie
    assert slaps[1] - slaps[0] >= 1.0  # the false start, long before the tie at the reveal


# --- wheels for the guest ---------------------------------------------------------------------------

def test_wheels_are_fetched_for_the_guests_python():
    cmd = wheels.download_command(ROOT, "trixie", Path("/tmp/w"))
    assert cmd[cmd.index("--python-version") + 1] == "3.13" and cmd[cmd.index("--abi") + 1] == "cp313"
    assert "--only-binary=:all:" in cmd and any(r.startswith("gpiozero") for r in cmd)
    assert wheels.wheel_dir(ROOT, "trixie") != wheels.wheel_dir(ROOT, "bookworm")


def test_the_script_as_played_puts_each_press_at_its_kernel_time():
    edges = [[0.4, 27, True, 0, "ok"], [0.45, 27, False, 0, "ok"],
             [3.4, 4, True, 0, "slap"], [3.403, 5, True, 1, "slap"], [3.45, 4, False, 0, "slap"], [3.453, 5, False, 1, "slap"]]
    ms = 1_000_000
    base = 7_000 * ms
    stamps = [base, base + 50 * ms, base + 3000 * ms, base + 3010 * ms,  # stamped 7 ms late
              base + 3050 * ms, base + 3060 * ms]
    assert game.as_played(edges, stamps) == ("0.400000 1 ok 0.050000\n"
                                              "3.400000 1 slap 0.050000\n"
                                              "3.410000 2 slap 0.050000\n")


def trace_line(irq: int, ns: int) -> str:
    """One irq:irq_handler_entry event as the trace prints it with trace_clock=mono."""
    return f"          <idle>-0       [001] d.h2.  {ns // 10**9}.{ns % 10**9 // 1000:06d}: irq_handler_entry: irq={irq} name=companion buttons\n"


def test_each_edge_gets_its_lines_kernel_stamp_from_the_trace():
    ms = 1_000_000
    edges = [[3.4, 4, True, 0, "slap"], [3.4, 5, True, 1, "slap"], [3.6, 4, False, 0, "slap"],
             [3.6, 5, False, 1, "slap"], [3.9, 4, True, 0, "slap"], [3.9001, 4, False, 0, "slap"]]
    times = [[1000 * ms, 1000 * ms + 20_000], [1000 * ms + 30_000, 1000 * ms + 50_000],
             [1200 * ms, 1200 * ms], [1200 * ms, 1200 * ms], [1500 * ms, 1500 * ms], [1500 * ms + 100_000, 1500 * ms + 100_000]]
    irqs = "41 4\n42 5\n"
    trace = ("# tracer: nop\n" + trace_line(41, 999 * ms)  # before the game: not an edge of it
             + trace_line(41, 1005 * ms) + trace_line(42, 1011 * ms)  # written together, stamped 6 ms apart
             + trace_line(43, 1100 * ms)  # an interrupt that is not the reader's
             + trace_line(41, 1201 * ms) + trace_line(42, 1201 * ms + 7_000)
             + trace_line(41, 1502 * ms))  # a press and its release written in one pass: one edge
    stamps = game.kernel_stamps(edges, times, trace, irqs)
    assert stamps == [1005 * ms, 1011 * ms, 1201 * ms, 1201 * ms + 7_000, None, 1502 * ms]


def test_the_mock_game_plays_the_tie_the_kernel_stamped_not_the_one_written():
    """Fix for a cold run at load 7: three slaps written back to back were stamped 11 ms apart,
    past the tie window; the guest called a draw of two, the mock (on the write times) of three."""
    ms = 1_000_000
    edges = [[3.4, 4, True, 0, "slap"], [3.4, 5, True, 1, "slap"], [3.4, 26, True, 2, "slap"],
             [3.6, 4, False, 0, "slap"], [3.6, 5, False, 1, "slap"], [3.6, 26, False, 2, "slap"]]
    stamps = [0, 5 * ms, 11 * ms, 200 * ms, 200 * ms, 200 * ms]
    script = game.as_played(edges, stamps)
    assert script.splitlines() == ["3.400000 1 slap 0.200000", "3.405000 2 slap 0.195000",
                                   "3.411000 3 slap 0.189000"]


# --- the bench reports the last check's figures, never boots a guest ----------------------------------

def test_bench_takes_the_newest_check_with_delivery_figures(tmp_path):
    import os

    from bench import vm_delivery

    assert vm_delivery.last_check(tmp_path) is None
    old, new, broken = (tmp_path / f"last-check-{r}.json" for r in ("bookworm", "trixie", "sid"))
    old.write_text(json.dumps({"release": "bookworm", "vm_gpio_delivery_p50_ms": 9.0, "vm_gpio_delivery_p99_ms": 90.0}))
    new.write_text(json.dumps({"release": "trixie", "vm_gpio_delivery_p50_ms": 16.6, "vm_gpio_delivery_p99_ms": 184.8}))
    broken.write_text("{not json")
    os.utime(old, (1, 1))
    figures = vm_delivery.figures(tmp_path, samples=500)
    assert figures["vm_release"] == "trixie" and figures["vm_gpio_delivery_p99_ms"] == 184.8
    assert 0 < figures["model_gpio_delivery_p50_ms"] < figures["model_gpio_delivery_p99_ms"]
    new.write_text(json.dumps({"release": "trixie", "vm_gpio_delivery_p50_ms": None}))  # delivery not measured
    assert vm_delivery.figures(tmp_path, samples=500)["vm_release"] == "bookworm"


def test_the_phones_script_is_one_bash_can_read(tmp_path):
    """The web profile's phone job is the guest's wait_active and the phone's command, as bash
    reads it (a str.format of it once broke on wait_active's braces before reaching the guest)."""
    import subprocess

    from vm import judge, webprofile

    script = webprofile.phone_script(120)
    (tmp_path / "phone.sh").write_text(script)
    assert subprocess.run(["bash", "-n", str(tmp_path / "phone.sh")]).returncode == 0
    assert f"python3 /share/tools/phone.py {judge.WEB_PORT} 120" in script and "wait_active()" in script
    assert f"d={judge.PHONES_DROP_IN}" in script
