"""``python -m bench [--quick] [--json]``: every benchmark, with baselines measured in the same run.

Figures are medians where a measurement repeats; compare them with the baseline beside them,
not with another machine's numbers.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
from pathlib import Path

from companion.profile import Timing

from . import (bots, fairness, frozen_card, latency, phonedoor, phones, plot, process, quiz, replay_scaling, reveal,
               saving, tablescreen, throughput, vm_delivery, webflood)
from .gpio_model import MS

OUT = Path(__file__).resolve().parent / "out"
OLD_GPIO_BOUND_MS = 1.0
"""The GPIO latency bound before the delivery model: the baseline of ``gpio_model_misorder_rate``."""


def run(quick: bool) -> dict:
    races = 10_000 if quick else 100_000
    ties = 3_000 if quick else 30_000
    out: dict = {"quick": quick, "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
                 "python": platform.python_version()}
    order = fairness.misorder(races)
    out.update(races=order["races"], misorder_rate_ge_100us=order["fair"],
               baseline_misorder_rate_ge_100us=order["baseline"])
    out.update(gpio_model(races))
    out.update(vm_delivery.figures(vm_cache()))
    bias = fairness.tie_bias(ties)
    out.update(tie_bias_p=bias["fair"], baseline_tie_bias_p=bias["baseline"],
               tie_counts=bias["fair_counts"], baseline_tie_counts=bias["baseline_counts"])
    out.update(quiz.misorder(races // 10))
    out.update(quiz.tie_bias(ties // 10))
    out.update(reveal.display_bias(ties))
    out.update(reveal.reveal_skew())
    out.update(reveal.light(2_000 if quick else 20_000, races // 5))
    out["frame_pack_ms"] = reveal.frame_pack_ms(100 if quick else 1000)
    out.update(latency.decision_latency(100 if quick else 1000))
    out["events_per_s"] = throughput.events_per_s(20_000 if quick else 200_000)
    out.update(bots.triangle_on_table(60 if quick else 400))
    out["bot_decision_ms"] = bots.triangle_decision_ms(300 if quick else 2_000)
    out["bot_move_ms"] = bots.other_moves_ms(100 if quick else 500)
    out.update(bots.paytoplay())
    out.update(tablescreen.table_screen(10 if quick else 50))
    out.update(phones.figures(quick))
    out.update(webflood.figures(quick))
    out.update(phonedoor.figures(quick))
    with tempfile.TemporaryDirectory() as tmp:
        out["replay_actions_per_s"] = throughput.replay_actions_per_s(Path(tmp) / "long.jsonl", 50 if quick else 300)
        out.update(process.help_ms(Path(tmp), 3 if quick else 9))
        out.update(process.daemon_run(Path(tmp), 5 if quick else 20, 3 if quick else 9))
        out.update(replay_scaling.replay_scaling(Path(tmp), 1 if quick else 3))
        out.update(saving.saving(Path(tmp) / "saving", 100 if quick else 1000))
        out.update(frozen_card.frozen_card(Path(tmp) / "frozen", 5.0 if quick else 15.0))
    return out


def vm_cache() -> Path:
    """Where ``python -m vm check`` leaves its summaries (vm/image.py's cache)."""
    from vm.image import cache_root

    return cache_root()


def gpio_model(races: int) -> dict:
    """Races on GPIO alone under :mod:`bench.gpio_model`: with the GPIO reader (no bound), at the
    fallback's default bound, and at the old 1 ms one."""
    default, old = round(Timing().gpio_latency_ms * MS), round(OLD_GPIO_BOUND_MS * MS)
    rates = fairness.gpio_model_misorder(races, (default, old))
    reader = fairness.gpio_reader_misorder(races)
    return {"gpio_model_races": races, "gpio_bound_ms": default / MS,
            "gpio_model_misorder_rate": reader["rate"], "bound_gpio_model_misorder_rate": rates[default],
            "baseline_gpio_model_misorder_rate": rates[old],
            "gpio_model_decision_p50_ms": reader["decision_p50_ms"], "gpio_model_decision_p99_ms": reader["decision_p99_ms"]}


def table(result: dict) -> str:
    rows = [
        ("misorder rate, gaps >= 100 us", f"{result['misorder_rate_ge_100us']:.4%}",
         f"{result['baseline_misorder_rate_ge_100us']:.2%} by arrival", f"{result['races']} races"),
        ("misorder rate, GPIO delivery model", f"{result['gpio_model_misorder_rate']:.4%}",
         f"{result['baseline_gpio_model_misorder_rate']:.2%} at the old {OLD_GPIO_BOUND_MS:g} ms bound",
         f"{result['gpio_model_races']} races with the GPIO reader, no bound; "
         f"{result['bound_gpio_model_misorder_rate']:.4%} at the fallback {result['gpio_bound_ms']:g} ms bound"),
        ("GPIO decision past the window (model)", f"{result['gpio_model_decision_p50_ms']:.2f} / "
         f"{result['gpio_model_decision_p99_ms']:.2f} ms", "", "p50 / p99 with the reader, delivery model"),
        ("GPIO delivery p50 / p99, model", f"{result['model_gpio_delivery_p50_ms']:.2f} / "
         f"{result['model_gpio_delivery_p99_ms']:.2f} ms", vm_row(result), "virtual Pi: emulator figures, not a Pi's"),
        ("tie bias p (chi-square)", f"{result['tie_bias_p']:.3g}", f"{result['baseline_tie_bias_p']:.3g} by arrival",
         f"wins {result['tie_counts']} vs {result['baseline_tie_counts']}"),
        ("quiz, 16 on GPIO+board: misorder", f"{result['quiz_misorder_rate_ge_100us']:.4%}",
         f"{result['baseline_quiz_misorder_rate_ge_100us']:.2%} by arrival", f"{result['quiz_races']} races, gaps >= 100 us"),
        ("quiz tie bias p (16, drawn)", f"{result['quiz_tie_bias_p']:.3g}", f"{result['baseline_quiz_tie_bias_p']:.3g} by arrival",
         f"answers {result['quiz_tie_counts']}"),
        ("display bias p (chi-square)", f"{result['display_bias_p']:.3g}",
         f"{result['baseline_display_bias_p']:.3g} sequential", f"wins {result['display_wins']} vs {result['baseline_display_wins']}"),
        ("command skew (0xAF), 6 panels 400 kHz", f"{result['reveal_skew_ms']:.2f} ms",
         f"{result['baseline_reveal_skew_ms']:.0f} ms sequential", "bus model, exact"),
        ("light skew p50 / p99, 6 panels", f"{result['light_skew_ms']['p50']:.2f} / {result['light_skew_ms']['p99']:.2f} ms",
         f"{result['baseline_light_skew_ms']['p50']:.2f} / {result['baseline_light_skew_ms']['p99']:.2f} ms luma clock",
         "scan model; 0xAF assumed to leave the scan running"),
        ("light: races misjudged (1-30 ms)", f"{result['light_model_misjudged_rate']:.2%}",
         f"{result['baseline_light_model_misjudged_rate']:.2%} luma clock, 10 ms",
         f"window {result['light_tie_window_ms']} ms; ties {result['light_model_tie_rate']:.1%}; "
         f"with light sensors {result['light_model_misjudged_rate_with_sensors']:.2%}"),
        ("frame packing (128x64)", f"{result['frame_pack_ms']['ours']:.3f} ms",
         f"{result['frame_pack_ms']['luma']:.3f} ms luma", ""),
        ("decision latency p50 / p99", f"{result['decision_latency_p50_ms']:.2f} / {result['decision_latency_p99_ms']:.2f} ms",
         f"{result['baseline_decision_latency_p50_ms']:.1f} / {result['baseline_decision_latency_p99_ms']:.1f} ms bound",
         f"GPIO reader; edge to buzzer under frame packing, minus the {latency.WINDOW_NS // 1_000_000} ms window"),
        ("events through arbiter+referee", f"{result['events_per_s']:,.0f}/s", "", ""),
        ("journal replay", f"{result['replay_actions_per_s']:,.0f} actions/s", "", ""),
        ("Triangle hard bot on the table: lead vs 2 basic / 2 counters",
         f"{result['bot_triangle_hard_on_table']['vs_basic']['lead_per_turn']:+.2f} / "
         f"{result['bot_triangle_hard_on_table']['vs_counter']['lead_per_turn']:+.2f} pts/turn",
         f"counter vs 2 basic {result['bot_triangle_counter_on_table']['lead_per_turn']:+.2f} pts/turn",
         f"CI95 {result['bot_triangle_hard_on_table']['vs_basic']['lead_ci95']} / "
         f"{result['bot_triangle_hard_on_table']['vs_counter']['lead_ci95']}; "
         f"false statements {result['bot_triangle_hard_on_table']['false_rate']:.0%}"),
        ("Triangle bot decision p50 / p99", f"{result['bot_decision_ms']['median']:.2f} / {result['bot_decision_ms']['p99']:.2f} ms", "", ""),
        ("hard move: closest / Pay-to-Play", f"{result['bot_move_ms']['closest']:.2f} / {result['bot_move_ms']['paytoplay']:.3f} ms",
         "", "medians; Pay-to-Play once its table is solved"),
        ("Pay-to-Play solved", f"{result['paytoplay_solve_s']:.1f} s", f"{result['paytoplay_solve_no_double_pass_s']:.1f} s house rule",
         f"{result['paytoplay_value']['words']}; house rule: {result['paytoplay_value_no_double_pass']['words']}"),
        ("replay 1 MB / 10 MB journal", f"{result['replay_1mb_s']:.2f} / {result['replay_10mb_s']:.2f} s",
         f"x{result['replay_scaling']:.1f} for 10x the lines", "linear is about x10; quadratic x100"),
        ("replay 1 MB: lines' crc checked", f"{result['replay_1mb_s']:.2f} s",
         f"{result['replay_1mb_unchecked_s']:.2f} s without crc", f"x{result['replay_crc_ratio']:.2f}"),
        ("table screen: public view (loop)", f"{result['table_screen_view_ms']:.3f} ms",
         f"{result['baseline_station_panel_ms']:.3f} ms one station panel", ""),
        ("table screen: frame 720p / 1080p", f"{result['table_screen_render_720p_ms']:.1f} / "
         f"{result['table_screen_render_1080p_ms']:.1f} ms", "", "in its own thread; 1080p uncached "
         f"{result['table_screen_render_1080p_cold_ms']:.1f} ms, end chart {result['table_screen_end_1080p_ms']:.1f} ms"),
        ("companion --help", f"{result['help_ms']:.0f} ms", f"{result['python_start_ms']:.0f} ms bare python", ""),
        ("daemon ready (first frames)", f"{result['ready_ms']:.0f} ms", f"{result['python_start_ms']:.0f} ms bare python", ""),
        ("idle CPU in a game", f"{result['idle_cpu_percent']:.2f} %", "", ""),
        ("idle RSS", f"{result['rss_mb']:.1f} MB", "", ""),
        ("CPU while a line waits for a frozen card",
         "-" if result["frozen_card_cpu_percent"] is None else f"{result['frozen_card_cpu_percent']:.2f} %",
         "-" if result["frozen_card_idle_cpu_percent"] is None else
         f"{result['frozen_card_idle_cpu_percent']:.2f} % idle, same game", result.get("frozen_card_skipped", "")),
    ]
    width = max(len(r[0]) for r in rows)
    lines = [f"{'measure':<{width}}  {'box':>18}  {'baseline':<26}  note", "-" * (width + 60)]
    lines += [f"{a:<{width}}  {b:>18}  {c:<26}  {d}" for a, b, c, d in rows]
    return "\n".join(lines)


def vm_row(result: dict) -> str:
    """The virtual Pi's delivery figures from its last check, if one ran (``python -m vm check``)."""
    if result.get("vm_gpio_delivery_p50_ms") is None:
        return "no virtual Pi check yet"
    return (f"{result['vm_gpio_delivery_p50_ms']:.2f} / {result['vm_gpio_delivery_p99_ms']:.2f} ms "
            f"virtual Pi ({result['vm_release']})")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a run under a minute")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    result = run(args.quick)
    print(json.dumps(result) if args.json else table(result))
    note = plot.misorder_vs_bound(OUT / "misorder-vs-bound.png", 5_000 if args.quick else 20_000,
                                  Timing().gpio_latency_ms)
    print(note, file=sys.stderr)


if __name__ == "__main__":
    main()
