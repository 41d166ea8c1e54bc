"""The table screen: the public state of the game on any HDMI screen (a TV everyone faces).

:mod:`.public` says what may be shown (never a secret), :mod:`.render` draws it at any size as a
pure function (with :mod:`.chart` for the final scores), both painting with :mod:`.painter`;
:mod:`.display` puts frames on a pygame surface without holding up the loop. Only a box with a
table screen imports them.
"""


class TableScreenError(RuntimeError):
    """The profile asks for a table screen this machine cannot open."""
