#!/usr/bin/env bash
# Install Tabletop Companion as a service on Raspberry Pi OS Bookworm (run from the source tree).
#
#   sudo systemd/install.sh [--profile FILE]   install or update (safe to run again)
#   sudo systemd/install.sh --uninstall        stop and remove the service, keep game journals
#   systemd/install.sh --dry-run [...]         print every step instead of doing it
#
# What it does: apt packages (lgpio comes from apt: pip's gpiozero does not bring it, and only
# lgpio works on a Pi 5), I2C on at 400 kHz (dtparam=i2c_arm_baudrate in $BOOT_CONFIG, else
# /boot/firmware/config.txt, from the next boot: at the Pi's default 100 kHz a display frame
# takes 106 ms instead of 26), the extra display buses the profile needs (i2c-gpio overlays from
# `companion profile overlays`, in the same file; a reboot brings them up; the default profile,
# mux-3.toml, needs none), a system user in the gpio, i2c and dialout groups, a venv at
# /opt/companion/venv made afresh with --system-site-packages (so it sees apt's lgpio; Bookworm's
# own Python is externally managed), the package built as a wheel from this tree and installed
# with the dependency versions pinned in systemd/constraints.txt, the profile at
# /etc/companion/profile.toml (never overwritten), and the unit. Uninstalling keeps the journals,
# owned by root and readable by all.
set -euo pipefail

PREFIX=/opt/companion
CONF=/etc/companion
UNIT_DIR=/etc/systemd/system
SRC=$(cd "$(dirname "$0")/.." && pwd)
PROFILE="$SRC/hardware/profiles/mux-3.toml"
DRY=0
ACTION=do_install
I2C_HZ=400000
if [ -z "${BOOT_CONFIG:-}" ]; then  # Bookworm's; /boot/config.txt before it
  BOOT_CONFIG=/boot/firmware/config.txt
  [ -f "$BOOT_CONFIG" ] || [ ! -f /boot/config.txt ] || BOOT_CONFIG=/boot/config.txt
fi

while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY=1 ;;
    --uninstall) ACTION=do_uninstall ;;
    --profile)
      [ $# -ge 2 ] && [ -n "$2" ] || { echo "install.sh: --profile needs a profile file, e.g. --profile hardware/profiles/mux-3.toml" >&2; exit 2; }
      PROFILE=$2; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done

step() {  # step "what it does" command...
  echo "==> $1"
  shift
  if [ "$DRY" = 1 ]; then echo "    $*"; else "$@"; fi
}

need_root() {
  if [ "$DRY" = 0 ] && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run as root (sudo), or with --dry-run to see the steps" >&2
    exit 2
  fi
}

append_line() {  # append_line LINE FILE
  printf '%s\n' "$1" >> "$2"
}

bus_overlays() {  # the config.txt lines the profile's display buses need, each added once
  local lines line added=0
  lines=$(PYTHONPATH="$SRC" python3 -m companion profile overlays "$PROFILE") || exit 2
  for line in $lines; do
    if ! grep -qxF "$line" "$BOOT_CONFIG" 2>/dev/null; then
      step "bus overlay $line" append_line "$line" "$BOOT_CONFIG"
      added=1
    fi
  done
  if [ "$added" = 1 ]; then echo "==> reboot once for the new I2C buses (sudo reboot)"; fi
}

do_install() {
  [ -f "$PROFILE" ] || { echo "install.sh: no profile at $PROFILE" >&2; exit 2; }
  step "apt package lists" apt-get update
  step "apt packages" apt-get install -y --no-install-recommends python3-venv python3-pip \
    python3-lgpio i2c-tools
  if command -v raspi-config >/dev/null || [ "$DRY" = 1 ]; then
    step "enable I2C" raspi-config nonint do_i2c 0
  fi
  # Rewrites our line where it is, else adds it under [all]: running it again changes nothing.
  step "I2C at $I2C_HZ Hz (after a reboot)" sh -c "grep -q '^dtparam=i2c_arm_baudrate=' '$BOOT_CONFIG' \
&& sed -i 's/^dtparam=i2c_arm_baudrate=.*/dtparam=i2c_arm_baudrate=$I2C_HZ/' '$BOOT_CONFIG' \
|| printf '[all]\ndtparam=i2c_arm_baudrate=$I2C_HZ\n' >> '$BOOT_CONFIG'"
  bus_overlays
  for group in gpio i2c dialout; do
    getent group "$group" >/dev/null || step "group $group" groupadd --system "$group"
  done
  if ! id companion >/dev/null 2>&1; then
    step "user companion" useradd --system --home-dir /var/lib/companion --no-create-home \
      --shell /usr/sbin/nologin --groups gpio,i2c,dialout companion
  else
    step "user companion in gpio, i2c, dialout" usermod -a -G gpio,i2c,dialout companion
  fi
  # A fresh venv every time, from a wheel of this tree: nothing of an older version stays importable.
  step "wheel" rm -rf "$PREFIX/wheel"
  step "build wheel" python3 -m pip wheel --quiet --no-deps --wheel-dir "$PREFIX/wheel" "$SRC"
  step "remove old venv" rm -rf "$PREFIX/venv" "$PREFIX/src"
  step "venv" python3 -m venv --system-site-packages "$PREFIX/venv"
  step "package" "$PREFIX/venv/bin/pip" install --quiet --constraint "$SRC/systemd/constraints.txt" \
    "$PREFIX"/wheel/companion-*.whl
  step "check profile" "$PREFIX/venv/bin/companion" profile check "$PROFILE"
  step "config dir" mkdir -p "$CONF"
  if [ ! -e "$CONF/profile.toml" ]; then
    step "profile" /usr/bin/install -m 0644 "$PROFILE" "$CONF/profile.toml"
  else
    echo "==> profile: keeping $CONF/profile.toml"
  fi
  step "unit" /usr/bin/install -m 0644 "$SRC/systemd/companion.service" "$UNIT_DIR/companion.service"
  step "reload systemd" systemctl daemon-reload
  step "start at boot, now" systemctl enable --now companion.service
  step "restart with this version" systemctl restart companion.service
}

do_uninstall() {
  if [ "$DRY" = 1 ] || [ -e "$UNIT_DIR/companion.service" ]; then
    step "stop and disable" systemctl disable --now companion.service
    step "remove unit" rm -f "$UNIT_DIR/companion.service"
    step "reload systemd" systemctl daemon-reload
  fi
  step "remove program" rm -rf "$PREFIX"
  if [ "$DRY" = 1 ] || id companion >/dev/null 2>&1; then
    step "remove user" userdel companion
  fi
  # The journals belonged to the user just removed: give them to root and let anyone read them.
  if [ "$DRY" = 1 ] || [ -d /var/lib/companion ]; then
    step "journals owned by root, readable by all" chown -R root:root /var/lib/companion
    step "journals readable" chmod -R u+rwX,go+rX /var/lib/companion
  fi
  echo "==> kept: $CONF (profile) and /var/lib/companion (game journals), now owned by root and readable by all"
}

need_root
"$ACTION"
