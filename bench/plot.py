"""The misorder-vs-bound plot: wrong verdicts under the GPIO delivery model against the GPIO
latency bound, for the daemon's switch interval and the interpreter's default, the profile's
default bound marked. Needs matplotlib (``pip install ".[bench]"``); without it the benchmark
says so and goes on."""

from __future__ import annotations

from pathlib import Path

from .fairness import gpio_model_misorder
from .gpio_model import BOX_SWITCH_INTERVAL_NS, MS, STOCK_SWITCH_INTERVAL_NS, GpioDelivery

BOUNDS_MS = (1, 2, 3, 4, 5, 7, 10, 12, 15, 20, 25, 30, 40, 50)


def misorder_vs_bound(path: Path, races: int, default_bound_ms: float) -> str:
    """Write the plot to ``path``; a line saying what was done (or why not)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        return f"no plot: matplotlib is missing (pip install '.[bench]'); {path} not written"
    bounds = tuple(b * MS for b in BOUNDS_MS)
    figure, axes = pyplot.subplots(figsize=(7, 4.2), dpi=100)
    for interval, style in ((BOX_SWITCH_INTERVAL_NS, "o-"), (STOCK_SWITCH_INTERVAL_NS, "s--")):
        rates = gpio_model_misorder(races, bounds, GpioDelivery(interval))
        # A zero cannot sit on a log axis: it is drawn at the resolution, 1 / races, hollow.
        floor = 1 / races
        xs = [b / MS for b in bounds]
        ys = [max(rates[b], floor) for b in bounds]
        label = f"switch interval {interval / MS:g} ms" + (" (the daemon's)" if interval == BOX_SWITCH_INTERVAL_NS else " (Python's default)")
        line, = axes.plot(xs, ys, style, label=label)
        zeros = [x for x, b in zip(xs, bounds) if rates[b] == 0]
        axes.plot(zeros, [floor] * len(zeros), "o", mfc="white", color=line.get_color())
    axes.axvline(default_bound_ms, color="black", linestyle=":", label=f"default bound {default_bound_ms:g} ms")
    axes.set_yscale("log")
    axes.set_xlabel("GPIO latency bound (timing.gpio_latency_ms), ms")
    axes.set_ylabel("wrong verdicts (first presser or tie)")
    axes.set_title(f"Misorder under the GPIO delivery model, {races:,} races per point\n"
                   f"(hollow: none seen, drawn at 1/{races:,})", fontsize=10)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    pyplot.close(figure)
    return f"wrote {path}"
