#include "hapbridge/drv2605.h"

#include "hapbridge/drv2605_regs.h"

void drv2605_init(drv2605 *chip, const hb_hooks *hooks)
{
    chip->hooks = hooks;
    chip->mode_shadow = DRV2605_MODE_UNKNOWN;
    chip->i2c_errors = 0;
}

static hb_i2c_result counted(drv2605 *chip, hb_i2c_result r)
{
    if (r != HB_I2C_ACK && chip->i2c_errors != UINT16_MAX) {
        chip->i2c_errors++;
    }
    return r;
}

hb_i2c_result drv2605_write_reg(drv2605 *chip, uint8_t reg, uint8_t value)
{
    const uint8_t bytes[2] = {reg, value};
    hb_i2c_result r = counted(chip, chip->hooks->i2c_write(chip->hooks->context,
                                                           DRV2605_I2C_ADDR, bytes, 2));
    if (reg == DRV2605_REG_MODE) {
        /* After a NACK we cannot know what the chip latched. */
        chip->mode_shadow = (r == HB_I2C_ACK && !(value & DRV2605_MODE_DEV_RESET))
                                ? value
                                : DRV2605_MODE_UNKNOWN;
    }
    return r;
}

hb_i2c_result drv2605_read_reg(drv2605 *chip, uint8_t reg, uint8_t *value)
{
    return counted(chip, chip->hooks->i2c_read(chip->hooks->context, DRV2605_I2C_ADDR, reg,
                                               value, 1));
}

uint8_t drv2605_probe(drv2605 *chip)
{
    uint8_t status;
    if (drv2605_read_reg(chip, DRV2605_REG_STATUS, &status) != HB_I2C_ACK) {
        return 0xFF;
    }
    return (uint8_t)((status & DRV2605_STATUS_DEVICE_ID_MASK) >> DRV2605_STATUS_DEVICE_ID_SHIFT);
}

static hb_i2c_result ensure_mode(drv2605 *chip, uint8_t mode)
{
    /* Writing the whole register also clears STANDBY and DEV_RESET. */
    if (chip->mode_shadow == mode) {
        return HB_I2C_ACK;
    }
    return drv2605_write_reg(chip, DRV2605_REG_MODE, mode);
}

hb_i2c_result drv2605_rtp(drv2605 *chip, uint8_t amplitude)
{
    hb_i2c_result r = ensure_mode(chip, DRV2605_MODE_RTP);
    if (r != HB_I2C_ACK) {
        return r;
    }
    return drv2605_write_reg(chip, DRV2605_REG_RTP_INPUT, amplitude);
}

hb_i2c_result drv2605_play_sequence(drv2605 *chip, const uint8_t *entries, uint8_t count)
{
    if (count == 0 || count > DRV2605_WAV_FRM_SEQ_COUNT) {
        return HB_I2C_NACK;
    }
    hb_i2c_result r = ensure_mode(chip, DRV2605_MODE_INTERNAL_TRIGGER);
    if (r != HB_I2C_ACK) {
        return r;
    }
    /* One auto-incrementing write: register, entries, and a 0 terminator
     * when the sequence is shorter than the eight slots. */
    uint8_t bytes[1 + DRV2605_WAV_FRM_SEQ_COUNT];
    uint8_t n = 0;
    bytes[n++] = DRV2605_REG_WAV_FRM_SEQ1;
    for (uint8_t i = 0; i < count; i++) {
        bytes[n++] = entries[i];
    }
    if (count < DRV2605_WAV_FRM_SEQ_COUNT) {
        bytes[n++] = 0;
    }
    r = counted(chip, chip->hooks->i2c_write(chip->hooks->context, DRV2605_I2C_ADDR, bytes, n));
    if (r != HB_I2C_ACK) {
        return r;
    }
    return drv2605_write_reg(chip, DRV2605_REG_GO, DRV2605_GO_GO);
}

hb_i2c_result drv2605_stop(drv2605 *chip)
{
    hb_i2c_result a = drv2605_write_reg(chip, DRV2605_REG_RTP_INPUT, 0);
    hb_i2c_result b = drv2605_write_reg(chip, DRV2605_REG_GO, 0);
    hb_i2c_result c = drv2605_write_reg(chip, DRV2605_REG_MODE,
                                        DRV2605_MODE_STANDBY | DRV2605_MODE_INTERNAL_TRIGGER);
    return (a == HB_I2C_ACK && b == HB_I2C_ACK && c == HB_I2C_ACK) ? HB_I2C_ACK : HB_I2C_NACK;
}

int drv2605_reg_writable(uint8_t reg)
{
    return reg != DRV2605_REG_STATUS && reg <= DRV2605_REG_LAST && reg != DRV2605_REG_VBAT &&
           reg != DRV2605_REG_LRA_PERIOD;
}
