"""Light sensors on board channels: the first rise of each time a panel's marker lights.

A sensor (a phototransistor and a comparator over the marker a reveal lights on a panel,
``hardware/BUILD.md``) drives its channel high while it sees light. A panel lights a row only
while its scan drives it, so while the marker is shown the input rises once every frame of the
panel (6-13 ms). The host wants the first of those rises: when the panel lit up. Sending every
one would fill the link with a hundred frames a second per sensor that nobody reads.

So a rise is reported only after ``quiet_us`` without one (the rises of a shown marker come a
frame apart, so they are all quiet for less than that, and only the first goes out). There is no
debounce hold-off: the reported rise goes out at once with the time of its own edge, and a noisy
comparator whose output chatters is reported once, at its first rise. ``quiet_us`` must be longer
than a panel's frame and shorter than the time a reveal keeps the panel dark (display-off, then
every station's frame written, about 26 ms each) for the reveal's own rise to be reported.
"""


class LightSensors:
    def __init__(self, channels, sensors, quiet_us):
        self.quiet_us = quiet_us
        self.is_sensor = bytearray(channels)
        for channel in sensors:
            if channel < channels:
                self.is_sensor[channel] = 1
        self.last_rise_us = [None] * channels  # the last rise of each sensor, reported or not

    def rise(self, channel, t_us, out):
        """One rising edge of sensor ``channel`` at ``t_us``; appends ``(t_us, channel, 1)`` to
        ``out`` if it is the first after a quiet gap."""
        last = self.last_rise_us[channel]
        self.last_rise_us[channel] = t_us  # the ring hands edges over in time order
        if last is None or t_us - last >= self.quiet_us:
            out.append((t_us, channel, 1))
