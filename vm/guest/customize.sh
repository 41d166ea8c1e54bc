#!/bin/sh
# Finishes the guest's root file system after mmdebstrap (run on the host, $1 = the root):
# the harness's own files, services on or off, and the kernel modules a Pi has and Debian's
# kernel lacks, built against the guest's own kernel headers (vm/kernel/Kbuild).
set -eu
ROOT=$1
HERE=$(cd "$(dirname "$0")" && pwd)
cp -a "$HERE/root/." "$ROOT/"
mkdir -p "$ROOT/share" "$ROOT/var/log/journal"
chroot "$ROOT" systemctl enable vm-agent.service systemd-networkd.service
# Nothing in the background competes with the checks for the machine's two cores.
chroot "$ROOT" systemctl mask apt-daily.timer apt-daily-upgrade.timer man-db.timer \
  e2scrub_all.timer fstrim.timer dpkg-db-backup.timer 2>/dev/null || true
chroot "$ROOT" passwd -d root >/dev/null
KVER=$(ls "$ROOT/lib/modules" | sort -V | tail -1)
SRC_TAR=$(ls "$ROOT"/usr/src/linux-source-*.tar.* | head -1)
BUILD=$ROOT/usr/src/vm-modules
rm -rf "$BUILD"; mkdir -p "$BUILD"
tar -xf "$SRC_TAR" -C "$BUILD" --strip-components=1 --wildcards \
  '*/drivers/gpio/gpio-sim.c' '*/drivers/gpio/gpiolib.h' '*/kernel/irq/irq_sim.c'
cp "$BUILD/drivers/gpio/gpio-sim.c" "$BUILD/drivers/gpio/gpiolib.h" "$BUILD/kernel/irq/irq_sim.c" "$BUILD/"
sh "$HERE/../kernel/irq_sim_as_module.sh" "$BUILD/irq_sim.c"
cp "$HERE/../kernel/companion_i2c_sim.c" "$HERE/../kernel/Kbuild" "$BUILD/"
chroot "$ROOT" make -s -C "/usr/src/linux-headers-$KVER" M=/usr/src/vm-modules modules
mkdir -p "$ROOT/lib/modules/$KVER/extra"
cp "$BUILD"/*.ko "$ROOT/lib/modules/$KVER/extra/"
chroot "$ROOT" depmod -a "$KVER"
rm -f "$SRC_TAR"
chroot "$ROOT" apt-get clean
