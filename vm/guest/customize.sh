#!/bin/sh
# Finishes the guest's root file system from its base (run on the host by vm/image.py, in a mount
# namespace with the root's /dev, /proc and /sys mounted; $1 = the root, $2 = the host's apt
# archive for it): the harness's own files, services on or off, apt pointed at the local archive,
# and the kernel modules a Pi has and Debian's kernel lacks, built against the guest's own kernel
# headers (vm/kernel/Kbuild). On arm64 every program in the chroot runs through qemu-user.
set -eu
ROOT=$1
ARCHIVE=$2
HERE=$(cd "$(dirname "$0")" && pwd)
cp -a "$HERE/root/." "$ROOT/"
mkdir -p "$ROOT/share" "$ROOT/srv/vm-apt" "$ROOT/var/log/journal"
chroot "$ROOT" systemctl enable vm-agent.service vm-board.service
# Nothing in the background competes with the checks for the machine's two cores.
chroot "$ROOT" systemctl mask apt-daily.timer apt-daily-upgrade.timer man-db.timer \
  e2scrub_all.timer fstrim.timer dpkg-db-backup.timer 2>/dev/null || true
chroot "$ROOT" passwd -d root >/dev/null
KVER=$(ls "$ROOT/lib/modules" | sort -V | tail -1)
CONFIG=$ROOT/boot/config-$KVER
# What this kernel lacks: gpio-sim (and irq_sim, a bool its drivers select) where it is not a
# module of its own, and always the project's I2C bus.
MODULES=companion_i2c_sim.o
if ! grep -q '^CONFIG_GPIO_SIM=[my]' "$CONFIG"; then
  MODULES="$MODULES gpio-sim.o"
  grep -q '^CONFIG_IRQ_SIM=y' "$CONFIG" || MODULES="$MODULES irq_sim.o"
fi
echo "customize.sh: building $MODULES for $KVER"
BUILD=$ROOT/usr/src/vm-modules
rm -rf "$BUILD"; mkdir -p "$BUILD"
# Three files of the kernel's source, read out of its package without installing it: the base's
# build fetched it into the host's archive, the tarball inside is streamed through tar.
SRC_DEB=$(ls "$ARCHIVE"/linux-source-*_all.deb | sort -V | tail -1)
dpkg-deb --fsys-tarfile "$SRC_DEB" | tar -xO --wildcards './usr/src/linux-source-*.tar.xz' \
  | tar -xJ -C "$BUILD" --strip-components=1 --wildcards \
    '*/drivers/gpio/gpio-sim.c' '*/drivers/gpio/gpiolib.h' '*/kernel/irq/irq_sim.c'
cp "$BUILD/drivers/gpio/gpio-sim.c" "$BUILD/drivers/gpio/gpiolib.h" "$BUILD/kernel/irq/irq_sim.c" "$BUILD/"
sh "$HERE/../kernel/irq_sim_as_module.sh" "$BUILD/irq_sim.c"
cp "$HERE/../kernel/companion_i2c_sim.c" "$HERE/../kernel/Kbuild" "$BUILD/"
chroot "$ROOT" make -s -C "/usr/src/linux-headers-$KVER" M=/usr/src/vm-modules VM_MODULES="$MODULES" modules
mkdir -p "$ROOT/lib/modules/$KVER/extra"
cp "$BUILD"/*.ko "$ROOT/lib/modules/$KVER/extra/"
chroot "$ROOT" depmod -a "$KVER"
# No network in the guest: apt reads the archive the host kept, mounted read-only (/etc/fstab).
rm -f "$ROOT/etc/apt/sources.list" "$ROOT"/etc/apt/sources.list.d/*
echo 'deb [trusted=yes] file:/srv/vm-apt ./' > "$ROOT/etc/apt/sources.list.d/vm-local.list"
