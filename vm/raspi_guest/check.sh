#!/bin/sh
# The emulated Pi 4's side of `python -m vm check --machine raspi4b` (vm/raspi.py): started by the
# kernel's command line (systemd.run=, so nothing is added to the card's root), it waits for the
# box's unit to be READY, then prints what the checks judge on the console (ttyAMA0), each line
# "vmcheck KEY: VALUE", and "vmcheck end" last; the host reads the console log.
exec >/dev/console 2>&1
say() { echo "vmcheck $1: $2"; }
unit() { systemctl show companion.service -p "$1" --value; }
# Until the unit is READY (active, with a status), or has failed, or has no start job left (nothing
# will start it): one systemctl a second (each takes about a second of the emulator's time), at
# most 900 s; the unit's own TimeoutStartSec= bounds a start that hangs.
i=0
while [ "$i" -lt 900 ]; do
  state=$(systemctl show companion.service -p ActiveState -p StatusText -p Job)
  active=$(echo "$state" | sed -n 's/^ActiveState=//p')
  [ "$active" = active ] && echo "$state" | grep -q '^StatusText=.' && break
  [ "$active" = failed ] && break
  [ "$active" = inactive ] && ! echo "$state" | grep -q '^Job=.' && break  # no job: nothing will start it
  sleep 1; i=$((i + 1))
done
say waited_s "$i"
say ready_monotonic_us "$(unit ActiveEnterTimestampMonotonic)"
say exec_start_monotonic_us "$(unit ExecMainStartTimestampMonotonic)"
for key in Type ActiveState SubState StatusText TimeoutStartUSec WatchdogUSec NRestarts; do say "unit_$key" "$(unit "$key")"; done
say loop "$(chrt -p "$(unit MainPID)" | tr '\n' ' ')"
say reader "$(chrt -p "$(pgrep -f companion.adapters.gpioreader | head -n 1)" | tr '\n' ' ')"
journalctl -u companion.service -b --no-pager -o cat | sed 's/^/vmcheck log: /'
say kernel "$(uname -r) | $(cat /proc/version)"
say model "$(tr -d '\0' < /proc/device-tree/model)"
say compatible "$(tr '\0' ' ' < /proc/device-tree/compatible)"
K=$(uname -r)
for f in /boot/firmware/a/vmlinuz-$K /boot/firmware/a/bcm2711-rpi-4-b.dtb; do say md5_card "$(md5sum "$f")"; done
grep -E ' (boot/vmlinuz-|usr/lib/linux-image-[^/]*/broadcom/bcm2711-rpi-4-b.dtb$)' \
  "/var/lib/dpkg/info/linux-image-$K.md5sums" | sed 's/^/vmcheck md5_debian: /'
for a in /sys/bus/i2c/devices/i2c-*; do  # the adapters (6.12 has no /sys/class/i2c-adapter)
  hz=$(od -An -tu1 "$a/of_node/clock-frequency" 2>/dev/null | awk '{n = 0; for (i = 1; i <= NF; i++) n = n * 256 + $i; print n}')
  say i2c "$(basename "$a") $(cat "$a/name") node=$(basename "$(readlink -f "$a/of_node")") hz=$hz"
done
say i2c_dev "$(ls -l /dev/i2c-1 2>&1)"
# The BCM2835 I2C controllers' interrupt line and its counts (QEMU's raspi4b may not raise it).
say i2c_irq "$(grep -E '[0-9a-f]+\.i2c' /proc/interrupts | tr -s ' ' | tr '\n' ' ')"
say gpiochip0 "$(cat /sys/bus/gpio/devices/gpiochip0/label 2>/dev/null || ls /sys/bus/gpio/devices) lines=$(cat /sys/bus/gpio/devices/gpiochip0/ngpio 2>/dev/null)"
say root "$(findmnt -no SOURCE,FSTYPE,OPTIONS /)"
say data "$(findmnt -no SOURCE,FSTYPE,OPTIONS /var/lib/companion)"
say data_partuuid "$(blkid -s PARTUUID -o value "$(findmnt -no SOURCE /var/lib/companion)")"
say sizes "$(lsblk -bnro NAME,START,SIZE /dev/mmcblk0 | sed "s/^mmcblk0  /mmcblk0 0 /" | tr "\n" " ")"
say data_fs "$(dumpe2fs -h "$(findmnt -no SOURCE /var/lib/companion)" 2>/dev/null | grep -E '^Block (count|size):' | tr -s ' ' | tr '\n' ' ')"
say grow "$(journalctl -b --no-pager -o cat -t companion-grow-data | tail -n 3 | tr '\n' ' ')"
say slot "$(sed -n 's/.*root=PARTUUID=[0-9a-f]*-0\([23]\).*/\1/p' /proc/cmdline | sed 's/2/a/; s/3/b/')"
G=/boot/firmware/vm-check
BOX="runuser -u companion -- env STATE_DIRECTORY=/var/lib/companion /opt/companion/venv/bin/companion"
CUT=/var/lib/companion/cut
journals() {  # every journal on the data partition: path, complete lines, sha256, its partition
  find /var/lib/companion -name '*.jsonl' | sort | while read -r j; do
    say journal "$j $(wc -l < "$j") $(sha256sum < "$j" | cut -c1-16) on $(df --output=source "$j" | tail -n 1)"
  done
}
complete_lines() {  # the cut game's journal: complete lines, whether each parses, the sha of the first N
  j=$(find "$CUT" -name '*.jsonl' | head -n 1)
  [ -n "$j" ] || { say cut_journal "none"; return; }
  python3 -c 'import json, sys, hashlib
text = open(sys.argv[1], "rb").read()
lines = text.split(b"\n")[:-1]  # complete lines only: a cut may leave a partial last one
n = int(sys.argv[2]) if sys.argv[2] else len(lines)
def parses(line):
    try:
        return json.loads(line) is not None
    except ValueError:
        return False
bad = sum(not parses(line) for line in lines)
print("vmcheck cut_journal:", sys.argv[1], len(lines), "bad=%d" % bad, "partial" if text and not text.endswith(b"\n") else "whole",
      n, hashlib.sha256(b"\n".join(lines[:n])).hexdigest()[:16])' "$j" "${1:-}"
}
case "$(cat $G/phase 2>/dev/null)" in
first)
  # A game as played by the box's own program, as its user, into the unit's state directory:
  # where the box's journals land (named: a scripted run's journals go to a fresh temporary folder).
  # The unit is stopped meanwhile: one box per state directory, and the running unit holds its
  # lock (the scripted run was refused, exit 2).
  systemctl stop companion.service
  $BOX run --profile "$G/mock-3.toml" --script "$G/trio.txt" --game trio --option trio.allow_new_word=on \
    --journal-dir /var/lib/companion/games > /run/game.out 2>&1
  rc=$?
  say game_rc "$rc"
  [ "$rc" = 0 ] || tail -n 5 /run/game.out | sed 's/^/vmcheck game_out: /'
  systemctl start --no-block companion.service
  journals
  # An update: this release copied into the other slot, the next boot's (the card's own tool).
  t0=$(date +%s)
  say update "$(companion-slot update "/dev/disk/by-partuuid/$(blkid -s PARTUUID -o value "$(findmnt -no SOURCE /)")" /boot/firmware/a 2>&1 | tr '\n' ' ')"
  say update_s "$(($(date +%s) - t0))"
  say next_slot "$(companion-slot status)"
  sync
  # The power cut: a game played twenty times slower, cut (QEMU killed by the host) once its
  # journal has three lines; nothing here syncs it.
  mkdir -p "$CUT" && chown companion:companion "$CUT"
  $BOX run --profile "$G/mock-3.toml" --script "$G/trio.txt" --game trio --option trio.allow_new_word=on \
    --speed 0.05 --journal-dir "$CUT" > /run/cut.out 2>&1 &
  i=0
  while [ "$i" -lt 600 ]; do
    j=$(find "$CUT" -name '*.jsonl' | head -n 1)
    [ -n "$j" ] && [ "$(wc -l < "$j")" -ge 3 ] && break
    sleep 0.5; i=$((i + 1))
  done
  complete_lines
  echo "vmcheck cut now"
  # The host kills QEMU now. Until then nothing may end: this script's end would shut the system
  # down, which unmounts the data partition cleanly, and the cut would be no cut.
  sleep 3600 ;;
second)
  # A real cut leaves the data partition's ext4 journal to replay (by systemd-fsck or the mount):
  # without it, the partition was unmounted cleanly and there was no cut.
  say cut_recovered "$(journalctl -b --no-pager -o cat | grep -iE 'recovering journal|recovery complete' | tr '\n' ' ')"
  n=$(cat $G/cut_lines 2>/dev/null || echo 0)
  complete_lines "$n"
  # Ana's ok resumes the game, her next starts the timer: a line the resumed game writes (a
  # resume alone writes none; the game goes on from its journal as it was).
  printf '0.5 1 ok\n1.5 1 ok\n' > /run/resume.txt
  $BOX run --profile "$G/mock-3.toml" --script /run/resume.txt --game trio --option trio.allow_new_word=on \
    --journal-dir "$CUT" > /run/resume.out 2>&1
  rc=$?
  say resume_rc "$rc"
  [ "$rc" = 0 ] || tail -n 5 /run/resume.out | sed 's/^/vmcheck resume_out: /'
  complete_lines "$n"
  journals
  say rollback "$(companion-slot rollback 2>&1 | tr '\n' ' ')"
  sync
  echo "vmcheck end" ;;
*)
  journals
  sync
  echo "vmcheck end" ;;
esac
