"""The button board's hardware glue, run by MicroPython at power-up on a Raspberry Pi Pico.

Each button's pin interrupt (a hard IRQ: it runs at once and may not allocate) stores the raw
1 us tick and the level in the board's ring buffer; a light sensor's, on its rising edge only,
stores the tick the same way. The main loop waits at most a millisecond
for bytes from the host, lets the :class:`~board.ButtonBoard` do the rest, writes what it
returns to USB serial and lights the LEDs. Hold the first channel's button while plugging the
board in to skip all this and keep the REPL (for ``mpremote``).
"""

import select
import sys
from time import ticks_us

import config
import machine
import micropython
from board import ButtonBoard


def pin_handler(ring, channel):
    """The interrupt handler of one channel: active-low, so a low level is a press."""

    def on_edge(pin):
        ring.push(ticks_us(), channel, 1 - pin.value())

    return on_edge


def sensor_handler(ring, channel):
    """The interrupt handler of a light sensor's channel, called on its rising edge (lit)."""

    def on_rise(pin):
        ring.push(ticks_us(), channel, 1)

    return on_rise


def channel_pin(channel, number):
    """A button's input is pulled up (a press pulls it low); a sensor's is pulled down, so a
    sensor unplugged reads dark (its comparator's 10 kOhm pull-up outweighs the Pico's own)."""
    pull = machine.Pin.PULL_DOWN if channel in config.SENSOR_CHANNELS else machine.Pin.PULL_UP
    return machine.Pin(number, machine.Pin.IN, pull)


def start():
    """Pins, LEDs and the board; None if the first button is held (stay at the REPL)."""
    pins = [channel_pin(channel, n) for channel, n in enumerate(config.CHANNEL_PINS)]
    if pins[0].value() == 0:
        print("button board: first button held, staying at the REPL")
        return None
    leds = [machine.Pin(n, machine.Pin.OUT, value=0) for n in config.LED_PINS]
    board = ButtonBoard(len(pins), machine.unique_id(), ticks_us(), config.DEBOUNCE_US,
                        config.HEARTBEAT_US, config.RING_SIZE, config.LED_ECHO, config.SENSOR_CHANNELS,
                        config.SENSOR_QUIET_US)
    for channel, pin in enumerate(pins):
        if channel in config.SENSOR_CHANNELS:
            pin.irq(sensor_handler(board.ring, channel), machine.Pin.IRQ_RISING, hard=True)
        else:
            pin.irq(pin_handler(board.ring, channel), machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING,
                    hard=True)
    return board, leds


def turn(board, leds, poller, rx, tx):
    """One turn of the main loop."""
    data = b""
    if poller.poll(1):
        data = rx.read(1)
        while poller.poll(0):
            data += rx.read(1)
    out = board.poll(ticks_us(), data)
    if out:
        tx.write(out)
    lit = board.leds()
    for i, led in enumerate(leds):
        led.value((lit >> i) & 1)


def run():
    started = start()
    if started is None:
        return
    board, leds = started
    micropython.alloc_emergency_exception_buf(100)
    micropython.kbd_intr(-1)  # frames may hold 0x03, which would otherwise stop the program
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    while True:
        turn(board, leds, poller, sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    run()
