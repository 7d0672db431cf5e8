/* Timed execution: runs in the port's timer context (an ISR on the AVR).
 *
 * A command's time is when the chip takes it: the STOP of the write that
 * carries it (RTP_INPUT for an RTP, the register for a register write, GO for
 * a ROM sequence, the first of a stop's writes: RTP_INPUT = 0).  The writes it
 * needs before that one (a MODE change, a ROM sequence's entries) run ahead of
 * the stamp, and the core spins again before the carrying write, so that write
 * starts from the same code path, on the clock, whatever went before it. */
#include "hapbridge/core_private.h"
#include "hapbridge/drv2605_regs.h"

/* Room per write made ahead of the carrying one, on top of its bus time: the
 * firmware's path from one write's STOP back to the spin and on to the next
 * START (~13 us on the ATmega32U4) with margin; the spin before the carrying
 * write absorbs what is left. */
#define HB_PREWRITE_SLACK_US 16u

/* A write of `wire` bytes (address included) at the port's rate: write_us for
 * three, and a little over a third of it (5/16) plus HB_WRITE_BYTE_MARGIN_US
 * for each byte more.  Shifts and an 8-bit multiply only: this runs in the
 * timer interrupt before the spin, and a 32-bit division there costs ~40 us
 * on an AVR. */
static uint16_t write_time(const hb_core *core, uint8_t wire)
{
    uint16_t w = core->config.write_us;
    uint16_t per_byte = (uint16_t)((w >> 2) + (w >> 4) + HB_WRITE_BYTE_MARGIN_US);
    return (uint16_t)(w + (unsigned)(uint8_t)(wire - 3u) * (unsigned)per_byte + HB_PREWRITE_SLACK_US);
}

static bool needs_mode(const hb_core *core, uint8_t mode) { return core->chip.mode_shadow != mode; }

uint16_t hbi_prewrite_us_slow(const hb_core *core, const hb_cmd *cmd)
{
    if (!core->config.write_us) {
        return 0; /* I2C takes no board time: the driver makes them on the stamp */
    }
    /* The first write ahead starts exec_lead_us after the spin, as any does. */
    switch (cmd->kind) {
    case HB_CMD_RTP:
        return needs_mode(core, DRV2605_MODE_RTP) ? (uint16_t)(core->config.exec_lead_us + write_time(core, 3u))
                                                  : 0u;
    case HB_CMD_ROM_SEQ: {
        /* address, register, entries, and the terminator when fewer than eight */
        uint8_t wire = (uint8_t)(2u + cmd->len + (cmd->len < DRV2605_WAV_FRM_SEQ_COUNT ? 1u : 0u));
        return (uint16_t)(core->config.exec_lead_us +
                          (needs_mode(core, DRV2605_MODE_INTERNAL_TRIGGER) ? write_time(core, 3u) : 0u) +
                          write_time(core, wire));
    }
    default:
        return 0;
    }
}

void hbi_arm_for(hb_core *core, const hb_cmd *cmd)
{
    core->hooks.arm_timer(core->hooks.context, hbi_due_time(core, cmd) - core->config.spin_us);
}

/* The writes ahead of the carrying one (hbi_prewrite_us says when there are). */
static hb_i2c_result prepare(hb_core *core, const hb_cmd *cmd)
{
    switch (cmd->kind) {
    case HB_CMD_RTP:
        return drv2605_set_mode(&core->chip, DRV2605_MODE_RTP);
    case HB_CMD_ROM_SEQ:
        return drv2605_load_sequence(&core->chip, cmd->data, cmd->len);
    default:
        return HB_I2C_ACK;
    }
}

/* The write that carries the command, worked out before the spin so that every
 * kind reaches its START through the same call from the spin's end (a switch
 * there put ~1 us between kinds: a ROM sequence's GO latched 1 us after a
 * register write).  False where the driver decides (an RTP that must change
 * the mode itself, an unprepared ROM sequence): `execute` then makes them all. */
static bool carrying_write(const hb_core *core, const hb_cmd *cmd, bool prepared, uint8_t *reg, uint8_t *value)
{
    switch (cmd->kind) {
    case HB_CMD_RTP:
        *reg = DRV2605_REG_RTP_INPUT;
        *value = cmd->data[0];
        return core->chip.mode_shadow == DRV2605_MODE_RTP;
    case HB_CMD_REG_WRITE:
        *reg = cmd->data[0];
        *value = cmd->data[1];
        return true;
    case HB_CMD_ROM_SEQ:
        *reg = DRV2605_REG_GO;
        *value = DRV2605_GO_GO;
        return prepared;
    case HB_CMD_STOP:
        *reg = DRV2605_REG_RTP_INPUT; /* then the rest of the stop, after the latch */
        *value = 0;
        return true;
    default:
        return false;
    }
}

/* The command's writes from the carrying one on (all of them when nothing was
 * prepared: the driver then makes the MODE change and the load itself). */
static hb_i2c_result execute(hb_core *core, const hb_cmd *cmd, bool prepared)
{
    switch (cmd->kind) {
    case HB_CMD_RTP:
        /* In RTP mode already (always so once prepared): straight to the
         * write, the same path as a register write's, so both latch alike. */
        return core->chip.mode_shadow == DRV2605_MODE_RTP
                   ? drv2605_write_reg(&core->chip, DRV2605_REG_RTP_INPUT, cmd->data[0])
                   : drv2605_rtp(&core->chip, cmd->data[0]);
    case HB_CMD_REG_WRITE:
        return drv2605_write_reg(&core->chip, cmd->data[0], cmd->data[1]);
    case HB_CMD_ROM_SEQ:
        return prepared ? drv2605_write_reg(&core->chip, DRV2605_REG_GO, DRV2605_GO_GO)
                        : drv2605_play_sequence(&core->chip, cmd->data, cmd->len);
    case HB_CMD_STOP:
        return drv2605_stop(&core->chip);
    default:
        return HB_I2C_ACK;
    }
}

/* Busy-waits from `now` to `at` (inside the spin window) and returns the time
 * it ends: however late the interrupt was taken (masked sections, other
 * handlers), the bus transaction starts on the clock, not on the wake-up.
 * `now` is the caller's reading: a board behind its stamps runs command after
 * command through here, and each clock read costs a few us of intake. */
static uint32_t spin_to(hb_core *core, uint32_t now, uint32_t at)
{
    if (hbi_reached(now, at)) {
        return now;
    }
    if (core->hooks.spin_until) {
        core->hooks.spin_until(core->hooks.context, at);
        return at;
    }
    while (!hbi_reached(now, at)) {
        now = hbi_now(core);
    }
    return now;
}

void hb_core_timer_fired(hb_core *core)
{
    /* Commands sharing a stamp run back to back, in queue order, in this
     * loop: one behind another on its stamp can start only once that one's
     * transaction is over (at 400 kHz a register write holds the bus 82 us,
     * and the next on the stamp starts ~114 us after it), which is not the
     * board falling behind.  So it is late when the stamp's first was. */
    bool ran = false;
    for (;;) {
        const hb_cmd *head = hb_queue_peek(&core->queue);
        if (!head) {
            if (core->hooks.disarm_timer) {
                core->hooks.disarm_timer(core->hooks.context);
            }
            return;
        }
        uint32_t due = hbi_due_time(core, head);
        uint32_t now = hbi_now(core);
        if ((int32_t)(due - now) > (int32_t)core->config.spin_us) {
            hbi_arm_for(core, head); /* early or spurious wake-up */
            return;
        }
        if (core->pending_faults) {
            hb_queue_drop_head(&core->queue); /* the main context is about to stop everything */
            continue;
        }
        /* Execute straight from the slot: the producer never writes an
         * occupied slot, and this is the latency-critical path to the bus.
         * Bookkeeping waits until the transaction is under way. */
        uint32_t latch_start = hbi_latch_start(core, head);
        bool prepared = due != latch_start;
        hb_i2c_result r = HB_I2C_ACK;
        if (prepared) {
            spin_to(core, now, due);
            r = prepare(core, head);
            now = hbi_now(core);
        }
        uint8_t reg = 0, value = 0;
        bool single = carrying_write(core, head, prepared, &reg, &value);
        now = spin_to(core, now, latch_start);
        if (r == HB_I2C_ACK) {
            if (single) {
                r = drv2605_write_reg(&core->chip, reg, value);
                if (r == HB_I2C_ACK && head->kind == HB_CMD_STOP) {
                    r = drv2605_stop_after_rtp(&core->chip);
                }
            } else {
                r = execute(core, head, prepared);
            }
        }
        if (r != HB_I2C_ACK) {
            core->pending_faults |= HB_FAULT_I2C;
        }
        uint32_t at = head->at_us;
        uint32_t latched = now + core->config.exec_lead_us + core->config.write_us;
        bool late = ran && core->last_at_us == at
                        ? core->last_late
                        : (int32_t)(latched - at) > (int32_t)HB_LATE_TOLERANCE_US;
        ran = true;
        core->last_late = late;
        hbi_track_drive(core, now);
        hb_queue_drop_head(&core->queue);
        if (late && core->underruns != UINT16_MAX) {
            core->underruns++;
        }
        core->last_at_us = at;
        core->last_run_us = latched;
        core->executed++;
    }
}
