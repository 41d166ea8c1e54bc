#!/bin/sh
# The virtual Pi's board, made at every boot by vm-board.service (test harness only): the GPIO
# header (gpio-sim, vm/inguest/pins.py), I2C-1 with the multiplexer and panels
# (companion_i2c_sim), and the board revision gpiozero reads, a Pi 4's or a Pi 5's as the
# kernel's vm.board= parameter says (python -m vm check --board). What a Pi has and plain Debian
# lacks, supplied by the harness only: the product is unchanged. pi5 numbers the chips as Raspberry
# Pi OS's kernels do since 6.6.45 (pinctrl-rp1 at gpiochip0, the gpiochip4 link), pi5-legacy as before.
set -eu
BOARD=$(sed -n 's/.*vm\.board=\([a-z0-9-]*\).*/\1/p' /proc/cmdline)
BOARD=${BOARD:-pi4}
HARNESS=/var/lib/vm-harness
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
# What the emulated machine has and no Pi has goes: QEMU's arm64 `virt` machine has a GPIO
# controller of its own (a PL061, for its power button), which would be gpiochip0 and push the
# header's chip off the number a Pi's kernel gives it (gpiozero opens gpiochip0 on a Pi 4). Its
# button's driver first: while gpio-keys holds a line, the chip keeps its number (seen: the
# header became gpiochip1).
unbind_all() {  # unbind_all DRIVER_DIR: every device bound to the driver, if it is there
  for dev in "$1"/*; do
    if [ -L "$dev" ] && [ "${dev##*/}" != module ]; then echo "${dev##*/}" > "$1/unbind"; fi
  done
}
unbind_all /sys/bus/platform/drivers/gpio-keys
unbind_all /sys/bus/amba/drivers/pl061_gpio
modprobe gpio-sim
python3 /share/tools/pins.py setup "$BOARD"
# The bus only, as a Pi's kernel has it: not i2c-dev, its /dev/i2c-1, which plain Debian does not
# load at boot (only raspi-config does) and the installer must (the boot check would not see it
# missing were it loaded here).
modprobe companion_i2c_sim
case "$BOARD" in
  pi4) REVISION=c03114; MODEL="Raspberry Pi 4 Model B Rev 1.4" ;;  # 4 GB, rev 1.4
  pi5|pi5-legacy) REVISION=d04170; MODEL="Raspberry Pi 5 Model B Rev 1.0" ;;  # 4 GB, rev 1.0
  *) echo "board.sh: no such board '$BOARD' (pi4, pi5, pi5-legacy)" >&2; exit 2 ;;
esac
mkdir -p "$HARNESS"
# Bound over /proc/cpuinfo here, for what a maker runs by hand (the self-test), and for the
# service by a drop-in (vm/checks.py's PREPARE): the service's ProtectProc mounts a /proc of its own
{ cat /proc/cpuinfo; printf 'Hardware\t: BCM2835\nRevision\t: %s\nModel\t\t: %s\n' "$REVISION" "$MODEL"; } \
  > "$HARNESS/cpuinfo"
mount --bind "$HARNESS/cpuinfo" /proc/cpuinfo
echo "$BOARD" > "$HARNESS/board"
# A Pi's chips exist from the kernel's start, and udev has given them their groups (the installer's
# rule) long before the service starts; these were made just now: wait for udev to finish with them,
# or the service, ordered after this unit, may meet /dev/gpiochip0 still root's (seen at a loaded
# boot: "can not open gpiochip", then a restart).
udevadm settle --timeout=60
