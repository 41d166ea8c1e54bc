"""The button board, host side: its wire format, its clock, and a virtual board for tests and
the simulator. The serial port itself is an adapter (:mod:`companion.adapters.board`)."""
