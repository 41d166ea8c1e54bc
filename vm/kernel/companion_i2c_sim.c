// SPDX-License-Identifier: GPL-2.0
/*
 * The virtual Pi's I2C-1: a bus with a TCA9548A multiplexer at 0x70 and SSD1306 panels at 0x3C
 * behind chosen multiplexer channels, and optionally panels straight on the bus (0x3C, 0x3D).
 *
 * It answers plain I2C transfers (I2C_FUNC_I2C), as the Pi's controller does; the kernel emulates
 * SMBus calls over them, so both luma's own bus (i2c_rdwr) and the product's multiplexer wrapper
 * (SMBus block writes) reach it. A transfer to an address nobody answers fails with -EREMOTEIO,
 * the errno the Pi's i2c-bcm2835 gives for a NAK, so a missing panel takes the product's real
 * error path. The panels keep nothing: what was sent is read back from the kernel's i2c trace
 * events (tracefs i2c:i2c_write), which is what the checks compare against the rendered frames.
 *
 * TCA9548A behaviour emulated (datasheet, 8.6 "Control Register"): a one-byte write to the
 * multiplexer sets its channel mask (bit n enables channel n); a read returns the mask; a device
 * behind the multiplexer answers while its channel is enabled.
 *
 * Parameters (writable at run time in /sys/module/companion_i2c_sim/parameters):
 *   bus      the adapter number, so it becomes /dev/i2c-<bus> (default 1, the Pi's)
 *   channels mask of multiplexer channels with a panel at 0x3C (default 0x07); clear a bit to
 *            unplug that panel
 *   direct   panels straight on the bus: bit 0 for 0x3C, bit 1 for 0x3D (default 0)
 */
#include <linux/i2c.h>
#include <linux/module.h>
#include <linux/string.h>

#define MUX_ADDRESS 0x70
#define PANEL_ADDRESS 0x3C

static int bus = 1;
module_param(bus, int, 0444);
MODULE_PARM_DESC(bus, "I2C adapter number");

static unsigned int channels = 0x07;
module_param(channels, uint, 0644);
MODULE_PARM_DESC(channels, "multiplexer channels with a panel at 0x3C");

static unsigned int direct;
module_param(direct, uint, 0644);
MODULE_PARM_DESC(direct, "panels on the bus itself: bit 0 = 0x3C, bit 1 = 0x3D");

static u8 mux_mask;

static bool answers(u16 addr)
{
	if (addr == PANEL_ADDRESS && (direct & 1))
		return true;
	if (addr == PANEL_ADDRESS + 1 && (direct & 2))
		return true;
	return addr == PANEL_ADDRESS && (mux_mask & READ_ONCE(channels));
}

static int sim_xfer(struct i2c_adapter *adap, struct i2c_msg *msgs, int num)
{
	int i;

	for (i = 0; i < num; i++) {
		struct i2c_msg *m = &msgs[i];
		bool reading = m->flags & I2C_M_RD;

		if (m->addr == MUX_ADDRESS) {
			if (reading)
				memset(m->buf, mux_mask, m->len);
			else if (m->len)
				mux_mask = m->buf[m->len - 1];
			continue;
		}
		if (!answers(m->addr))
			return -EREMOTEIO;
		if (reading)
			memset(m->buf, 0, m->len); /* an SSD1306's status: on, not busy */
	}
	return num;
}

static u32 sim_functionality(struct i2c_adapter *adap)
{
	return I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL;
}

static const struct i2c_algorithm sim_algorithm = {
	.master_xfer = sim_xfer,
	.functionality = sim_functionality,
};

static struct i2c_adapter sim_adapter = {
	.owner = THIS_MODULE,
	.class = I2C_CLASS_HWMON,
	.algo = &sim_algorithm,
	.name = "companion virtual Pi I2C",
};

static int __init sim_init(void)
{
	sim_adapter.nr = bus;
	return i2c_add_numbered_adapter(&sim_adapter);
}

static void __exit sim_exit(void)
{
	i2c_del_adapter(&sim_adapter);
}

module_init(sim_init);
module_exit(sim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Virtual Pi I2C bus: a TCA9548A and SSD1306 panels for Tabletop Companion's checks");
