#!/bin/sh
# Finishes the guest's root file system after mmdebstrap (run on the host, $1 = the root, $2 = the
# kernel source package): the harness's own files, services on or off, apt pointed at the local
# archive, and the kernel modules a Pi has and Debian's kernel lacks, built against the guest's
# own kernel headers (vm/kernel/Kbuild).
set -eu
ROOT=$1
SOURCE_PACKAGE=$2
HERE=$(cd "$(dirname "$0")" && pwd)
cp -a "$HERE/root/." "$ROOT/"
mkdir -p "$ROOT/share" "$ROOT/srv/vm-apt" "$ROOT/var/log/journal"
chroot "$ROOT" systemctl enable vm-agent.service vm-board.service
# Nothing in the background competes with the checks for the machine's two cores.
chroot "$ROOT" systemctl mask apt-daily.timer apt-daily-upgrade.timer man-db.timer \
  e2scrub_all.timer fstrim.timer dpkg-db-backup.timer 2>/dev/null || true
chroot "$ROOT" passwd -d root >/dev/null
KVER=$(ls "$ROOT/lib/modules" | sort -V | tail -1)
# Three files of the kernel's source, read out of its package without installing it: fetched into
# apt's archive (which the build keeps, vm/image.py), the tarball inside streamed through tar.
chroot "$ROOT" apt-get install -y -q --download-only --no-install-recommends "$SOURCE_PACKAGE" >/dev/null
SRC_DEB=$(ls "$ROOT"/var/cache/apt/archives/linux-source-*_all.deb | sort -V | tail -1)
BUILD=$ROOT/usr/src/vm-modules
rm -rf "$BUILD"; mkdir -p "$BUILD"
dpkg-deb --fsys-tarfile "$SRC_DEB" | tar -xO --wildcards './usr/src/linux-source-*.tar.xz' \
  | tar -xJ -C "$BUILD" --strip-components=1 --wildcards \
    '*/drivers/gpio/gpio-sim.c' '*/drivers/gpio/gpiolib.h' '*/kernel/irq/irq_sim.c'
cp "$BUILD/drivers/gpio/gpio-sim.c" "$BUILD/drivers/gpio/gpiolib.h" "$BUILD/kernel/irq/irq_sim.c" "$BUILD/"
sh "$HERE/../kernel/irq_sim_as_module.sh" "$BUILD/irq_sim.c"
cp "$HERE/../kernel/companion_i2c_sim.c" "$HERE/../kernel/Kbuild" "$BUILD/"
chroot "$ROOT" make -s -C "/usr/src/linux-headers-$KVER" M=/usr/src/vm-modules modules
mkdir -p "$ROOT/lib/modules/$KVER/extra"
cp "$BUILD"/*.ko "$ROOT/lib/modules/$KVER/extra/"
chroot "$ROOT" depmod -a "$KVER"
# No network in the guest: apt reads the archive the host kept, mounted read-only (/etc/fstab).
rm -f "$ROOT/etc/apt/sources.list" "$ROOT"/etc/apt/sources.list.d/*
echo 'deb [trusted=yes] file:/srv/vm-apt ./' > "$ROOT/etc/apt/sources.list.d/vm-local.list"
