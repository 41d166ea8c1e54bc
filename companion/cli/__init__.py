"""The ``companion`` command, one module per command family.

``parser`` builds the command line and runs the command chosen (``main``, the console script);
``play`` runs the box, the demo and the simulator; ``review`` replays and lists past games;
``analysis`` coaches Triangle and solves Pay-to-Play; ``make`` checks profiles and word decks and
self-tests a built box; ``common`` is what more than one of them uses. A new command goes in the
family it belongs to, as a ``cmd_*`` function beside the ``add_*`` that puts it on the parser.
"""

from .parser import build_parser, main, on_pi_hardware
from .play import DEMOS, bot_settings, option_settings

__all__ = ["DEMOS", "bot_settings", "build_parser", "main", "on_pi_hardware", "option_settings"]
