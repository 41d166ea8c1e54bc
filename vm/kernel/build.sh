#!/bin/sh
# build.sh ROOT SOURCE: the modules of vm/kernel that ROOT's kernel needs, built against its
# own headers in ROOT (a chroot; on arm64 every program runs through qemu-user) and put in
# /lib/modules/KVER/extra: gpio-sim (and irq_sim, a bool its drivers select) where the kernel
# does not have it as a module of its own, and always the project's I2C bus. SOURCE is the
# kernel's source of its version: Debian's linux-source .deb (three files are read out of it,
# never installed) or the tarball it installs (the virtual Pi's image build, vm/guest/customize.sh,
# gives the .deb; the arm64 program's root, vm/pinboot.py, the tarball). Prints the kernel's version.
set -eu
ROOT=${1:-}
SOURCE=${2:-}
# An empty ROOT would build in, and delete a folder of, this machine's own /usr/src.
if [ -z "$ROOT" ] || [ ! -d "$ROOT/lib/modules" ] || [ "$(cd "$ROOT" && pwd)" = / ]; then
  echo "build.sh: ROOT must be a chroot's root with /lib/modules (not /): '$ROOT'" >&2; exit 2
fi
[ -f "$SOURCE" ] || { echo "build.sh: SOURCE is not a file: '$SOURCE'" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
KVER=$(ls "$ROOT/lib/modules" | sort -V | tail -1)
CONFIG=$ROOT/boot/config-$KVER
MODULES=companion_i2c_sim.o
if ! grep -q '^CONFIG_GPIO_SIM=[my]' "$CONFIG"; then
  MODULES="$MODULES gpio-sim.o"
  grep -q '^CONFIG_IRQ_SIM=y' "$CONFIG" || MODULES="$MODULES irq_sim.o"
fi
echo "build.sh: building $MODULES for $KVER" >&2
BUILD=$ROOT/usr/src/vm-modules
rm -rf "$BUILD"; mkdir -p "$BUILD"
tarball() {  # the source's tarball on stdout: out of the .deb (streamed through tar), or as it is
  case "$SOURCE" in
    *.deb) dpkg-deb --fsys-tarfile "$SOURCE" | tar -xO --wildcards './usr/src/linux-source-*.tar.xz' ;;
    *) cat "$SOURCE" ;;
  esac
}
tarball | tar -xJ -C "$BUILD" --strip-components=1 --wildcards \
    '*/drivers/gpio/gpio-sim.c' '*/drivers/gpio/gpiolib.h' '*/kernel/irq/irq_sim.c'
cp "$BUILD/drivers/gpio/gpio-sim.c" "$BUILD/drivers/gpio/gpiolib.h" "$BUILD/kernel/irq/irq_sim.c" "$BUILD/"
sh "$HERE/irq_sim_as_module.sh" "$BUILD/irq_sim.c"
cp "$HERE/companion_i2c_sim.c" "$HERE/Kbuild" "$BUILD/"
chroot "$ROOT" make -s -C "/usr/src/linux-headers-$KVER" M=/usr/src/vm-modules VM_MODULES="$MODULES" modules >&2
mkdir -p "$ROOT/lib/modules/$KVER/extra"
cp "$BUILD"/*.ko "$ROOT/lib/modules/$KVER/extra/"
echo "$KVER"
