"""The arbiter: who pressed first, by the time of each button's edge.

Its one promise: a verdict depends only on the edge times the sources reported and on how far
each source has reported (its watermark), never on the order presses happened to arrive in, on
a pin or station number, or on how fast the machine is. Inputs come in as
:class:`~companion.arbiter.inputs.InputEvent`; out go debounced presses, race verdicts (first
press, ties within the tie window, everyone after with their delay) and late-press notes.

What it may import: the standard library and its own modules, nothing else of the box. The
table, games, screens, adapters and the record sit above or beside it and call into it.
"""
