"""Players the box can seat itself: the solved Pay-to-Play table, the Triangle brain and the
closest-number game's round-1 solution, each a pure module the bots and the coach share."""
