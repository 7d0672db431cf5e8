/* Timed execution: runs in the port's timer context (an ISR on the AVR). */
#include "hapbridge/core_private.h"
#include "hapbridge/drv2605_regs.h"

void hbi_arm_for(hb_core *core, const hb_cmd *cmd)
{
    core->hooks.arm_timer(core->hooks.context, hbi_due_time(core, cmd) - core->config.spin_us);
}

static hb_i2c_result execute(hb_core *core, const hb_cmd *cmd)
{
    switch (cmd->kind) {
    case HB_CMD_RTP:
        return drv2605_rtp(&core->chip, cmd->data[0]);
    case HB_CMD_REG_WRITE:
        return drv2605_write_reg(&core->chip, cmd->data[0], cmd->data[1]);
    case HB_CMD_ROM_SEQ:
        return drv2605_play_sequence(&core->chip, cmd->data, cmd->len);
    case HB_CMD_STOP:
        return drv2605_stop(&core->chip);
    default:
        return HB_I2C_ACK;
    }
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
        uint32_t now = hbi_now(core);
        uint32_t due = hbi_due_time(core, head);
        if (!hbi_reached(now, due)) {
            if ((int32_t)(due - now) > (int32_t)core->config.spin_us) {
                hbi_arm_for(core, head); /* early or spurious wake-up */
                return;
            }
            /* Woken inside the spin window on purpose: however late the
             * interrupt was taken (masked sections, other handlers), the
             * bus transaction starts on the clock, not on the wake-up. */
            if (core->hooks.spin_until) {
                core->hooks.spin_until(core->hooks.context, due);
                now = due;
            } else {
                while (!hbi_reached(now, due)) {
                    now = hbi_now(core);
                }
            }
        }
        if (core->pending_faults) {
            hb_queue_drop_head(&core->queue); /* the main context is about to stop everything */
            continue;
        }
        /* Execute straight from the slot: the producer never writes an
         * occupied slot, and this is the latency-critical path to the bus.
         * Bookkeeping waits until the transaction is under way. */
        if (execute(core, head) != HB_I2C_ACK) {
            core->pending_faults |= HB_FAULT_I2C;
        }
        uint32_t at = head->at_us;
        bool late = ran && core->last_at_us == at
                        ? core->last_late
                        : (int32_t)(now + core->config.exec_lead_us - at) > (int32_t)HB_LATE_TOLERANCE_US;
        ran = true;
        core->last_late = late;
        hbi_track_drive(core, now);
        hb_queue_drop_head(&core->queue);
        if (late && core->underruns != UINT16_MAX) {
            core->underruns++;
        }
        core->last_at_us = at;
        core->last_run_us = now + core->config.exec_lead_us;
        core->executed++;
    }
}
