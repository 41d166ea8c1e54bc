"""As played: the real box process (``companion run`` with a [web] profile and a script) runs a quiz
whose two phone buzzers are phones on the network (aiohttp clients); the journal it wrote is read
back by ``companion replay``, with the phone's error on its race."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import aiohttp

from bench.phoneclient import PhoneClient

from boxprocess import running_box
from helpers import PATIENCE_S, until
from phonebox import profile_with_phones

ROOT = Path(__file__).resolve().parent.parent
OKS = "".join(f"{0.2 * (i + 1):.1f} 1 ok\n" for i in range(14))
SCRIPT = f"""# the quiz, every station seated, its options as they are; the host arms at 8 s (the
# phones joined long before), Ben buzzes 3 s after the cue, the host says right at 13 s.
{OKS}
8.0  1 slap
11.0 2 slap
13.0 1 ok
"""


def quiz_box(tmp_path: Path) -> Path:
    return profile_with_phones(tmp_path, [("Host", {"slap": 4, "left": 17, "ok": 27, "right": 22}),
                                          ("Ben", {"slap": 5})],
                               [(2, "Zoe", True), (3, "Yan", True)])


async def play(tmp_path: Path) -> tuple[int, str, dict]:
    script = tmp_path / "quiz.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    async with running_box(quiz_box(tmp_path), script, tmp_path / "games", "--game", "quiz", "--seed", "4") as box, \
            aiohttp.ClientSession() as session:
        zoe, yan = PhoneClient(session, box.url), PhoneClient(session, box.url, offset_ms=-5e6)
        assert (await zoe.join(box.room, "buzzer", "Zoe"))["keys"] == ["slap"]
        assert (await yan.join(box.room, "buzzer", "Yan"))["seat"] == 4
        armed = lambda: zoe.view is not None and zoe.view["footer"].endswith("right skips")  # noqa: E731
        await until(armed)
        # a human's reaction after the cue (a touch stamped within the touch latency of it may have
        # met the glass before it: a false start), well before Ben, 3 s after it
        await asyncio.sleep(0.2)
        await zoe.tap()
        await until(lambda: zoe.view["footer"].endswith("ok right, left wrong"))
        answering = zoe.view["heading"]
        code = await asyncio.wait_for(box.process.wait(), PATIENCE_S)
        await zoe.close()
        await yan.close()
    return code, answering, zoe.view


def test_a_quiz_with_phone_buzzers_played_by_the_real_box_process_and_replayed(tmp_path):
    code, answering, _ = asyncio.run(play(tmp_path))
    assert code == 0
    assert "Zoe" in answering
    [journal] = (tmp_path / "games").glob("*quiz.jsonl")
    result = subprocess.run([sys.executable, "-m", "companion", "replay", "--json", str(journal)],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    replayed = json.loads(result.stdout)
    [race] = replayed["races"]
    assert race["winners"] == [2]  # Zoe, the phone, answered first
    assert 0 < race["error_ms"][2] < 50  # the phone's margin on loopback, journaled beside its reaction time
    assert race["reaction_ms"][2] < 2000 and race["error_ms"][0] is None  # the host is not in the race
    text = subprocess.run([sys.executable, "-m", "companion", "replay", str(journal)],
                          capture_output=True, text=True, cwd=ROOT)
    assert text.returncode == 0 and "Zoe" in text.stdout
