/* A board for unit tests: virtual clock, a DRV2605 register file that logs
 * every transaction, captured outgoing frames, and the armed timer. */
#ifndef FAKE_BOARD_H
#define FAKE_BOARD_H

#include <stdbool.h>
#include <stdint.h>

#include "hapbridge/core.h"

#define FAKE_LOG_MAX 256
/* A second device on the bus (a LIS3DH-like accelerometer), for untimed I2C. */
#define FAKE_OTHER_ADDR 0x18u
#define FAKE_OTHER_REGS 0x40u
#define FAKE_FRAMES_MAX 64

typedef struct fake_write {
    uint32_t at_us;
    uint8_t reg;
    uint8_t n;
    uint8_t addr;
    uint8_t bytes[HB_I2C_MAX_DATA];
} fake_write;

typedef struct fake_frame {
    uint8_t seq, type, len;
    uint8_t payload[HB_FRAME_MAX_PAYLOAD];
} fake_frame;

/* A LIS3DH at FAKE_OTHER_ADDR (fake_fit_lis3dh): WHO_AM_I, a 32-level FIFO
 * filled at the rate CTRL_REG1 sets, FIFO_SRC and burst reads that pop it.
 * Sample i (from 0) reads X = i, Y = -i, Z = 1000 (12-bit counts, left-justified). */
typedef struct fake_lis3dh {
    bool fitted;
    uint32_t period_us;  /* 0: powered down */
    uint32_t next_us;    /* when the next sample lands */
    uint32_t produced;   /* samples made since the rate was set */
    uint32_t first;      /* index of the oldest sample in the FIFO */
    uint8_t count;       /* samples in the FIFO, 0..32 (32: OVRN_FIFO) */
    uint32_t replaced;   /* samples a full FIFO replaced (lost) */
    uint32_t sample_at[64]; /* when sample i landed (i < 64) */
} fake_lis3dh;

typedef struct fake_board {
    hb_core core;
    uint32_t now_us;
    bool timer_armed;
    uint32_t timer_at;
    uint8_t regs[0x23];
    bool nack;                /* the chip stops answering */
    uint8_t other_regs[FAKE_OTHER_REGS];
    fake_write writes[FAKE_LOG_MAX];
    uint32_t write_count;
    uint32_t read_count;
    fake_frame frames[FAKE_FRAMES_MAX];
    uint32_t frame_count;
    uint32_t bootloader_calls;
    uint8_t host_seq;
    fake_lis3dh lis;
    /* The port's room for unprompted frames (hooks.h, send_room), when limited:
     * each ACCEL_SAMPLES frame sent takes its length from it, as from a ring. */
    bool room_limited;
    uint8_t room;
} fake_board;

/* Fits the LIS3DH and lets the core find it (hb_core_start again). */
void fake_fit_lis3dh(fake_board *b);

void fake_init(fake_board *b);
/* The same with the board's identity in its configuration. */
void fake_init_with(fake_board *b, const hb_core_config *config);
/* Advances virtual time, firing the timer and polling like a port would. */
void fake_advance(fake_board *b, uint32_t us);
/* Host side: encode and feed a frame with the next host sequence number. */
void fake_send(fake_board *b, uint8_t type, const uint8_t *payload, uint8_t len);
void fake_hello(fake_board *b, uint16_t keepalive_ms, uint16_t max_drive_ms);
/* HELLO from a host speaking protocol 1.minor. */
void fake_hello_minor(fake_board *b, uint8_t minor, uint16_t keepalive_ms, uint16_t max_drive_ms);
void fake_rtp(fake_board *b, uint32_t at, uint8_t amplitude);
/* Last frame of this type sent to the host, or NULL. */
const fake_frame *fake_last(const fake_board *b, uint8_t type);
uint32_t fake_count(const fake_board *b, uint8_t type);
/* Reason of the last NAK / EVENT_STOPPED sent, 0 when none. */
uint8_t fake_last_nak_reason(const fake_board *b);
uint8_t fake_last_stop_reason(const fake_board *b);
/* The chip is in the stop policy's state: RTP_INPUT 0, GO clear, standby. */
bool fake_chip_stopped(const fake_board *b);
/* Writes to the chip's reg with first data byte value. */
uint32_t fake_writes_of(const fake_board *b, uint8_t reg, uint8_t value);

#endif
