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

/* Whether, and by what, the actuator is driven, judged from what was written
 * to the chip (see drv2605_output). */
typedef enum drv2605_output {
    DRV2605_OUTPUT_IDLE = 0,
    DRV2605_OUTPUT_RTP = 1,      /* RTP mode with a non-zero RTP_INPUT */
    DRV2605_OUTPUT_SEQUENCE = 2, /* GO set (sequence, diagnostics, calibration) */
    DRV2605_OUTPUT_EXTERNAL = 3, /* PWM/analog, audio-to-vibe or a trigger mode drives it */
} drv2605_output;

/* Every write to the chip, whoever makes it (a stamped command, an untimed
 * I2C_WRITE, the stop), goes through this driver and updates these shadows,
 * so the safety code judges the drive the same way whatever started it. */
typedef struct drv2605 {
    const hb_hooks *hooks;
    uint8_t mode_shadow;  /* last value written to MODE, DRV2605_MODE_UNKNOWN after init */
    uint8_t rtp_shadow;   /* last RTP_INPUT written; 0xFF when a write was NACKed */
    uint8_t go_shadow;    /* GO as last written or read; 1 when a write was NACKed */
    uint16_t i2c_errors;  /* NACKed transactions since init */
} drv2605;

void drv2605_init(drv2605 *chip, const hb_hooks *hooks);

/* Reads STATUS.DEVICE_ID; 0xFF when the chip does not answer. */
uint8_t drv2605_probe(drv2605 *chip);

hb_i2c_result drv2605_write_reg(drv2605 *chip, uint8_t reg, uint8_t value);
/* One auto-increment write: bytes[0] is the register, bytes[1..len-1] the
 * values.  Callers check drv2605_reg_writable for each register first. */
hb_i2c_result drv2605_write(drv2605 *chip, const uint8_t *bytes, uint8_t len);
hb_i2c_result drv2605_read_reg(drv2605 *chip, uint8_t reg, uint8_t *value);
hb_i2c_result drv2605_read(drv2605 *chip, uint8_t reg, uint8_t *values, uint8_t len);

/* What the shadows say drives the actuator.  After a NACK the chip's state is
 * unknown, so it errs towards "driving": a stop is always safe. */
drv2605_output drv2605_output_state(const drv2605 *chip);

/* Writes MODE (which also leaves standby) unless the shadow says it holds
 * `mode` already. */
hb_i2c_result drv2605_set_mode(drv2605 *chip, uint8_t mode);

/* Real-time playback: leaves standby and selects RTP mode when needed. */
hb_i2c_result drv2605_rtp(drv2605 *chip, uint8_t amplitude);

/* Selects internal-trigger mode when needed and loads 1..8 WAV_FRM_SEQ
 * entries (terminated when fewer) in one write; GO not set. */
hb_i2c_result drv2605_load_sequence(drv2605 *chip, const uint8_t *entries, uint8_t count);
/* drv2605_load_sequence, then GO. */
hb_i2c_result drv2605_play_sequence(drv2605 *chip, const uint8_t *entries, uint8_t count);

/* The stop's writes after its first (RTP_INPUT = 0, made on its own where the
 * stop is timed): GO = 0, then MODE = standby + internal trigger. */
hb_i2c_result drv2605_stop_after_rtp(drv2605 *chip);

/* Stop policy (documented in PROTOCOL.md): RTP_INPUT = 0, GO = 0, then MODE
 * = STANDBY.  Every step is attempted even when one is NACKed. */
hb_i2c_result drv2605_stop(drv2605 *chip);

/* Writable registers: everything but STATUS and the read-only measurements. */
int drv2605_reg_writable(uint8_t reg);
/* The same for every register an auto-increment write of n values from reg touches. */
int drv2605_regs_writable(uint8_t reg, uint8_t n);

#endif /* HAPBRIDGE_DRV2605_H */
