#!/bin/sh
# The card's root from its base (run on the host by vm/sdcard.py, in a mount namespace of its own
# with the root's /dev, /proc and /sys mounted; every program in the chroot runs through qemu-user):
# $1 = the root, $2 = the host's apt archive for it, $3 = the source tree, $4 = the wheels,
# $5 = the card's disk id (8 hex digits; its partitions are PARTUUID=<id>-01..04).
# The box is installed by the project's own installer, systemd/install.sh, as a maker runs it
# (its apt steps against the local archive, pip against the wheels: no network in the chroot).
set -eu
ROOT=$1 ARCHIVE=$2 TREE=$3 WHEELS=$4 DISK=$5
HERE=$(cd "$(dirname "$0")" && pwd)
cp -a "$HERE/root/." "$ROOT/"
for f in etc/fstab etc/default/raspi-firmware; do
  sed -i "s/@DISK@/$DISK/g" "$ROOT/$f"
done
# The initramfs again, with the data partition's growth in it (etc/initramfs-tools: its hook and
# local-premount script), then Debian's own config.txt and cmdline.txt, written again by raspi-firmware's hook with the card's
# settings (root by PARTUUID, read-only, the header UART): what a kernel update writes on the card.
chroot "$ROOT" update-initramfs -u -k all
DEB_MAINT_PARAMS=configure chroot "$ROOT" /etc/kernel/postinst.d/z50-raspi-firmware
# The installer, from a copy of the tree, against the local archive and the wheels.
mkdir -p "$ROOT/srv/vm-apt" "$ROOT/srv/wheels" "$ROOT/srv/src"
mount --bind "$ARCHIVE" "$ROOT/srv/vm-apt"
mount --bind "$WHEELS" "$ROOT/srv/wheels"
cp -a "$TREE/." "$ROOT/srv/src/"
mv "$ROOT/etc/apt/sources.list.d" "$ROOT/etc/apt/sources.list.d.debian"
mkdir "$ROOT/etc/apt/sources.list.d"
echo 'deb [trusted=yes] file:/srv/vm-apt ./' > "$ROOT/etc/apt/sources.list.d/card-build.list"
[ -f "$ROOT/etc/apt/sources.list" ] && mv "$ROOT/etc/apt/sources.list" "$ROOT/etc/apt/sources.list.debian"
chroot "$ROOT" env IMAGE=1 PIP_NO_INDEX=1 PIP_FIND_LINKS=/srv/wheels PIP_NO_CACHE_DIR=1 PIP_NO_COMPILE=1 \
  bash /srv/src/systemd/install.sh
rm -rf "$ROOT/etc/apt/sources.list.d"
mv "$ROOT/etc/apt/sources.list.d.debian" "$ROOT/etc/apt/sources.list.d"
[ -f "$ROOT/etc/apt/sources.list.debian" ] && mv "$ROOT/etc/apt/sources.list.debian" "$ROOT/etc/apt/sources.list"
umount "$ROOT/srv/vm-apt" "$ROOT/srv/wheels"
rm -rf "$ROOT/srv/vm-apt" "$ROOT/srv/wheels" "$ROOT/srv/src" "$ROOT/var/lib/apt/lists/"*
# The data partition's mount point: on a read-only root nothing can make it at boot (mount's
# move_mount found no /var/lib/companion and the kernel dropped the mounted partition at once).
mkdir -p "$ROOT/var/lib/companion"
# The profile on the data partition (the root is read-only); the installer's is the card's default.
mkdir -p "$ROOT/usr/share/companion-card"
mv "$ROOT/etc/companion/profile.toml" "$ROOT/usr/share/companion-card/profile.toml"
ln -s /var/lib/companion/settings/profile.toml "$ROOT/etc/companion/profile.toml"
cp "$HERE/README" "$ROOT/usr/share/companion-card/README"
chroot "$ROOT" systemctl enable companion-card.service companion-wifi.service \
  systemd-networkd.service
# Nothing writes a read-only root in the background.
chroot "$ROOT" systemctl mask apt-daily.timer apt-daily-upgrade.timer man-db.timer e2scrub_all.timer \
  dpkg-db-backup.timer 2>/dev/null || true
: > "$ROOT/etc/machine-id"  # empty: systemd makes one in /run at each boot (the root is read-only)
chroot "$ROOT" passwd -l root >/dev/null
