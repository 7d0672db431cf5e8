/*
 * DRV2605 driver: the few chip operations the timed queue and the safety
 * logic need.  Keeps a shadow of MODE so a stream of RTP samples costs one
 * bus write each instead of two.
 */
#ifndef HAPBRIDGE_DRV2605_H
#define HAPBRIDGE_DRV2605_H

#include <stdint.h>

#include "hapbridge/hooks.h"

#define DRV2605_MODE_UNKNOWN 0xFFu

typedef struct drv2605 {
    const hb_hooks *hooks;
    uint8_t mode_shadow;  /* last value written to MODE, DRV2605_MODE_UNKNOWN after init */
    uint16_t i2c_errors;  /* NACKed transactions since init */
} drv2605;

void drv2605_init(drv2605 *chip, const hb_hooks *hooks);

/* Reads STATUS.DEVICE_ID; 0xFF when the chip does not answer. */
uint8_t drv2605_probe(drv2605 *chip);

hb_i2c_result drv2605_write_reg(drv2605 *chip, uint8_t reg, uint8_t value);
hb_i2c_result drv2605_read_reg(drv2605 *chip, uint8_t reg, uint8_t *value);

/* Real-time playback: leaves standby and selects RTP mode when needed. */
hb_i2c_result drv2605_rtp(drv2605 *chip, uint8_t amplitude);

/* Loads 1..8 WAV_FRM_SEQ entries (terminated when fewer) and sets GO. */
hb_i2c_result drv2605_play_sequence(drv2605 *chip, const uint8_t *entries, uint8_t count);

/* Stop policy (documented in PROTOCOL.md): RTP_INPUT = 0, GO = 0, then MODE
 * = STANDBY.  Every step is attempted even when one is NACKed. */
hb_i2c_result drv2605_stop(drv2605 *chip);

/* Writable registers: everything but STATUS and the read-only measurements. */
int drv2605_reg_writable(uint8_t reg);

#endif /* HAPBRIDGE_DRV2605_H */
