"""The frozen-card benchmark as ``python -m bench`` calls it: in a folder of its temporary one
that nobody made (it crashed there with FileNotFoundError while ``python -m bench.frozen_card``,
given the temporary folder itself, worked)."""

from bench.frozen_card import _cannot, frozen_card


def test_the_frozen_card_benchmark_runs_in_a_folder_not_yet_made(tmp_path):
    folder = tmp_path / "frozen"
    figures = frozen_card(folder, 1.0)
    if _cannot(tmp_path) is not None:  # no root or no loop devices: said, and nothing measured
        assert figures == {"frozen_card_cpu_percent": None, "frozen_card_idle_cpu_percent": None,
                           "frozen_card_skipped": _cannot(tmp_path)}
        return
    assert figures["frozen_card_seconds"] == 1.0
    assert 0 <= figures["frozen_card_cpu_percent"] and 0 <= figures["frozen_card_idle_cpu_percent"]
    assert (folder / "card.img").stat().st_size == 8 << 20
