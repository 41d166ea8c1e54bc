"""As played, with a power cut: the real box process runs a quiz in which Zoe's phone holds station 6
and wins a point; the box is SIGKILLed, started again and the quiz resumed. Zoe's phone takes her
seat back with the token it kept (it knows only the old room code), her point kept; a stranger
with the new room code does not get her seat. The quiz host's phone, which took the role with the
PIN of the first start, hosts the resumed quiz with its token though the box made a new PIN."""

from __future__ import annotations

import asyncio
import json
import re

from bench.phoneclient import PhoneClient

from boxprocess import running_box, session_from
from helpers import PATIENCE_S, until
from phonebox import profile_with_phones

OKS = "".join(f"{0.2 * (i + 1):.1f} 1 ok\n" for i in range(14))
FIRST = f"""# the quiz, every station seated; the host arms at 8 s, says right at 13 s (Zoe buzzed at once)
{OKS}8.0 1 slap
13.0 1 ok
600 1 ok
"""
AGAIN = "# the host resumes the interrupted quiz\n1.0 1 ok\n600 1 ok\n"


def zoe_points(view) -> int | None:
    if view is None or "Zoe" not in view["names"] or not view["scores"]:
        return None
    return view["scores"][view["names"].index("Zoe")]


def pin_of(box) -> str:
    """The host's PIN, as the box logs it (and its host's panel shows it)."""
    return re.search(r"joins with the PIN (\d+)", "".join(box.logged("PIN"))).group(1)


def test_a_phone_seat_survives_a_power_cut_and_never_goes_to_a_stranger(tmp_path):
    profile = profile_with_phones(tmp_path, [("Host", {"slap": 4, "left": 17, "ok": 27, "right": 22}),
                                             ("Ben", {"slap": 5}), ("Cy", {"slap": 6}), ("Dee", {"slap": 13}),
                                             ("Eve", {"slap": 19})], [(5, "Zoe", True)])
    first, again = tmp_path / "first.txt", tmp_path / "again.txt"
    first.write_text(FIRST)
    again.write_text(AGAIN)
    journals = tmp_path / "games"

    async def scenario():
        async with session_from("127.0.0.1") as ours, session_from("127.0.0.2") as theirs:
            async with running_box(profile, first, journals, "--game", "quiz", "--seed", "4") as box:
                zoe = PhoneClient(ours, box.url)
                welcome = await zoe.join(box.room, "buzzer", "Zoe")
                assert welcome["seat"] == 6
                host = PhoneClient(ours, box.url)
                hosting = await host.join(box.room, "host", pin=pin_of(box))
                assert hosting is not None, host.refused
                old_pin = pin_of(box)
                await host.close()
                await until(lambda: zoe.view is not None and zoe.view["footer"].endswith("right skips"))
                # a human's reaction after the cue: a touch stamped within the touch latency of it
                # may have met the glass before it (a false start)
                await asyncio.sleep(0.2)
                await zoe.tap()
                await until(lambda: zoe_points(zoe.view) == 1)  # shown once journaled
                old_room = box.room
                box.kill()
                await asyncio.wait_for(box.process.wait(), PATIENCE_S)
                await zoe.close()
            async with running_box(profile, again, journals, "--seed", "4") as box:
                assert box.room != old_room
                stranger = PhoneClient(theirs, box.url)
                assert await stranger.join(box.room, "buzzer", "Max") is None
                assert "taken" in stranger.refused
                asking = PhoneClient(theirs, box.url)
                assert await asking.join(box.room, "buzzer", "Max", seat=6) is None
                back = PhoneClient(ours, box.url)
                welcome = await back.join(old_room, "buzzer", "Zoe", token=welcome["token"])
                assert welcome is not None, back.refused
                assert welcome["seat"] == 6
                await until(lambda: zoe_points(back.view) == 1)  # the quiz resumed, her point kept
                assert pin_of(box) != old_pin
                guessing = PhoneClient(theirs, box.url)  # the old PIN without the token is no way in
                assert await guessing.join(box.room, "host", pin=old_pin) is None
                host = PhoneClient(ours, box.url)
                rehosting = await host.join(old_room, "host", token=hosting["token"])
                assert rehosting is not None, host.refused
                await until(lambda: host.host_page is not None and host.host_page["quiz"])  # once resumed
                assert host.host_page["heading"] == "Q2/10", host.host_page  # the night goes on
                await host.close()
                await back.close()
            kept = json.dumps([json.loads(p.read_text()) for p in journals.parent.rglob("*.json")])
            assert welcome["token"] not in kept and hosting["token"] not in kept
            assert welcome["token"] not in json.dumps([json.loads(p.read_text()) for p in journals.glob("*.json")])

    asyncio.run(scenario())
