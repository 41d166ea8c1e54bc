"""What the product draws on each station's panel in its lobby, as the bytes the panel is sent.

Run in the guest with the installed program's Python (test harness only): the product's own
Table draws the screens and its own frame packer (companion.adapters.framepack, byte for byte
what luma sends) turns them into SSD1306 pages. ``--down N`` draws them with the notice the
box shows while display N is not working. Prints one hex line per station.
"""

import sys

from companion.adapters.framepack import pages
from companion.daemon import displays_down
from companion.profile import load_profile
from companion.screens.canvas import with_notice
from companion.table import Table

profile = load_profile(sys.argv[1])
down = [int(sys.argv[3]) - 1] if len(sys.argv) > 3 and sys.argv[2] == "--down" else []
table = Table(tuple(station.name for station in profile.stations), None)
for station in range(len(profile.stations)):
    screen = table.screen(station)
    if down:
        screen = with_notice(screen, displays_down(down))
    print(pages(screen.convert("1")).hex())
