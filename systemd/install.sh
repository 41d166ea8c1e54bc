#!/usr/bin/env bash
# Install Tabletop Companion as a service on Raspberry Pi OS (or Debian) Bookworm or Trixie,
# from the source tree.
#
#   sudo systemd/install.sh [--profile FILE]   install or update (safe to run again)
#   sudo systemd/install.sh --uninstall        stop and remove the service, keep game journals
#   systemd/install.sh --dry-run [...]         print every step instead of doing it
#   --any-release                              install on a release other than Bookworm/Trixie
#
# It says which release it found and refuses others (Python 3.11 on Bookworm, 3.13 on Trixie).
# lgpio (gpiozero's pin driver, the only one that works on a Pi 5) comes from apt's
# python3-lgpio where the release has it (Raspberry Pi OS); else from PyPI's wheel (Python up to
# 3.12), else built from PyPI's source with swig; never PyPI's empty lgpio 0.0.0.2.
# It sets I2C on at 400 kHz and the display buses the profile needs in the boot config (from the
# next boot; skipped where there is none), makes a system user in the gpio, i2c and dialout
# groups, adds udev rules (/dev/gpiochip* to group gpio where the OS has no such rule;
# ModemManager leaves the button board alone) and loads cdc_acm (so the unit's
# DeviceAllow=char-ttyACM always resolves) and i2c-dev (the /dev/i2c-N files, which only raspi-config
# loads otherwise; the box finds the header's among them by its controller) now and at every boot. A profile whose [web] section is on gets the unit's
# drop-in systemd/phones.conf (the box's own network only, for phones); one without has none.
# An update builds the new version in a venv beside the running one and switches over only once
# it installed and checked the profile: if anything fails, the old version stays installed and
# running; if the new one does not start, or does not stay up SETTLE_S (15) seconds after its
# READY, the old one is put back and restarted. Everything it adds is listed in
# /opt/companion/installed, and --uninstall removes exactly that, keeping the profile and the
# journals (given to root, readable by all).
# Paths can be moved for testing: PREFIX CONF UNIT_DIR UDEV_DIR UDEV_RULE_DIRS MODULES_DIR
# STATE_DIR BOOT_CONFIG OS_RELEASE PYTHON; SETTLE_S, the seconds a new version must stay up.
# IMAGE=1 installs into a system image being built (a chroot): the steps on the running system
# (udev, modules now, the restart) are left to its first boot.
set -euo pipefail

PREFIX=${PREFIX:-/opt/companion}
CONF=${CONF:-/etc/companion}
UNIT_DIR=${UNIT_DIR:-/etc/systemd/system}
UDEV_DIR=${UDEV_DIR:-/etc/udev/rules.d}
UDEV_RULE_DIRS=${UDEV_RULE_DIRS:-/etc/udev/rules.d /run/udev/rules.d /usr/lib/udev/rules.d /lib/udev/rules.d}
MODULES_DIR=${MODULES_DIR:-/etc/modules-load.d}
STATE_DIR=${STATE_DIR:-/var/lib/companion}
OS_RELEASE=${OS_RELEASE:-/etc/os-release}
PYTHON=${PYTHON:-python3}
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROFILE="$SRC/hardware/profiles/mux-3.toml"
RECORD="$PREFIX/installed"
DRY=0
ANY_RELEASE=0
NEW=            # the venv being installed: venv-a or venv-b, beside the running one
IN_SERVICE=     # the profile the service runs with
ACTION=do_install
I2C_HZ=400000
SETTLE_S=${SETTLE_S:-15}  # a new version must stay up this long after READY: longer than the
# unit's WatchdogSec=10, so one that hangs after READY is restarted by the watchdog meanwhile
if [ -z "${BOOT_CONFIG:-}" ]; then  # Bookworm's and Trixie's; /boot/config.txt before them
  BOOT_CONFIG=/boot/firmware/config.txt
  [ -f "$BOOT_CONFIG" ] || [ ! -f /boot/config.txt ] || BOOT_CONFIG=/boot/config.txt
fi

while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY=1 ;;
    --uninstall) ACTION=do_uninstall ;;
    --any-release) ANY_RELEASE=1 ;;
    --profile)
      if [ $# -lt 2 ] || [ -z "$2" ]; then echo "install.sh: --profile needs a profile file, e.g. --profile hardware/profiles/mux-3.toml" >&2; exit 2; fi
      PROFILE=$2; shift ;;
    -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done

step() {  # step "what it does" command...
  echo "==> $1"
  shift
  if [ "$DRY" = 1 ]; then echo "    $*"; else "$@"; fi
}

live() {  # live "what it does" command...: a step on the running system; installing into a system
  # image being built (IMAGE=1: a chroot, nothing running, vm/sdcard.py), it is the image's first
  # boot that loads, reloads and starts
  if [ "${IMAGE:-0}" = 1 ]; then echo "==> $1: at the image's first boot"; else step "$@"; fi
}

fail() {  # fail "what went wrong": exit 1 with it
  echo "install.sh: $1" >&2
  exit 1
}

need_root() {
  if [ "$DRY" = 0 ] && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run as root (sudo), or with --dry-run to see the steps" >&2
    exit 2
  fi
}

remember() {  # remember KIND WHAT: something this install added, for --uninstall to undo
  [ "$DRY" = 1 ] && return 0
  grep -qxF -- "$1 $2" "$RECORD" 2>/dev/null || printf '%s %s\n' "$1" "$2" >> "$RECORD"
}

# shellcheck disable=SC2016  # awk's own $0, not the shell's
SECTIONS='/^[[:space:]]*\[/ { header = $0; gsub(/[[:space:]]/, "", header); sections = 1
                           every = (header == "[all]"); if (every) at = NR; next }'
# awk's view of config.txt's sections: a header line sets "every" (an [all] section: every Pi
# reads it) and "sections" (one was seen: the lines before the first apply to every Pi); a model
# section ([pi4], [cm5]...) or any other filter applies to some Pis only.

every_pi() {  # every_pi FILE: "N<TAB>line" for each line of config.txt that every Pi reads
  awk "$SECTIONS"' { if (!sections || every) printf "%d\t%s\n", NR, $0 }' "$1"
}

every_pi_has() {  # every_pi_has LINE FILE: is LINE set for every Pi (not only in a model section)?
  every_pi "$2" | cut -f2- | grep -qxF -- "$1"
}

append_line() {  # append_line LINE FILE: where it applies to every Pi: at the end of the last [all]
  # section, else of the lines before the first model section ([pi4], [cm5]...); never a section
  # header of ours, so dropping the line again leaves the file exactly as it was
  local tmp
  tmp=$(mktemp)
  awk -v line="$1" '{ text[NR] = $0 }
    '"$SECTIONS"'
    /[^[:space:]]/ { if (!sections || every) at = NR }
    END { if (at == 0) print line
          for (i = 1; i <= NR; i++) { print text[i]; if (i == at) print line } }' "$2" > "$tmp"
  cat "$tmp" > "$2"
  rm -f "$tmp"
}

drop_line() {  # drop_line LINE FILE: remove every line equal to LINE where every Pi reads it (where
  # append_line puts it; the same line in a model section is the maker's); every other line, blank
  # ones included, stays as it was, in the file itself (a FAT boot partition keeps no permissions)
  local tmp
  tmp=$(mktemp)
  awk -v line="$1" '/^[[:space:]]*\[/ { print }
    '"$SECTIONS"'
    !($0 == line && (!sections || every)) { print }' "$2" > "$tmp"
  cat "$tmp" > "$2"
  rm -f "$tmp"
}

place() {  # place "what" SOURCE TARGET: a file of ours, replaced only if it differs
  if ! cmp -s "$2" "$3"; then
    step "$1" /usr/bin/install -m 0644 "$2" "$3"
  fi
  remember file "$3"
}

os_field() {  # os_field KEY: a field of /etc/os-release, unquoted
  sed -n "s/^$1=//p" "$OS_RELEASE" | tr -d '"'
}

check_release() {  # say which release this is; refuse one the installer was not made for
  local name codename version
  [ -r "$OS_RELEASE" ] || fail "cannot read $OS_RELEASE to know which system this is"
  name=$(os_field PRETTY_NAME)
  codename=$(os_field VERSION_CODENAME)
  version=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])') \
    || fail "no $PYTHON: install Python 3 first (sudo apt-get install python3)"
  echo "==> system: ${name:-unknown}, Python $version"
  case "$codename" in
    bookworm|trixie) ;;
    *)
      [ "$ANY_RELEASE" = 1 ] || fail "this installer supports Raspberry Pi OS or Debian Bookworm (12) and Trixie (13), \
not '${name:-unknown}'; --any-release tries anyway"
      echo "==> not a release this installer was tested on: going on (--any-release)" ;;
  esac
  "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || fail "Python $version is too old: Tabletop Companion needs 3.11 or newer"
  PY_MINOR=${version#*.}
}

lgpio_plan() {  # where lgpio comes from: apt, wheel (PyPI's binary) or source (built here)
  if apt-cache policy python3-lgpio 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    LGPIO=apt
  elif [ "$PY_MINOR" -le 12 ] && [[ " x86_64 aarch64 armv7l " == *" $(uname -m) "* ]]; then
    LGPIO=wheel   # PyPI's lgpio 0.2.2.0 has wheels for CPython 3.9-3.12 on these machines only
  else
    LGPIO=source
  fi
  case "$LGPIO" in
    apt) echo "==> lgpio: python3-lgpio from apt" ;;
    wheel) echo "==> lgpio: not in apt here; PyPI's lgpio wheel for Python 3.$PY_MINOR" ;;
    source) echo "==> lgpio: not in apt here and PyPI has no wheel for Python 3.$PY_MINOR on $(uname -m); building it from source" ;;
  esac
}

apt_packages() {
  local packages=(python3-venv python3-pip i2c-tools)
  case "$LGPIO" in
    apt) packages+=(python3-lgpio) ;;
    source) packages+=(swig python3-dev gcc libc6-dev) ;;
  esac
  step "apt packages" apt-get install -y --no-install-recommends "${packages[@]}"
}

program_python() {  # program_python ARGS...: Python with the program being installed importable
  # -I: the installed program, never a tree in the current folder (as root, importing the maker's
  # tree would leave files there the maker cannot delete); -B: a dry run writes nothing.
  if [ -x "$PREFIX/$NEW/bin/python" ]; then
    "$PREFIX/$NEW/bin/python" -I "$@"
  else  # a dry run: nothing was installed, ask the source tree
    PYTHONPATH="$SRC" "$PYTHON" -B "$@"
  fi
}

profile_overlays() {  # the config.txt lines the profile's display buses need
  program_python -m companion profile overlays "$IN_SERVICE"
}

profile_lets_phones_in() {  # whether the profile's [web] section is on (phones join over the network)
  program_python -c 'import sys; from companion.profile import load_profile
sys.exit(0 if load_profile(sys.argv[1]).web.enabled else 1)' "$IN_SERVICE"
}

phones_network() {  # the unit's network drop-in where the profile lets phones in; none where not
  local dropin="$UNIT_DIR/companion.service.d/phones.conf"
  if profile_lets_phones_in; then
    if [ ! -d "$UNIT_DIR/companion.service.d" ]; then
      step "unit drop-in dir" mkdir -p "$UNIT_DIR/companion.service.d"
      remember dir "$UNIT_DIR/companion.service.d"
    fi
    place "phones on the box's own network (unit drop-in)" "$SRC/systemd/phones.conf" "$dropin"
  elif [ -e "$dropin" ]; then
    step "no [web] in the profile: the unit without a network again" rm -f "$dropin"
  fi
}

speed_line() {  # speed_line FILE: "N<TAB>line" of the first I2C speed every Pi reads, if any
  every_pi "$1" 2>/dev/null | awk -F '\t' 'index($2, "dtparam=i2c_arm_baudrate=") == 1 { print; exit }'
}

boot_config() {  # I2C on at 400 kHz and the profile's bus overlays, from the next boot
  local lines line at old added=0
  if [ ! -f "$BOOT_CONFIG" ] && [ "$DRY" = 0 ]; then
    echo "==> no $BOOT_CONFIG (not a Raspberry Pi boot partition): I2C speed and bus overlays not set"
    return 0
  fi
  if command -v raspi-config >/dev/null || [ "$DRY" = 1 ]; then
    step "enable I2C" raspi-config nonint do_i2c 0
  elif ! every_pi_has 'dtparam=i2c_arm=on' "$BOOT_CONFIG"; then
    # Debian on a Pi has no raspi-config: its line, which --uninstall takes away again
    step "enable I2C (after a reboot)" append_line "dtparam=i2c_arm=on" "$BOOT_CONFIG"
    remember boot-line "dtparam=i2c_arm=on"
    added=1
  fi
  # Rewrites the speed every Pi reads where it is, else adds ours where it applies to every Pi
  # (one in a model section is that model's alone): running it again changes nothing.
  line="dtparam=i2c_arm_baudrate=$I2C_HZ"
  at=$(speed_line "$BOOT_CONFIG")
  old=${at#*$'\t'}
  if [ -z "$at" ]; then
    step "I2C at $I2C_HZ Hz (after a reboot)" append_line "$line" "$BOOT_CONFIG"
    remember boot-line "$line"
    added=1
  elif [ "$old" != "$line" ]; then
    step "I2C at $I2C_HZ Hz (after a reboot)" sed -i "${at%%$'\t'*}s/.*/$line/" "$BOOT_CONFIG"
    remember boot-was "$old"
    added=1
  fi
  lines=$(profile_overlays) || fail "could not read the profile's buses"
  for line in $lines; do
    if ! every_pi_has "$line" "$BOOT_CONFIG" 2>/dev/null; then
      step "bus overlay $line" append_line "$line" "$BOOT_CONFIG"
      remember boot-line "$line"
      added=1
    fi
  done
  if [ "$added" = 1 ]; then echo "==> reboot once for the new I2C settings (sudo reboot)"; fi
}

user_and_groups() {
  local group
  for group in gpio i2c dialout; do
    if ! getent group "$group" >/dev/null; then
      step "group $group" groupadd --system "$group"
      remember group "$group"
    fi
  done
  if ! getent passwd companion >/dev/null; then
    step "user companion" useradd --system --home-dir "$STATE_DIR" --no-create-home \
      --shell /usr/sbin/nologin --groups gpio,i2c,dialout companion
    remember user companion
  else
    step "user companion in gpio, i2c, dialout" usermod -a -G gpio,i2c,dialout companion
  fi
}

gpiochip_rule_exists() {  # does the OS already give /dev/gpiochip* to group gpio?
  local dir
  for dir in $UDEV_RULE_DIRS; do
    grep -l 'gpiochip' "$dir"/*.rules 2>/dev/null | grep -v '/60-companion-gpiochip.rules$' \
      | xargs -r grep -l 'GROUP="gpio"' | grep -q . && return 0
  done
  return 1
}

devices() {  # udev rules for the GPIO chips and the button board; cdc_acm and i2c-dev loaded now
  # and at every boot
  step "rules dir" mkdir -p "$UDEV_DIR" "$MODULES_DIR"
  if [ -e "$UDEV_DIR/60-companion-gpiochip.rules" ] || ! gpiochip_rule_exists; then
    place "gpiochip to group gpio (udev)" "$SRC/systemd/udev/60-companion-gpiochip.rules" \
      "$UDEV_DIR/60-companion-gpiochip.rules"
  else
    echo "==> gpiochip: the system's own udev rule gives it to group gpio"
  fi
  place "ModemManager leaves the button board alone (udev)" \
    "$SRC/systemd/udev/70-companion-board.rules" "$UDEV_DIR/70-companion-board.rules"
  place "cdc_acm and i2c-dev loaded at boot" "$SRC/systemd/modules-load/companion.conf" "$MODULES_DIR/companion.conf"
  live "udev rules now" udevadm control --reload-rules
  live "udev rules applied" udevadm trigger --action=change --subsystem-match=gpio --subsystem-match=tty
  live "cdc_acm now" modprobe cdc_acm || echo "==> cdc_acm not loaded now (built in, or no such module): the board works from the next boot"
  live "i2c-dev now" modprobe i2c-dev || echo "==> i2c-dev not loaded now (built in, or no such module): the displays' bus is there from the next boot"
}

new_venv() {  # new_venv CURRENT: build, install and check the new version beside the running one
  local current=$1 wheels="$PREFIX/wheels" pip_extra=()
  NEW=venv-a
  [ "$current" = venv-a ] && NEW=venv-b
  # The system's pip installs into the venv (--python), which needs no pip of its own.
  local pip=("$PYTHON" -m pip --python "$PREFIX/$NEW/bin/python")
  case "$LGPIO" in
    wheel) pip_extra=(--only-binary lgpio lgpio) ;;
    source) pip_extra=(--no-binary lgpio lgpio); pip=(env PYPI=1 "${pip[@]}") ;;  # PYPI=1: liblgpio built in
  esac
  # The wheel is built from a copy of what it is made of: a build in the tree would leave build/
  # there, whose stale modules the next wheel would carry.
  if ! { step "previous version's leftovers" rm -rf "$PREFIX/$NEW" "$wheels" &&
         step "sources" mkdir -p "$wheels/src" &&
         step "copy sources" cp -r "$SRC/pyproject.toml" "$SRC/README.md" "$SRC/companion" "$wheels/src/" &&
         step "build wheel" "$PYTHON" -m pip wheel --quiet --no-deps --wheel-dir "$wheels" "$wheels/src" &&
         step "venv" "$PYTHON" -m venv --system-site-packages --without-pip "$PREFIX/$NEW" &&
         step "package" "${pip[@]}" install --quiet \
           --constraint "$SRC/systemd/constraints.txt" "$wheels"/companion-*.whl "${pip_extra[@]}" &&
         step "check profile" "$PREFIX/$NEW/bin/companion" profile check "$IN_SERVICE"; }; then
    [ "$DRY" = 1 ] || rm -rf "${PREFIX:?}/$NEW" "$wheels"
    [ -n "$current" ] && fail "the new version did not install (see above); the running one is unchanged"
    fail "the program did not install (see above); run this again once the problem is fixed"
  fi
  step "wheel no longer needed" rm -rf "$wheels"
}

switch_to() {  # switch_to NEW: point $PREFIX/venv at it in one rename
  local new=$1
  if [ -d "$PREFIX/venv" ] && [ ! -L "$PREFIX/venv" ]; then
    step "venv of an older installer" rm -rf "$PREFIX/venv"
  fi
  step "switch to the new version" ln -sfn "$new" "$PREFIX/venv.switch"
  step "switched" mv -T "$PREFIX/venv.switch" "$PREFIX/venv"
}

unit_state() {  # unit_state: the service's "ActiveState SubState MainPID NRestarts", one line
  local state key
  state=$(systemctl show companion.service -p ActiveState -p SubState -p MainPID -p NRestarts) || return 1
  for key in ActiveState SubState MainPID NRestarts; do
    printf '%s ' "$(sed -n "s/^$key=//p" <<< "$state")"
  done
}

stays_up() {  # stays_up: the service, READY now (systemctl restart returned), is still the same
  # process, active and running, SETTLE_S seconds later: a version that sends READY and then
  # crashes or is restarted (a crash loop, the watchdog) is not kept
  local first now end
  first=$(unit_state) || return 1
  end=$(( $(date +%s) + SETTLE_S ))
  while :; do
    now=$(unit_state) || return 1
    case "$now" in
      "active running "[1-9]*) ;;
      *) echo "    the service is now: $now(ActiveState SubState MainPID NRestarts)"; return 1 ;;
    esac
    if [ "$now" != "$first" ]; then
      echo "    the service was: $first; now: $now(ActiveState SubState MainPID NRestarts)"
      return 1
    fi
    [ "$(date +%s)" -lt "$end" ] || return 0
    sleep 0.5
  done
}

do_install() {
  local current
  [ -f "$PROFILE" ] || { echo "install.sh: no profile at $PROFILE" >&2; exit 2; }
  PROFILE=$(cd "$(dirname "$PROFILE")" && pwd)/$(basename "$PROFILE")
  # The profile the service will run with: the maker's, once there is one (it is never
  # overwritten), so an update that would not read it is not switched to.
  IN_SERVICE=$PROFILE
  if [ -e "$CONF/profile.toml" ]; then IN_SERVICE="$CONF/profile.toml"; fi
  check_release
  step "apt package lists" apt-get update
  lgpio_plan
  apt_packages
  step "program dir" mkdir -p "$PREFIX"
  current=$(readlink "$PREFIX/venv" 2>/dev/null || true)
  new_venv "$current"
  user_and_groups
  devices
  boot_config
  step "config dir" mkdir -p "$CONF"
  if [ ! -e "$CONF/profile.toml" ]; then
    step "profile" /usr/bin/install -m 0644 "$PROFILE" "$CONF/profile.toml"
  else
    echo "==> profile: keeping $CONF/profile.toml"
  fi
  step "unit dir" mkdir -p "$UNIT_DIR"
  place "unit" "$SRC/systemd/companion.service" "$UNIT_DIR/companion.service"
  phones_network
  live "reload systemd" systemctl daemon-reload
  step "start at boot" systemctl enable companion.service
  switch_to "$NEW"
  if [ "${IMAGE:-0}" = 1 ]; then echo "==> installed into the image: the service starts at its first boot"; return 0; fi
  local why=
  if ! step "restart with this version" systemctl restart companion.service; then
    why="did not start"
  elif ! step "the new version still up and ready after ${SETTLE_S} s" stays_up; then
    why="did not stay up after it started (it crashed, or was restarted, within ${SETTLE_S} s of its READY)"
  fi
  if [ -n "$why" ]; then
    if [ -n "$current" ] && [ "$DRY" = 0 ]; then
      switch_to "$current"
      systemctl restart companion.service || true
      fail "the new version $why (journalctl -u companion); back on the previous one"
    fi
    fail "the service $why: journalctl -u companion says why"
  fi
  echo "==> installed; the previous version, if any, stays in $PREFIX as a fallback until the next update"
}

do_uninstall() {
  local kind what at entries=() dirs=()
  if [ -f "$RECORD" ]; then
    mapfile -t entries < "$RECORD"
  elif [ "$DRY" = 1 ] || [ -e "$UNIT_DIR/companion.service" ] || [ -d "$PREFIX" ]; then
    # An install from before the record: what it added is known.
    entries=("file $UNIT_DIR/companion.service" "user companion")
  fi
  if [ "$DRY" = 1 ] || [ -e "$UNIT_DIR/companion.service" ]; then
    step "stop and disable" systemctl disable --now companion.service \
      || echo "==> the service did not stop cleanly (journalctl -u companion); removing it all the same"
  fi
  for entry in "${entries[@]}"; do
    kind=${entry%% *}
    what=${entry#* }
    case "$kind" in
      file) step "remove $what" rm -f "$what" ;;
      boot-line) [ -f "$BOOT_CONFIG" ] && step "boot config without $what" drop_line "$what" "$BOOT_CONFIG" ;;
      boot-was) at=$(speed_line "$BOOT_CONFIG")
        [ "${at#*$'\t'}" = "dtparam=i2c_arm_baudrate=$I2C_HZ" ] && step "boot config back to $what" \
          sed -i "${at%%$'\t'*}s/.*/$what/" "$BOOT_CONFIG" ;;
      user) if [ "$DRY" = 1 ] || getent passwd "$what" >/dev/null; then step "remove user $what" userdel "$what"; fi ;;
      group) if [ "$DRY" = 1 ] || getent group "$what" >/dev/null; then step "remove group $what" groupdel "$what"; fi ;;
      dir) dirs+=("$what") ;;  # once the files in it are gone
    esac
  done
  for what in "${dirs[@]}"; do
    if [ "$DRY" = 1 ] || [ -d "$what" ]; then
      step "remove $what if nothing else is in it" rmdir --ignore-fail-on-non-empty "$what"
    fi
  done
  step "reload systemd" systemctl daemon-reload
  step "reload udev rules" udevadm control --reload-rules
  step "remove program" rm -rf "$PREFIX"
  # The journals belonged to the user just removed: give them to root and let anyone read them.
  if [ "$DRY" = 1 ] || [ -d "$STATE_DIR" ]; then
    step "journals owned by root, readable by all" chown -R root:root "$STATE_DIR"
    step "journals readable" chmod -R u+rwX,go+rX "$STATE_DIR"
  fi
  echo "==> kept: $CONF (profile) and $STATE_DIR (game journals), now owned by root and readable by all;"
  echo "    also kept: the apt packages, and I2C where raspi-config switched it on (other programs may use them)"
}

# Sourced (as the tests do, to run one step), it only defines its functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  need_root
  "$ACTION"
fi
