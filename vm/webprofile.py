"""The virtual Pi's [web] profile: the maker installs with phones on, a phone reaches the box, and
the phones drop-in goes when the profile turns web off (issue 47, item 5).

No install of its own: the check's first install is the maker's with a profile of their own, the
default build's (mux-3.toml) with ``[web]`` on (port :data:`vm.judge.WEB_PORT`), and the reinstall
that follows is the maker's after they turned it off in /etc/companion/profile.toml, which the
installer keeps and reads. The guest has no network device: the phone is vm/inguest/phone.py on
the guest's loopback, which the drop-in lets through (``IPAddressAllow=localhost``) and the web
companion answers (``bind = "lan"`` answers loopback peers).
"""

from __future__ import annotations

from vm import judge
from vm.checks import WAIT_ACTIVE, Run, as_maker, one_line

PROFILE = "~/phones.toml"
MAKE_PROFILE = as_maker(f"cp /share/src/hardware/profiles/mux-3.toml {PROFILE} && "
                        f"printf '\\n[web]\\nenabled = true\\nport = {judge.WEB_PORT}\\n' >> {PROFILE}")
"""The maker's phones profile, outside the tree (an update replaces the tree)."""
WEB_OFF = as_maker("sudo sed -i 's/^enabled = true$/enabled = false/' /etc/companion/profile.toml && "
                   "grep -A2 '^\\[web\\]' /etc/companion/profile.toml")
PHONE = r"""
wait_active 120 || echo "the service is not active"
d=DROP_IN
if [ -e "$d" ]; then echo "drop-in: $d"; else echo "drop-in: none"; fi
echo "network: PrivateNetwork=$(systemctl show companion.service -p PrivateNetwork --value)"
python3 /share/tools/phone.py PORT WAIT
"""


def phone_script(wait_s: float) -> str:
    """The guest's job: what a phone finds, waiting up to ``wait_s`` for the page (0: one try).
    Filled by replace, not str.format: WAIT_ACTIVE's shell braces are not fields."""
    return WAIT_ACTIVE + (PHONE.replace("DROP_IN", judge.PHONES_DROP_IN).replace("PORT", str(judge.WEB_PORT))
                          .replace("WAIT", str(wait_s)))


def phone(run: Run, wait_s: float) -> str:
    return run.guest.must(phone_script(wait_s), "phone", wait_s + 200)


def web_on(run: Run) -> None:
    """After the first install, with phones on; then the maker turns them off, whatever was seen
    (the panels' check, later, draws the lobby without a room code)."""
    try:
        run.seen["web_on"] = phone(run, 120).strip()
        run.summary["findings"]["web_on"] = one_line(run.seen["web_on"])
    finally:
        run.summary["findings"]["web_turned_off"] = one_line(run.guest.must(WEB_OFF, "web-off", 60))


def web_off(run: Run) -> None:
    """After the reinstall with web off: judged with what web_on saw."""
    off = phone(run, 0)
    run.summary["findings"]["web_off"] = one_line(off)
    problems = judge.web_profile(run.seen.get("web_on", ""), off)
    if problems:
        raise RuntimeError("; ".join(problems))
    run.summary["web_profile_ok"] = True
