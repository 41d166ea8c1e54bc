"""The web companion: phones on the box's network join by the room code on the TV, watch the table
screen's public view, or take a phone station (a seat with no physical station) and play it.

It runs behind a wall, in a process of its own at normal priority (:mod:`.wall`, :mod:`.child`,
:mod:`.pipe`), on its own asyncio loop (:mod:`.server`, aiohttp); the frames a phone may send are
checked in :mod:`.messages`, the room code and seat tokens kept in :mod:`.room`, and each phone's
clock mapped to the box's with its error in :mod:`.phoneclock`. The protocol is
``docs/PHONE-PROTOCOL.md``.
"""
