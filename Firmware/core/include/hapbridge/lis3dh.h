/*
 * The bench accelerometer on the board's I2C bus: an ST LIS3DH (datasheet
 * DocID17530 Rev 2), read through its 32-level FIFO in the stamped stream's
 * gaps and streamed to the host as ACCEL_SAMPLES (PROTOCOL.md,
 * "Accelerometer").  Register facts used here, with their section in Rev 2
 * (December 2016, which added CTRL_REG0 as 8.6):
 *
 *   6.1.1  SAD 001100x: 0x18 with SA0 low, 0x19 with it high; a sub-address
 *          with bit 7 set auto-increments (needed for a multi-byte read).
 *   8.5    WHO_AM_I (0Fh) reads 0x33.
 *   8.8    CTRL_REG1 (20h): ODR[3:0] in bits 7:4, LPen bit 3, Z/Y/X enable 2:0.
 *   8.11   CTRL_REG4 (23h): BDU bit 7, FS[1:0] bits 5:4, HR bit 3.
 *   8.12   CTRL_REG5 (24h): FIFO_EN bit 6.
 *   8.19   FIFO_CTRL_REG (2Eh): FM[1:0] bits 7:6 (00 bypass, 01 FIFO, 10 stream).
 *   8.20   FIFO_SRC_REG (2Fh): WTM bit 7, OVRN_FIFO bit 6 (the FIFO is full:
 *          32 unread; the next sample replaces the oldest), EMPTY bit 5,
 *          FSS[4:0] the unread count.
 *   8.16   OUT_X_L..OUT_Z_H (28h..2Dh), two's complement, left-justified.
 *   5.1    the FIFO; 5.1.5 and AN3308 (its application note): a burst read from 28h
 *          with the FIFO on rolls back from 2Dh to 28h, one sample per 6 bytes.
 *
 * No chip headers, no allocation: state lives in the core (hb_core.accel).
 */
#ifndef HAPBRIDGE_LIS3DH_H
#define HAPBRIDGE_LIS3DH_H

#include <stdbool.h>
#include <stdint.h>

#define LIS3DH_ADDR_SA0_LOW 0x18u
#define LIS3DH_ADDR_SA0_HIGH 0x19u
#define LIS3DH_AUTO_INCREMENT 0x80u

#define LIS3DH_REG_WHO_AM_I 0x0Fu
#define LIS3DH_WHO_AM_I_VALUE 0x33u
#define LIS3DH_REG_CTRL_REG1 0x20u
#define LIS3DH_CTRL_REG1_ODR_SHIFT 4u
#define LIS3DH_CTRL_REG1_LPEN 0x08u
#define LIS3DH_CTRL_REG1_XYZ 0x07u
#define LIS3DH_REG_CTRL_REG4 0x23u
#define LIS3DH_CTRL_REG4_BDU 0x80u
#define LIS3DH_CTRL_REG4_FS_SHIFT 4u
#define LIS3DH_CTRL_REG4_HR 0x08u
#define LIS3DH_REG_CTRL_REG5 0x24u
#define LIS3DH_CTRL_REG5_FIFO_EN 0x40u
#define LIS3DH_REG_OUT_X_L 0x28u
#define LIS3DH_REG_FIFO_CTRL 0x2Eu
#define LIS3DH_FIFO_MODE_BYPASS 0x00u
#define LIS3DH_FIFO_MODE_STREAM 0x80u
#define LIS3DH_REG_FIFO_SRC 0x2Fu
#define LIS3DH_FIFO_SRC_WTM 0x80u
#define LIS3DH_FIFO_SRC_OVRN 0x40u
#define LIS3DH_FIFO_SRC_EMPTY 0x20u
#define LIS3DH_FIFO_SRC_FSS 0x1Fu
#define LIS3DH_FIFO_DEPTH 32u

/* The most replaced samples the reader counts past (lis3dh.c, skip_replaced):
 * 0.19 s at 1344 Hz; after a longer stall it dates the FIFO from the read. */
#define HB_ACCEL_SKIP_MAX 256u

/* How soon the reader looks again when the port had no room for a frame
 * (hooks.h, send_room), us at most: a full-speed host reads bulk IN within a
 * 1 ms frame. */
#define HB_ACCEL_ROOM_RETRY_US 500u

/* ODR codes (datasheet 8.8, Table 31) with a high-resolution rate: 1..7 and 9. */
#define LIS3DH_ODR_POWER_DOWN 0u
#define LIS3DH_ODR_1344HZ 9u

/* The reader's state (main context only). */
typedef struct hb_accel {
    uint8_t addr;          /* 0: no LIS3DH answered */
    uint8_t odr;           /* ODR code streaming at, 0: not streaming */
    uint8_t fs;            /* FS code */
    bool lost;             /* samples were lost since the last frame */
    uint32_t period_us;    /* nominal sample period: whole µs */
    uint16_t period_frac_ns; /* and the ns past them */
    uint32_t next_read_us; /* when to look at the FIFO next */
    uint32_t next_us;      /* estimated board time of the oldest unread sample */
    uint16_t next_frac_ns; /* and its nanoseconds past that µs */
} hb_accel;

/* The nominal period of an ODR code in ns, 0 for a code without a
 * high-resolution rate (0, 8, 10..15). */
uint32_t hb_lis3dh_period_ns(uint8_t odr);

#endif
