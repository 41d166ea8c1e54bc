"""``python -m companion``: the ``companion`` command without its console script."""

import sys

from .cli import main

sys.exit(main())
