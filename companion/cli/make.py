"""For the maker of a box: check and draw its hardware ``profile``, check and print Pictomania
``words`` decks, and ``selftest`` the built box button by button."""

from __future__ import annotations

import argparse
import sys
from contextlib import closing, suppress
from pathlib import Path

from .common import fail, load_user_decks, output_folder, serve_or_play, speed_option, unwritable


def _check_files(paths: list[str], load, error: type[Exception], describe, warnings) -> int:
    """Load each file; print ``PATH: ok (what it holds)`` and any warnings, or every problem;
    2 if any was bad."""
    status = 0
    for path in paths:
        try:
            loaded = load(path)
        except error as e:
            print(f"companion: {e}", file=sys.stderr)
            status = 2
            continue
        print(f"{path}: ok ({describe(loaded)})")
        for warning in warnings(loaded):
            print(f"  warning: {warning}")
    return status


def cmd_profile_check(args: argparse.Namespace) -> int:
    from ..profile import ProfileError, load_profile, warnings

    return _check_files(args.files, load_profile, ProfileError,
                        lambda p: f"{p.name}, {len(p.stations)} stations, backend {p.backend}"
                                  + (f", button board on {p.board.port}" if p.board else ""), warnings)


def cmd_profile_overlays(args: argparse.Namespace) -> int:
    """The config.txt lines a profile's display buses need (for systemd/install.sh), one a line."""
    from ..profile import ProfileError, boot_config, load_profile, unknown_buses, why_no_overlays

    try:
        profile = load_profile(args.file)
    except ProfileError as e:
        return fail(str(e))
    lines, unknown = boot_config(profile), unknown_buses(profile)
    for line in lines:
        print(line)
    for port in unknown:
        print(f"companion: display bus {port} is not one the installer sets up: provide /dev/i2c-{port} "
              "yourself (e.g. an i2c-mux overlay)", file=sys.stderr)
    if not lines and not unknown:  # stdout stays the lines alone (the installer reads them); the why for a person
        print(f"no config.txt lines for {args.file}: {why_no_overlays(profile)}", file=sys.stderr)
    return 0


def cmd_profile_diagram(args: argparse.Namespace) -> int:
    from ..diagram import wiring_svg, wiring_table
    from ..profile import ProfileError, load_profile

    try:
        profile = load_profile(args.file)
    except ProfileError as e:
        return fail(str(e))
    out = Path(args.out)
    if problem := output_folder("--out", out):
        return fail(problem)
    for name, text in (("wiring.svg", wiring_svg(profile)), ("wiring.md", wiring_table(profile))):
        try:
            (out / name).write_text(text, encoding="utf-8")
        except OSError as e:
            return fail(unwritable("--out", out, e))
        print(f"wrote {out / name}")
    return 0


def cmd_words_check(args: argparse.Namespace) -> int:
    from ..words import DeckError, deck_warnings, load_decks

    return _check_files(args.files, load_decks, DeckError,
                        lambda decks: ", ".join(f"{d.name}: {len(d.cards)} cards" for d in decks), deck_warnings)


def cmd_pack_check(args: argparse.Namespace) -> int:
    from ..games.quiz_packs import PackError, read_pack

    def described(pack) -> str:
        categories = pack.categories()
        return f"{len(pack.questions)} questions" + (f", {len(categories)} categories: {', '.join(categories)}"
                                                     if categories else "")

    return _check_files(args.files, read_pack, PackError, described, lambda pack: [])


def cmd_words_print(args: argparse.Namespace) -> int:
    from .. import words
    from ..words.sheet import save
    from ..words.vector import CardsError

    if problem := load_user_decks(args):
        return fail(problem)
    try:
        chosen = [words.find(name) for name in args.deck] if args.deck else list(words.catalogue().values())
    except KeyError as e:
        return fail(e.args[0])
    try:
        written = save(chosen, args.out)
    except CardsError as e:
        return fail(str(e))
    except OSError as e:
        return fail(unwritable("--out", args.out, e))
    for path in written:
        print(f"wrote {path}")
    return 0


def cmd_selftest(args: argparse.Namespace) -> int:
    """Walk a maker through every button, display and buzzer cue under display load; exit 1 if a
    button never reported a press, a display is not working, or the GPIO latency bound does not
    cover the delays measured."""
    from ..daemon import Daemon
    from ..logs import setup_logging
    from ..profile import ProfileError, load_profile
    from ..script import ScriptError, load_script
    from ..selftest import LOAD_FRAME_NS, SelfTest
    from ..wiring import NoGpio

    setup_logging()
    try:
        profile = load_profile(args.profile)
        presses = load_script(args.script, profile.station_keys()) if args.script else None
    except (ProfileError, ScriptError, OSError) as e:
        return fail(str(e))
    if presses is None and profile.backend == "mock":
        return fail('nobody can press the buttons of a profile with backend = "mock": give the self-test '
                    "a --script of presses, or use the box's own profile")
    selftest = SelfTest(tuple(st.name for st in profile.stations), frame_every_ns=LOAD_FRAME_NS)
    try:
        daemon = Daemon(profile, referee=selftest)
    except NoGpio as e:
        return fail(str(e))
    print("Press every button on every station; each display shows its station number while "
          "every display is written as fast as the bus allows, to measure how late presses arrive. "
          "Ctrl-C to stop.", flush=True)
    light = None
    with closing(daemon):
        with suppress(KeyboardInterrupt):  # Ctrl-C ends the button test and reports
            serve_or_play(daemon, presses, args.speed)
        dead = daemon.box.displays.down()
        if daemon.box.light_sensors is not None and not dead:
            light = _light_check(daemon, profile)
    print(selftest.report(dead))
    covered, delivery = daemon.delivery.check()
    print(delivery)
    if light is not None:
        print(light.text)
    return 0 if selftest.complete and covered and not dead and (light is None or light.window_ms) else 1


def _light_check(daemon, profile):
    """The panels' light, measured by the box's light sensors over many reveals."""
    from ..adapters.gpiolink import START_NS, ReaderWait
    from ..adapters.lightsensor import LIGHT_WAIT_NS
    from ..games.options import SCREEN_TIE_WINDOW_MS
    from ..selftest import LIGHT_REVEALS, BoardLight, bound_wait, light_report, measure_light

    print(f"Measuring every panel's light: {LIGHT_REVEALS} reveals (the panels blink). Ctrl-C to stop.", flush=True)
    names = tuple(st.name for st in profile.stations)
    waits = []
    board = reading = None
    if profile.light_channels():  # the board's link: read here, and waited for
        board = BoardLight(daemon.box.board.port, daemon.board_session, daemon.box.light_sensors)
        waits.append(board.wait)
    if profile.light_sensor_pins():
        if daemon.box.gpio_reader is not None:  # the loop has stopped: the reader is read here, and waited for
            reading = ReaderWait(daemon.box.gpio_reader, daemon.gpio_session)
            waits.append(lambda stamped: reading.past(max(stamped.values()) + LIGHT_WAIT_NS, START_NS / 1e9))
        else:
            waits.append(bound_wait)

    def wait(stamped: dict[int, int]) -> None:
        """Until every source of the sensors' edges has sent those of the light's wait (a reader
        just started again may take as long as it is given at the box's start)."""
        for each in waits:
            each(stamped)

    try:
        samples = measure_light(daemon.box.displays, daemon.box.light_sensors, len(names), LIGHT_REVEALS, wait)
    except KeyboardInterrupt:
        return None
    finally:
        for source in (board, reading):
            if source is not None:
                source.close()
    return light_report(samples, names, SCREEN_TIE_WINDOW_MS)


def add_selftest(sub: argparse._SubParsersAction) -> None:
    test = sub.add_parser("selftest", help="check every button, display and buzzer cue of a built box",
                          description="Shows each station's number on its display, plays every buzzer cue in "
                                      "turn and reports each button as it is pressed; a station's light comes "
                                      "on once all its buttons were pressed, while every display is kept busy to measure how "
                                      "late presses arrive. Exits 1 if a button never reported a press, a "
                                      "display is not working or, with the fallback timing.gpio_watermark = "
                                      "\"bound\", timing.gpio_latency_ms does not cover the delays measured. "
                                      "With a light sensor on every station it then measures each panel's light "
                                      "over many reveals and says what tie window the box supports (exit 1 if a "
                                      "sensor saw nothing).")
    test.add_argument("--profile", required=True, help="hardware profile (TOML)")
    test.add_argument("--script", help="press from a script instead (simulated pins)")
    speed_option(test)
    test.set_defaults(func=cmd_selftest)


def _with_check(sub: argparse._SubParsersAction, name: str, about: tuple[str, str], check: tuple[str, str],
                func) -> argparse._SubParsersAction:
    """A family of file commands (``profile``, ``words``, ``pack``) with its ``check FILE...``:
    the family's and the check's help and description; the family's actions, to add more to."""
    family = sub.add_parser(name, help=about[0], description=about[1])
    actions = family.add_subparsers(dest=f"{name}_command", metavar="ACTION", required=True)
    checking = actions.add_parser("check", help=check[0], description=check[1])
    checking.add_argument("files", nargs="+")
    checking.set_defaults(func=func)
    return actions


def add_profile(sub: argparse._SubParsersAction) -> None:
    prof_sub = _with_check(sub, "profile", (
        "hardware profile tools", "Hardware profiles (TOML) say which pin or board channel is which station's "
                                  "button, display and light; see hardware/README.md."), (
        "validate profiles; exit 2 naming every bad field",
        "Checks each profile completely and prints every problem, each naming its field (pins used twice, "
        "unknown fields, bad values)."), cmd_profile_check)
    diagram = prof_sub.add_parser("diagram", help="write a wiring picture (SVG) and table (Markdown) of a profile",
                                  description="Draws the profile's wiring: every station key's GPIO pin or board "
                                              "channel, the displays and their multiplexer channels, the buzzer "
                                              "and the lights, as wiring.svg and the same as a table in wiring.md.")
    diagram.add_argument("file")
    diagram.add_argument("--out", default="wiring", help="folder for wiring.svg and wiring.md (default wiring)")
    diagram.set_defaults(func=cmd_profile_diagram)
    overlays = prof_sub.add_parser("overlays", help="print the /boot/firmware/config.txt lines a profile's buses need",
                                   description="Prints the dtoverlay lines the profile's extra display buses "
                                               "(I2C on GPIO pins) need in /boot/firmware/config.txt; for a "
                                               "profile on the Pi's own I2C bus, none, and why on stderr.")
    overlays.add_argument("file")
    overlays.set_defaults(func=cmd_profile_overlays)


def add_words(sub: argparse._SubParsersAction) -> None:
    words_sub = _with_check(sub, "words", (
        "Pictomania word decks: check your own, print cards",
        "Word decks for Pictomania: check a deck file of your own (TOML [[deck]] tables: name, title, cards "
        "of seven words each) or print cards."), (
        "validate deck files; exit 2 naming every problem",
        "Checks each deck file and prints every problem, each naming its deck and card."), cmd_words_check)
    wprint = words_sub.add_parser("print", help="render word cards as a printable A4 PDF (or PNGs)",
                                  description="Word cards, eight to an A4 page, ready to cut out: a vector "
                                              "PDF (needs the cards extra: pip install \".[cards]\") or, "
                                              "for a .png name, one 150 dpi PNG per page.")
    wprint.add_argument("--deck", action="append", help="a deck to print (repeat); default: all")
    wprint.add_argument("--decks", help="a file of your own decks to add")
    wprint.add_argument("--out", default="pictomania-cards.pdf", help="a .pdf file, or a .png name for one PNG per page")
    wprint.set_defaults(func=cmd_words_print)


def add_pack(sub: argparse._SubParsersAction) -> None:
    _with_check(sub, "pack", (
        "quiz question packs: check your own",
        "Question packs for the quiz (docs/QUIZ.md): a CSV file whose first row names the columns question, "
        "answer and optionally category, points, time, notes; or the same as a JSON list of objects."), (
        "validate packs; exit 2 naming every bad row by its line",
        "Checks each pack and prints one sentence for each bad row, naming its line; exit 2 if any pack "
        "is bad."), cmd_pack_check)
