"""``python -m companion.cli``: the same command as ``companion`` and ``python -m companion``, for
a maker who reaches for the package that holds the command line."""

import sys

from .parser import main

sys.exit(main())
