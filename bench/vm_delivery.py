"""The virtual Pi's measured GPIO delivery delays, beside the model's (bench/gpio_model.py).

``python -m vm check`` measures edge-to-daemon delivery through a real kernel path (gpio-sim ->
lgpio -> gpiozero -> the daemon, under the self-test's display load) and saves its summary as
``last-check-<release>-<board>.json`` in its cache (``$XDG_CACHE_HOME/companion-vm``). When such a file
exists, the bench reports its figures with the model's; it never boots a guest itself. They are
emulator figures (QEMU's TCG on whatever machine ran the check), not a Raspberry Pi's: the
model, fitted to measurements on Pis, is what the latency bound rests on.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from .gpio_model import GpioDelivery, quantiles

FIELDS = ("vm_gpio_delivery_p50_ms", "vm_gpio_delivery_p99_ms", "vm_gpio_delivery_max_ms",
          "vm_gpio_delivery_stress_p50_ms", "vm_gpio_delivery_stress_p99_ms", "vm_gpio_delivery_stress_max_ms")


def last_check(cache: Path) -> dict | None:
    """The newest saved check with delivery figures, or None."""
    found = []
    for path in cache.glob("last-check-*.json"):
        try:
            summary = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if summary.get("vm_gpio_delivery_p50_ms") is not None:
            found.append((path.stat().st_mtime, summary))
    return max(found, key=lambda f: f[0])[1] if found else None


def figures(cache: Path, samples: int = 20_000) -> dict:
    """The model's p50/p99 always; the virtual Pi's, with its release, when a check saved them."""
    p50, p99 = quantiles(GpioDelivery().delay_ns, random.Random(1), samples, (0.5, 0.99))
    out: dict = {"model_gpio_delivery_p50_ms": round(p50, 3), "model_gpio_delivery_p99_ms": round(p99, 3)}
    summary = last_check(cache)
    if summary is not None:
        out["vm_release"] = summary.get("release")
        out.update({key: summary.get(key) for key in FIELDS if summary.get(key) is not None})
    return out
