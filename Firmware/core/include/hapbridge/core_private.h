/*
 * Shared between the core's own source files (core.c, exec.c, dispatch.c,
 * safety.c).  Not an interface for ports or hosts: use core.h.
 */
#ifndef HAPBRIDGE_CORE_PRIVATE_H
#define HAPBRIDGE_CORE_PRIVATE_H

#include "hapbridge/core.h"
#include "hapbridge/drv2605_regs.h"

/* Wrap-safe "now is at or after at" for 32-bit microsecond clocks. */
static inline bool hbi_reached(uint32_t now, uint32_t at) { return (int32_t)(now - at) >= 0; }

static inline uint32_t hbi_now(hb_core *core) { return core->hooks.now_us(core->hooks.context); }

static inline void hbi_lock(hb_core *core)
{
    if (core->hooks.lock) {
        core->hooks.lock(core->hooks.context);
    }
}

static inline void hbi_unlock(hb_core *core)
{
    if (core->hooks.unlock) {
        core->hooks.unlock(core->hooks.context);
    }
}

/* When the spin before the write that carries the command must end for the
 * write's STOP, where the chip takes the value, to land on the stamp. */
static inline uint32_t hbi_latch_start(const hb_core *core, const hb_cmd *cmd)
{
    return cmd->at_us - core->config.exec_lead_us - core->config.write_us;
}

/* What a byte beyond a register write's three takes on the bus over 5/16 of
 * write_us: at 400 kHz a byte is 9 SCL periods (22.5 us) and the driver holds
 * SCL low ~3 us handling its TWINT; 5/16 of 82 is 25.6.  Measured on the
 * ATmega32U4 under simavr: with 1 a ROM sequence's 9-byte load overran its
 * slot and its GO latched 1.2 us late; with 5 it latches with the others. */
#define HB_WRITE_BYTE_MARGIN_US 5u

/* How long before its stamp a command must be queued to latch on it
 * (HELLO_REPLY's latch lead): the spin, the lead to the START, and the
 * carrying write with a MODE write ahead of it, the most a streamed command
 * (RTP, register write, stop) needs.  A ROM sequence's entries need more;
 * hosts that send one give it room of their own. */
static inline uint16_t hbi_latch_lead_us(const hb_core *core)
{
    uint32_t us = (uint32_t)core->config.spin_us + core->config.exec_lead_us + 2u * core->config.write_us;
    return us > 0xFFFFu ? 0xFFFFu : (uint16_t)us;
}

/* Board time the core gives the writes a command needs before the one that
 * carries it (exec.c): a MODE change, a ROM sequence's entries.  0 when there
 * are none or the bus takes no board time.  Reads the chip driver's MODE
 * shadow: under the lock or in the timer context. */
uint16_t hbi_prewrite_us_slow(const hb_core *core, const hb_cmd *cmd);
static inline uint16_t hbi_prewrite_us(const hb_core *core, const hb_cmd *cmd)
{
    /* A stream's RTP in RTP mode, a register write, a stop: nothing ahead.
     * Inline: the main loop and the intake ask for a due time on every pass
     * and frame, and a board behind its stamps takes frames at the pace of
     * that path (each call out of line is ~2 us on the ATmega32U4). */
    if (cmd->kind == HB_CMD_REG_WRITE || cmd->kind == HB_CMD_STOP ||
        (cmd->kind == HB_CMD_RTP && core->chip.mode_shadow == DRV2605_MODE_RTP)) {
        return 0;
    }
    return hbi_prewrite_us_slow(core, cmd);
}

/* When the command takes the bus: its first write starts then (spin over).
 * The one place that says so: the timer, the deadlines and the guards that
 * keep main-context traffic off the bus (hbi_bus_free_for) all read it. */
static inline uint32_t hbi_due_time(const hb_core *core, const hb_cmd *cmd)
{
    return hbi_latch_start(core, cmd) - hbi_prewrite_us(core, cmd);
}

/* Whether main-context bus traffic lasting `us` can take the bus at `now`
 * without the next stamped command falling due meanwhile (under the lock). */
static inline bool hbi_bus_free_for(hb_core *core, uint32_t now, uint32_t us)
{
    const hb_cmd *head = hb_queue_peek(&core->queue);
    return !head || (int32_t)(hbi_due_time(core, head) - core->config.spin_us - now) >
                        (int32_t)(us + core->config.transaction_overhead_us);
}

/* Runs the untimed transaction waiting for its gap, if the gap has come
 * (main context; hb_core_poll calls it). */
void hbi_untimed_retry(hb_core *core);

/* The bench accelerometer (lis3dh.c, main context): found by WHO_AM_I (at
 * start-up and on HELLO), started/stopped by ACCEL_STREAM (returns an
 * HB_NAK_* reason or 0), stopped with the session, and read in the stream's
 * gaps from hb_core_poll. */
void hbi_accel_probe(hb_core *core);
uint8_t hbi_accel_stream(hb_core *core, uint8_t odr, uint8_t fs);
void hbi_accel_stop(hb_core *core);
void hbi_accel_poll(hb_core *core);
void hbi_accel_advance(hb_core *core, uint8_t n);

/* Frames to the host (main context only). */
void hbi_send(hb_core *core, uint8_t type, const uint8_t *payload, uint8_t len);
void hbi_nak(hb_core *core, uint8_t seq, uint8_t type, uint8_t reason);
void hbi_ack(hb_core *core, uint8_t seq, uint8_t type);

/* Stops the actuator and flushes the queue; caller holds the lock.
 * Returns how many queued commands were discarded. */
uint8_t hbi_stop_locked(hb_core *core, uint8_t reason);
/* Same, taking the lock, then reports EVENT_STOPPED. */
void hbi_stop_and_report(hb_core *core, uint8_t reason);

/* Takes the drive state from the chip driver's shadows after a write or a GO
 * read (caller holds the lock or runs in the timer context).  A drive that
 * continues keeps its start: the limit is on continuous time. */
static inline void hbi_track_drive(hb_core *core, uint32_t now)
{
    uint8_t next = (uint8_t)drv2605_output_state(&core->chip);
    if (next != HB_DRIVE_IDLE && core->drive == HB_DRIVE_IDLE) {
        core->drive_start_us = now;
    }
    core->drive = next;
}

/* Arms the timer for the command at the queue head (caller holds the lock
 * or runs in the timer context). */
void hbi_arm_for(hb_core *core, const hb_cmd *cmd);

#endif /* HAPBRIDGE_CORE_PRIVATE_H */
