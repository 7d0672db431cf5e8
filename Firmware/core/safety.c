/* Safety: fault and end-of-sequence polling, host silence, drive limits
 * (main context). */
#include "hapbridge/core_private.h"
#include "hapbridge/drv2605_regs.h"

/* Main-context bus traffic must not sit on the bus when a stamped command is
 * due: the timer callback would wait for it (the lock) and start late.  A
 * poll is a 1-byte register read (the untimed read's length for it, 114 us
 * at 400 kHz: protocol.h, HB_UNTIMED_*) with ~36 us to spare; the guard is
 * held against the wake-up before the command's first write (its due time,
 * which already starts that write early, less the spin), so the spin is a
 * margin on top.  At 250 (before the latch) a poll never fitted between two
 * commands 400 us apart: it went ahead starved every 40 ms instead. */
#define HB_BUS_GUARD_US (4u * HB_UNTIMED_BYTE_US + HB_UNTIMED_FIXED_US + 36u)

/* Whether a main-context read may take the bus now.  Called under the lock,
 * with the clock read under it too: a `now` read before the lock can be a
 * whole command stale (the timer callback may run one, ~300 us for a ROM
 * sequence at 400 kHz, between that read and the lock), and a poll started
 * on it lands on the next command's stamp. */
static bool may_take_bus(hb_core *core, bool starved)
{
    return starved || hbi_bus_free_for(core, hbi_now(core), HB_BUS_GUARD_US);
}

/* The fault bits of a STATUS reading, for hb_core_poll to act on (under the lock). */
static void take_status(hb_core *core, uint8_t status)
{
    if (status & DRV2605_STATUS_OVER_TEMP) {
        core->pending_faults |= HB_FAULT_OVER_TEMP;
    }
    if (status & DRV2605_STATUS_OC_DETECT) {
        core->pending_faults |= HB_FAULT_OVER_CURRENT;
    }
}

static void poll_chip(hb_core *core, uint32_t now)
{
    /* Deferred polls are retried on the next hb_core_poll, once the command
     * has run.  A stream dense enough never to leave a gap must not starve
     * fault detection, though: a whole period late, the poll goes ahead and
     * one command pays for it. */
    bool starved = core->open && hbi_reached(now, core->next_status_poll_us + HB_STATUS_POLL_US);
    if (core->drive == HB_DRIVE_SEQUENCE && hbi_reached(now, core->next_go_poll_us)) {
        uint8_t go = 0;
        hbi_lock(core);
        if (may_take_bus(core, starved)) {
            core->next_go_poll_us = now + HB_GO_POLL_US;
            /* The read updates the driver's GO shadow: the sequencer may have
             * finished on its own. */
            if (drv2605_read_reg(&core->chip, DRV2605_REG_GO, &go) == HB_I2C_ACK) {
                hbi_track_drive(core, now);
            }
        }
        hbi_unlock(core);
    }
    if (core->open && hbi_reached(now, core->next_status_poll_us)) {
        uint8_t status = 0;
        hbi_lock(core);
        /* A reading the port took itself, half a period old at most, is as
         * good as one of ours and costs no bus time. */
        if (core->hooks.recent_status &&
            core->hooks.recent_status(core->hooks.context, HB_STATUS_POLL_US / 2u, &status)) {
            core->next_status_poll_us = now + HB_STATUS_POLL_US;
            take_status(core, status);
        } else if (may_take_bus(core, starved)) {
            core->next_status_poll_us = now + HB_STATUS_POLL_US;
            if (drv2605_read_reg(&core->chip, DRV2605_REG_STATUS, &status) != HB_I2C_ACK) {
                core->pending_faults |= HB_FAULT_I2C;
            } else {
                take_status(core, status);
            }
        }
        hbi_unlock(core);
    }
}

void hb_core_poll(hb_core *core)
{
    uint32_t now = hbi_now(core);
    hbi_untimed_retry(core);
    poll_chip(core, now);
    hbi_accel_poll(core);

    hbi_lock(core);
    /* Read the clock under the lock: the timer callback may have started a
     * drive since `now` was taken, and its start must not lie in our future. */
    now = hbi_now(core);
    uint8_t new_faults = core->pending_faults;
    core->pending_faults = 0;
    core->faults |= new_faults;
    bool over_drive = core->drive != HB_DRIVE_IDLE &&
                      (uint32_t)(now - core->drive_start_us) > core->max_drive_us;
    hbi_unlock(core);

    if (new_faults) {
        hbi_stop_and_report(core, HB_STOP_FAULT);
    } else if (over_drive) {
        hbi_stop_and_report(core, HB_STOP_MAX_DRIVE);
    }
    if (core->open && (uint32_t)(now - core->last_rx_us) > core->keepalive_us) {
        /* The session ends with the silence: commands the host may still
         * have in flight were stamped against a clock it no longer tracks. */
        core->open = false;
        hbi_accel_stop(core);
        hbi_stop_and_report(core, HB_STOP_HOST_SILENT);
    }
}

bool hb_core_next_deadline(hb_core *core, uint32_t *at_us)
{
    uint32_t now = hbi_now(core);
    bool any = false;
    uint32_t best = 0;
#define CONSIDER(t)                                                                  \
    do {                                                                             \
        uint32_t t_ = (t);                                                           \
        if (!any || (int32_t)(t_ - best) < 0) {                                      \
            best = t_;                                                               \
            any = true;                                                              \
        }                                                                            \
    } while (0)
    hbi_lock(core);
    const hb_cmd *head = hb_queue_peek(&core->queue);
    if (head) {
        CONSIDER(hbi_due_time(core, head) - core->config.spin_us);
    }
    if (core->drive != HB_DRIVE_IDLE) {
        CONSIDER(core->drive_start_us + core->max_drive_us + 1u);
    }
    if (core->drive == HB_DRIVE_SEQUENCE) {
        CONSIDER(core->next_go_poll_us);
    }
    if (core->pending_faults) {
        CONSIDER(now);
    }
    if (core->untimed_pending && head) {
        /* Right after the command in its way has run. */
        CONSIDER(hbi_due_time(core, head) + 1u);
    }
    if (core->accel.odr) {
        CONSIDER(core->accel.next_read_us);
        if (head && hbi_reached(now, core->accel.next_read_us)) {
            CONSIDER(hbi_due_time(core, head) + 1u); /* deferred: after the command in its way */
        }
    }
    hbi_unlock(core);
    if (core->open) {
        CONSIDER(core->last_rx_us + core->keepalive_us + 1u);
        CONSIDER(core->next_status_poll_us);
    }
#undef CONSIDER
    if (any) {
        *at_us = best;
    }
    return any;
}
