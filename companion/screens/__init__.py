"""Screens: pure functions from what a station may see to a 128x64 one-bit PIL image.

Nothing here reads the clock, the game journal or the hardware; the same image goes to the OLED,
the simulator and the tests.
"""
