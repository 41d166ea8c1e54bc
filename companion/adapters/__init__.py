"""Adapters: the only code that imports hardware or UI libraries (gpiozero, luma, pygame).

Each turns a device into the box's plain data (input events in, images and cues out) and is
constructed by :mod:`companion.wiring` from a hardware profile, with its pin factory passed in.
"""
