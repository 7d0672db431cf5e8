/*
 * The portable firmware core: decodes host frames, queues stamped commands,
 * executes them from the port's one-shot timer, drives the DRV2605, and stops
 * the actuator when the host goes silent, a fault latches, or one drive runs
 * too long.
 *
 * Threading model: hb_core_receive and hb_core_poll run in the main context;
 * hb_core_timer_fired runs in the timer's context (an ISR on the AVR).  The
 * main context touches state it shares with the timer only between
 * hooks.lock/unlock, and hb_core_timer_fired must never run while that lock
 * is held: on an MCU, lock masks the timer interrupt, which gives exactly
 * that; a threaded port calls hb_core_timer_fired with its own lock taken;
 * a single-threaded board (the Swift simulation) needs no lock at all.
 * All state lives in the caller-owned hb_core: no globals, no allocation.
 */
#ifndef HAPBRIDGE_CORE_H
#define HAPBRIDGE_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "hapbridge/drv2605.h"
#include "hapbridge/firmware_version.h"
#include "hapbridge/frame.h"
#include "hapbridge/hooks.h"
#include "hapbridge/lis3dh.h"
#include "hapbridge/protocol.h"
#include "hapbridge/queue.h"

/* While a session is open the chip's STATUS is read this often for faults. */
#define HB_STATUS_POLL_US 20000u
/* While a ROM sequence plays, GO is read this often to see it end. */
#define HB_GO_POLL_US 10000u

typedef struct hb_core_config {
    /* How long the port takes from the end of the core's spin to the I2C
     * START of the write it then makes.  0 for virtual-time boards. */
    uint16_t exec_lead_us;
    /* A register write's START to STOP on the port's bus (address, register,
     * value: 3 bytes on the wire) at the rate it runs.  The chip takes a
     * value at the STOP, and a command's stamp is when the chip takes it: the
     * core starts the write that carries a command exec_lead_us + write_us
     * before the stamp, and the writes it needs first (a MODE change, a ROM
     * sequence's entries) before that (core_private.h, hbi_due_time).  0
     * where I2C takes no board time (virtual-time boards). */
    uint16_t write_us;
    /* The timer is armed this much before a command is due and the timer
     * callback busy-waits the rest, absorbing interrupt-entry jitter.  Must
     * be 0 where now_us does not advance by itself (virtual-time boards). */
    uint16_t spin_us;
    /* Resolution of now_us, reported in HELLO_REPLY. */
    uint16_t tick_ns;
    /* The board's intake, reported in HELLO_REPLY (1.1): the least µs between
     * stamped writes the port keeps up with; 0 = not stated. */
    uint16_t write_spacing_us;
    /* What every main-context I2C transaction costs on this port beyond its
     * bytes at the bus rate, added to every bus guard (hbi_bus_free_for): a
     * STATUS poll or an untimed read only takes the bus when it ends before
     * the next stamped command.  0 where the bus is the MCU's own; a USB
     * round trip where the host drives I2C through an adapter (the hosted
     * FT232H). */
    uint16_t transaction_overhead_us;
    /* The board's identity, reported in HELLO_REPLY from minor 1 on. */
    uint8_t bootloader_kind;            /* HB_BOOTLOADER_* */
    uint8_t serial_len;                 /* 0..HB_SERIAL_MAX_LEN */
    uint8_t serial[HB_SERIAL_MAX_LEN];  /* ASCII, hb_serial_char_ok */
} hb_core_config;

/* What drives the actuator, as the chip driver's shadows say (drv2605.h). */
typedef enum hb_drive_state {
    HB_DRIVE_IDLE = DRV2605_OUTPUT_IDLE,
    HB_DRIVE_RTP = DRV2605_OUTPUT_RTP,           /* non-zero RTP amplitude in force */
    HB_DRIVE_SEQUENCE = DRV2605_OUTPUT_SEQUENCE, /* GO set: a ROM sequence, diagnostics, calibration */
    HB_DRIVE_EXTERNAL = DRV2605_OUTPUT_EXTERNAL, /* a mode driven by the chip's inputs (PWM, audio, trigger) */
} hb_drive_state;

typedef struct hb_core {
    hb_hooks hooks;
    hb_core_config config;
    drv2605 chip;
    hb_decoder decoder;
    hb_queue queue;

    /* session (main context) */
    bool open;
    uint8_t expected_seq;
    uint8_t last_seq;
    uint8_t tx_seq;
    uint8_t device_id;
    uint32_t keepalive_us;
    uint32_t max_drive_us;
    uint32_t last_rx_us;
    uint32_t next_status_poll_us;
    uint32_t next_go_poll_us;

    /* shared with the timer context: under lock */
    uint8_t drive;          /* hb_drive_state */
    uint32_t drive_start_us;
    uint8_t pending_faults; /* HB_FAULT_* seen by the timer, not yet acted on */
    uint8_t faults;         /* latched HB_FAULT_* */
    uint8_t stop_reason;    /* HB_STOP_* of the last stop */

    /* statistics */
    uint16_t underruns;
    uint16_t rejected;
    uint32_t executed;
    uint32_t last_at_us;
    uint32_t last_run_us;
    bool last_late;         /* whether the last executed command counted as an underrun */

    /* The untimed read waiting for its gap (main context), one at a time (a
     * second is refused QUEUE_FULL meanwhile).  Reads only: a write would need
     * its data kept, and RAM below the bootloader key at 0x0800 is spent. */
    bool untimed_pending;
    uint8_t untimed_seq;
    uint8_t untimed[HB_I2C_READ_LEN];
    uint32_t untimed_since_us;

    /* The bench accelerometer, when one answered (lis3dh.h; main context). */
    hb_accel accel;

    uint8_t tx[HB_FRAME_MAX_LEN];
} hb_core;

/* No I/O: copies the hooks (the caller's struct may go away). */
void hb_core_init(hb_core *core, const hb_hooks *hooks, const hb_core_config *config);

/* Probes the chip and puts it in standby.  Call once the bus is up. */
void hb_core_start(hb_core *core);

/* Bytes from the host, in order, any chunking. */
void hb_core_receive(hb_core *core, const uint8_t *bytes, uint32_t len);

/* Safety and housekeeping; call at least every millisecond of board time. */
void hb_core_poll(hb_core *core);

/* The port's timer reached the time last passed to arm_timer. */
void hb_core_timer_fired(hb_core *core);

/* Earliest board time at which hb_core_poll or hb_core_timer_fired has
 * something to do; false when nothing is pending.  Lets a virtual-time board
 * jump straight to the next event. */
bool hb_core_next_deadline(hb_core *core, uint32_t *at_us);

#endif /* HAPBRIDGE_CORE_H */
