"""Adapters: the box's hardware behind small classes (gpiozero, luma, pyserial, the kernel's
GPIO lines), so the referee above them deals in plain data.

Each turns a device into the box's plain data (input events in, images and cues out) and is
constructed by :mod:`companion.wiring` from a hardware profile, with its pin factory passed in.

Three other places import hardware or UI libraries, each for one job that is not a device of
the box: :mod:`companion.wiring` picks gpiozero's pin factory (mock or lgpio) for the profile,
:mod:`companion.tablescreen.display` opens the table screen's pygame window, and
:mod:`companion.sim` is the desktop simulator's pygame window and sound.
"""
