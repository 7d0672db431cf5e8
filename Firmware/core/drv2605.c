#include "hapbridge/drv2605.h"

#include <stdbool.h>

#include "hapbridge/drv2605_regs.h"

void drv2605_init(drv2605 *chip, const hb_hooks *hooks)
{
    chip->hooks = hooks;
    chip->mode_shadow = DRV2605_MODE_UNKNOWN;
    chip->rtp_shadow = 0;
    chip->go_shadow = 0;
    chip->i2c_errors = 0;
}

static hb_i2c_result counted(drv2605 *chip, hb_i2c_result r)
{
    if (r != HB_I2C_ACK && chip->i2c_errors != UINT16_MAX) {
        chip->i2c_errors++;
    }
    return r;
}

/* After a NACK we cannot know what the chip latched: the shadows then err
 * towards "driving" (drv2605_output_state). */
static void shadow_write(drv2605 *chip, uint8_t reg, uint8_t value, hb_i2c_result r)
{
    bool ok = r == HB_I2C_ACK;
    switch (reg) {
    case DRV2605_REG_MODE:
        chip->mode_shadow = (ok && !(value & DRV2605_MODE_DEV_RESET)) ? value : DRV2605_MODE_UNKNOWN;
        if (ok && (value & DRV2605_MODE_DEV_RESET)) {
            chip->rtp_shadow = 0; /* a reset returns every register to its default */
            chip->go_shadow = 0;
        }
        break;
    case DRV2605_REG_RTP_INPUT:
        chip->rtp_shadow = ok ? value : 0xFFu;
        break;
    case DRV2605_REG_GO:
        chip->go_shadow = ok ? (uint8_t)(value & DRV2605_GO_GO) : 1u;
        break;
    default:
        break;
    }
}

hb_i2c_result drv2605_write_reg(drv2605 *chip, uint8_t reg, uint8_t value)
{
    const uint8_t bytes[2] = {reg, value};
    hb_i2c_result r = counted(chip, chip->hooks->i2c_write(chip->hooks->context,
                                                           DRV2605_I2C_ADDR, bytes, 2));
    shadow_write(chip, reg, value, r);
    return r;
}

hb_i2c_result drv2605_write(drv2605 *chip, const uint8_t *bytes, uint8_t len)
{
    hb_i2c_result r = counted(chip, chip->hooks->i2c_write(chip->hooks->context,
                                                           DRV2605_I2C_ADDR, bytes, len));
    for (uint8_t i = 1; i < len; i++) {
        shadow_write(chip, (uint8_t)(bytes[0] + i - 1u), bytes[i], r);
    }
    return r;
}

hb_i2c_result drv2605_read(drv2605 *chip, uint8_t reg, uint8_t *values, uint8_t len)
{
    hb_i2c_result r = counted(chip, chip->hooks->i2c_read(chip->hooks->context, DRV2605_I2C_ADDR,
                                                          reg, values, len));
    /* GO is the one register the chip changes on its own (a sequence ends):
     * what was read is the truth. */
    uint8_t go = (uint8_t)(DRV2605_REG_GO - reg);
    if (r == HB_I2C_ACK && reg <= DRV2605_REG_GO && go < len) {
        chip->go_shadow = (uint8_t)(values[go] & DRV2605_GO_GO);
    }
    return r;
}

hb_i2c_result drv2605_read_reg(drv2605 *chip, uint8_t reg, uint8_t *value)
{
    return drv2605_read(chip, reg, value, 1);
}

drv2605_output drv2605_output_state(const drv2605 *chip)
{
    uint8_t mode = chip->mode_shadow;
    if (mode == DRV2605_MODE_UNKNOWN) {
        return chip->go_shadow ? DRV2605_OUTPUT_SEQUENCE
               : chip->rtp_shadow ? DRV2605_OUTPUT_RTP
                                  : DRV2605_OUTPUT_IDLE;
    }
    if (mode & DRV2605_MODE_STANDBY) {
        return DRV2605_OUTPUT_IDLE;
    }
    switch (mode & DRV2605_MODE_MODE_MASK) {
    case DRV2605_MODE_RTP:
        return chip->rtp_shadow ? DRV2605_OUTPUT_RTP : DRV2605_OUTPUT_IDLE;
    case DRV2605_MODE_INTERNAL_TRIGGER:
    case DRV2605_MODE_DIAGNOSTICS:
    case DRV2605_MODE_AUTO_CAL:
        return chip->go_shadow ? DRV2605_OUTPUT_SEQUENCE : DRV2605_OUTPUT_IDLE;
    default: /* external edge/level trigger, PWM/analog, audio-to-vibe */
        return DRV2605_OUTPUT_EXTERNAL;
    }
}

uint8_t drv2605_probe(drv2605 *chip)
{
    uint8_t status;
    if (drv2605_read_reg(chip, DRV2605_REG_STATUS, &status) != HB_I2C_ACK) {
        return 0xFF;
    }
    return (uint8_t)((status & DRV2605_STATUS_DEVICE_ID_MASK) >> DRV2605_STATUS_DEVICE_ID_SHIFT);
}

hb_i2c_result drv2605_set_mode(drv2605 *chip, uint8_t mode)
{
    /* Writing the whole register also clears STANDBY and DEV_RESET. */
    if (chip->mode_shadow == mode) {
        return HB_I2C_ACK;
    }
    return drv2605_write_reg(chip, DRV2605_REG_MODE, mode);
}

hb_i2c_result drv2605_rtp(drv2605 *chip, uint8_t amplitude)
{
    hb_i2c_result r = drv2605_set_mode(chip, DRV2605_MODE_RTP);
    if (r != HB_I2C_ACK) {
        return r;
    }
    return drv2605_write_reg(chip, DRV2605_REG_RTP_INPUT, amplitude);
}

hb_i2c_result drv2605_load_sequence(drv2605 *chip, const uint8_t *entries, uint8_t count)
{
    if (count == 0 || count > DRV2605_WAV_FRM_SEQ_COUNT) {
        return HB_I2C_NACK;
    }
    hb_i2c_result r = drv2605_set_mode(chip, DRV2605_MODE_INTERNAL_TRIGGER);
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
    return drv2605_write(chip, bytes, n);
}

hb_i2c_result drv2605_play_sequence(drv2605 *chip, const uint8_t *entries, uint8_t count)
{
    hb_i2c_result r = drv2605_load_sequence(chip, entries, count);
    if (r != HB_I2C_ACK) {
        return r;
    }
    return drv2605_write_reg(chip, DRV2605_REG_GO, DRV2605_GO_GO);
}

hb_i2c_result drv2605_stop_after_rtp(drv2605 *chip)
{
    hb_i2c_result b = drv2605_write_reg(chip, DRV2605_REG_GO, 0);
    hb_i2c_result c = drv2605_write_reg(chip, DRV2605_REG_MODE,
                                        DRV2605_MODE_STANDBY | DRV2605_MODE_INTERNAL_TRIGGER);
    return (b == HB_I2C_ACK && c == HB_I2C_ACK) ? HB_I2C_ACK : HB_I2C_NACK;
}

hb_i2c_result drv2605_stop(drv2605 *chip)
{
    hb_i2c_result a = drv2605_write_reg(chip, DRV2605_REG_RTP_INPUT, 0);
    hb_i2c_result rest = drv2605_stop_after_rtp(chip);
    return (a == HB_I2C_ACK && rest == HB_I2C_ACK) ? HB_I2C_ACK : HB_I2C_NACK;
}

int drv2605_reg_writable(uint8_t reg)
{
    return reg != DRV2605_REG_STATUS && reg <= DRV2605_REG_LAST && reg != DRV2605_REG_VBAT &&
           reg != DRV2605_REG_LRA_PERIOD;
}

int drv2605_regs_writable(uint8_t reg, uint8_t n)
{
    for (uint8_t i = 0; i < n; i++) {
        if (!drv2605_reg_writable((uint8_t)(reg + i))) {
            return 0;
        }
    }
    return 1;
}
