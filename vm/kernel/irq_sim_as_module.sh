#!/bin/sh
# irq_sim.c is a bool in Kconfig (selected by the drivers that use it, none of them in Debian's
# amd64 kernel): make it a loadable module. Two edits: a module header and licence, and the
# interrupt delivered with generic_handle_irq(), which modules may call, instead of
# handle_simple_irq(irq_to_desc()), whose irq_to_desc is not exported (generic_handle_irq runs
# the same handler: irq_sim maps every interrupt with handle_simple_irq).
set -eu
F=$1
grep -q 'MODULE_LICENSE' "$F" && exit 0
grep -q 'handle_simple_irq(irq_to_desc(irqnum));' "$F" || { echo "irq_sim.c: the line to edit is not there" >&2; exit 1; }
sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$F"
sed -i '0,/^#include/s//#include <linux\/module.h>\n#include/' "$F"
printf '\nMODULE_LICENSE("GPL");\nMODULE_DESCRIPTION("Interrupt simulator, as a module for the virtual Pi");\n' >> "$F"
