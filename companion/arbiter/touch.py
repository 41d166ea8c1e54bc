"""A phone touch's latency, glass to the page's timestamp: a bias every phone press carries.

Here, below the box and the table screen, because both speak of it: the web companion shifts each
phone press by it and widens its error (:mod:`companion.web.phoneclock`), and the table screen says
the allowance under a race a phone tied (:mod:`companion.tablescreen.render`)."""

TOUCH_SHIFT_NS = 19_600_000
TOUCH_SPREAD_NS = 10_000_000
"""A touch's latency, glass to ``event.timeStamp``, which no box can measure: 9.6 to 29.6 ms across
phones (Google's WALT latency tester's published figures, as issue 48 quotes them). A bias, not
noise, so a press is moved earlier by the middle of that span and its error widened by half of
it: a phone that touched before a wired button is never ranked after it for its glass alone."""
