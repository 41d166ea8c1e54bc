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
# The kernel modules a Pi has and Debian's kernel lacks (vm/kernel/build.sh), from the kernel's
# source that the base's build fetched into the host's archive.
KVER=$(sh "$HERE/../kernel/build.sh" "$ROOT" "$(ls "$ARCHIVE"/linux-source-*_all.deb | sort -V | tail -1)")
chroot "$ROOT" depmod -a "$KVER"
# No network in the guest: apt reads the archive the host kept, mounted read-only (/etc/fstab).
rm -f "$ROOT/etc/apt/sources.list" "$ROOT"/etc/apt/sources.list.d/*
echo 'deb [trusted=yes] file:/srv/vm-apt ./' > "$ROOT/etc/apt/sources.list.d/vm-local.list"
