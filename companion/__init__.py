"""Tabletop Companion: the box in the middle of the table that referees tabletop games.

Layers, top to bottom: adapters turn hardware edges into :class:`~companion.arbiter.inputs.InputEvent`;
the arbiter decides races from edge times; the table turns inputs into game actions; the games
are pure rules; screens are pure images; the journal records every decision.
"""

__version__ = "0.1.0"
