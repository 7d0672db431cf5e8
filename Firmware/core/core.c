#include "hapbridge/core.h"

#include "hapbridge/drv2605_regs.h"

/* Wrap-safe "a is at or before b" for 32-bit microsecond clocks. */
static bool reached(uint32_t now, uint32_t at) { return (int32_t)(now - at) >= 0; }

static uint32_t now_us(hb_core *core) { return core->hooks.now_us(core->hooks.context); }

static void lock(hb_core *core)
{
    if (core->hooks.lock) {
        core->hooks.lock(core->hooks.context);
    }
}

static void unlock(hb_core *core)
{
    if (core->hooks.unlock) {
        core->hooks.unlock(core->hooks.context);
    }
}

void hb_core_init(hb_core *core, const hb_hooks *hooks, const hb_core_config *config)
{
    *core = (hb_core){0};
    core->hooks = *hooks;
    core->config = *config;
    drv2605_init(&core->chip, &core->hooks);
    hb_decoder_init(&core->decoder);
    hb_queue_init(&core->queue);
    core->device_id = 0xFF;
    core->keepalive_us = HB_DEFAULT_KEEPALIVE_MS * 1000u;
    core->max_drive_us = HB_DEFAULT_MAX_DRIVE_MS * 1000u;
}

void hb_core_start(hb_core *core)
{
    lock(core);
    core->device_id = drv2605_probe(&core->chip);
    drv2605_stop(&core->chip);
    unlock(core);
}

/* ---- Frames to the host ------------------------------------------------- */

static void send(hb_core *core, uint8_t type, const uint8_t *payload, uint8_t len)
{
    uint8_t n = hb_frame_encode(core->tx, core->tx_seq, type, payload, len);
    core->tx_seq++;
    core->hooks.send_frame(core->hooks.context, core->tx, n);
}

static void nak(hb_core *core, uint8_t seq, uint8_t type, uint8_t reason)
{
    uint8_t p[HB_NAK_LEN];
    p[HB_NAK_OFF_SEQ] = seq;
    p[HB_NAK_OFF_REASON] = reason;
    p[HB_NAK_OFF_EXPECTED] = core->expected_seq;
    p[HB_NAK_OFF_TYPE] = type;
    if (core->rejected != UINT16_MAX) {
        core->rejected++;
    }
    send(core, HB_T_NAK, p, sizeof p);
}

static void ack(hb_core *core, uint8_t seq, uint8_t type)
{
    uint8_t p[HB_ACK_LEN];
    p[HB_ACK_OFF_SEQ] = seq;
    p[HB_ACK_OFF_TYPE] = type;
    send(core, HB_T_ACK, p, sizeof p);
}

/* ---- Stopping ------------------------------------------------------------ */

/* Caller holds the lock.  Returns how many queued commands were discarded. */
static uint8_t stop_locked(hb_core *core, uint8_t reason)
{
    uint8_t flushed = hb_queue_flush(&core->queue);
    if (core->hooks.disarm_timer) {
        core->hooks.disarm_timer(core->hooks.context);
    }
    drv2605_stop(&core->chip);
    core->drive = HB_DRIVE_IDLE;
    core->stop_reason = reason;
    return flushed;
}

static void stop_and_report(hb_core *core, uint8_t reason)
{
    lock(core);
    uint8_t flushed = stop_locked(core, reason);
    unlock(core);
    uint8_t p[HB_EVENT_STOPPED_LEN];
    p[HB_STOPPED_OFF_REASON] = reason;
    hb_put_u32(&p[HB_STOPPED_OFF_AT_US], now_us(core));
    p[HB_STOPPED_OFF_FLUSHED] = flushed;
    send(core, HB_T_EVENT_STOPPED, p, sizeof p);
}

/* ---- Timed execution (timer context) ------------------------------------- */

/* When the bus transaction must begin for the START to land on the stamp. */
static uint32_t due_time(const hb_core *core, const hb_cmd *cmd)
{
    return cmd->at_us - core->config.exec_lead_us;
}

static void arm_for(hb_core *core, const hb_cmd *cmd)
{
    core->hooks.arm_timer(core->hooks.context, due_time(core, cmd) - core->config.spin_us);
}

static void note_drive(hb_core *core, const hb_cmd *cmd, uint32_t now)
{
    uint8_t next = core->drive;
    switch (cmd->kind) {
    case HB_CMD_RTP:
        next = cmd->data[0] ? HB_DRIVE_RTP : HB_DRIVE_IDLE;
        break;
    case HB_CMD_ROM_SEQ:
        next = HB_DRIVE_SEQUENCE;
        break;
    case HB_CMD_STOP:
        next = HB_DRIVE_IDLE;
        break;
    case HB_CMD_REG_WRITE:
        if (cmd->data[0] == DRV2605_REG_MODE && (cmd->data[1] & DRV2605_MODE_STANDBY)) {
            next = HB_DRIVE_IDLE;
        } else if (cmd->data[0] == DRV2605_REG_GO && !(cmd->data[1] & DRV2605_GO_GO) &&
                   core->drive == HB_DRIVE_SEQUENCE) {
            next = HB_DRIVE_IDLE;
        }
        break;
    default:
        break;
    }
    /* A continuing drive keeps its start: the limit is on continuous time. */
    if (next != HB_DRIVE_IDLE && core->drive == HB_DRIVE_IDLE) {
        core->drive_start_us = now;
    }
    core->drive = next;
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
    for (;;) {
        const hb_cmd *head = hb_queue_peek(&core->queue);
        if (!head) {
            if (core->hooks.disarm_timer) {
                core->hooks.disarm_timer(core->hooks.context);
            }
            return;
        }
        uint32_t now = now_us(core);
        uint32_t due = due_time(core, head);
        if (!reached(now, due)) {
            if ((int32_t)(due - now) > (int32_t)core->config.spin_us) {
                arm_for(core, head); /* early or spurious wake-up */
                return;
            }
            /* Woken inside the spin window on purpose: however late the
             * interrupt was taken (masked sections, other handlers), the
             * bus transaction starts on the clock, not on the wake-up. */
            if (core->hooks.spin_until) {
                core->hooks.spin_until(core->hooks.context, due);
                now = due;
            } else {
                while (!reached(now, due)) {
                    now = now_us(core);
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
        note_drive(core, head, now);
        hb_queue_drop_head(&core->queue);
        if ((int32_t)(now + core->config.exec_lead_us - at) > (int32_t)HB_LATE_TOLERANCE_US &&
            core->underruns != UINT16_MAX) {
            core->underruns++;
        }
        core->last_at_us = at;
        core->last_run_us = now + core->config.exec_lead_us;
        core->executed++;
    }
}

/* ---- Host frames (main context) ------------------------------------------ */

static bool rom_entries_valid(const uint8_t *entries, uint8_t n)
{
    for (uint8_t i = 0; i < n; i++) {
        uint8_t e = entries[i];
        if (e & DRV2605_WAV_FRM_SEQ_WAIT) {
            continue; /* a pause of (e & ID_MASK) x 10 ms */
        }
        if (e == 0 || e > DRV2605_EFFECT_ID_MAX) {
            return false;
        }
    }
    return true;
}

/* Builds the queue entry; returns an HB_NAK_* reason or 0. */
static uint8_t parse_command(uint8_t type, const uint8_t *p, uint8_t len, hb_cmd *cmd)
{
    cmd->at_us = hb_get_u32(&p[HB_CMD_OFF_AT_US]);
    cmd->len = 0;
    switch (type) {
    case HB_T_CMD_RTP:
        cmd->kind = HB_CMD_RTP;
        cmd->data[0] = p[HB_CMD_RTP_OFF_AMPLITUDE];
        cmd->len = 1;
        return 0;
    case HB_T_CMD_REG_WRITE:
        if (!drv2605_reg_writable(p[HB_CMD_REG_OFF_REG])) {
            return HB_NAK_BAD_ARG;
        }
        cmd->kind = HB_CMD_REG_WRITE;
        cmd->data[0] = p[HB_CMD_REG_OFF_REG];
        cmd->data[1] = p[HB_CMD_REG_OFF_VALUE];
        cmd->len = 2;
        return 0;
    case HB_T_CMD_ROM_SEQ: {
        uint8_t n = (uint8_t)(len - HB_CMD_ROM_OFF_ENTRIES);
        if (!rom_entries_valid(&p[HB_CMD_ROM_OFF_ENTRIES], n)) {
            return HB_NAK_BAD_ARG;
        }
        cmd->kind = HB_CMD_ROM_SEQ;
        for (uint8_t i = 0; i < n; i++) {
            cmd->data[i] = p[HB_CMD_ROM_OFF_ENTRIES + i];
        }
        cmd->len = n;
        return 0;
    }
    case HB_T_CMD_STOP:
        cmd->kind = HB_CMD_STOP;
        return 0;
    default:
        return HB_NAK_UNKNOWN_TYPE;
    }
}

static uint8_t enqueue(hb_core *core, const hb_cmd *cmd)
{
    uint8_t reason = 0;
    lock(core);
    const hb_cmd *last = hb_queue_peek_last(&core->queue);
    if (core->faults || core->pending_faults) {
        reason = HB_NAK_FAULT;
    } else if (last && (int32_t)(cmd->at_us - last->at_us) < 0) {
        reason = HB_NAK_OUT_OF_ORDER;
    } else if (!hb_queue_push(&core->queue, cmd)) {
        reason = HB_NAK_QUEUE_FULL;
    } else if (hb_queue_count(&core->queue) == 1) {
        arm_for(core, cmd);
    }
    unlock(core);
    return reason;
}

static uint32_t clamp_ms(uint16_t ms, uint32_t dflt, uint32_t lo, uint32_t hi)
{
    uint32_t v = ms ? ms : dflt;
    return (v < lo ? lo : v > hi ? hi : v) * 1000u;
}

static void on_hello(hb_core *core, uint8_t seq, const uint8_t *p)
{
    if (p[HB_HELLO_OFF_MAJOR] != HB_PROTO_VERSION_MAJOR) {
        core->open = false;
        nak(core, seq, HB_T_HELLO, HB_NAK_VERSION);
        return;
    }
    core->keepalive_us = clamp_ms(hb_get_u16(&p[HB_HELLO_OFF_KEEPALIVE_MS]),
                                  HB_DEFAULT_KEEPALIVE_MS, 20u, 60000u);
    core->max_drive_us = clamp_ms(hb_get_u16(&p[HB_HELLO_OFF_MAX_DRIVE_MS]),
                                  HB_DEFAULT_MAX_DRIVE_MS, 10u, HB_MAX_DRIVE_LIMIT_MS);
    lock(core);
    /* A new session never inherits the previous one's stamped commands. */
    hb_queue_flush(&core->queue);
    core->device_id = drv2605_probe(&core->chip);
    unlock(core);
    core->open = true;
    core->expected_seq = (uint8_t)(seq + 1u);
    core->last_seq = seq;
    core->next_status_poll_us = now_us(core) + HB_STATUS_POLL_US;

    uint8_t r[HB_HELLO_REPLY_LEN];
    r[HB_HELLO_REPLY_OFF_MAJOR] = HB_PROTO_VERSION_MAJOR;
    r[HB_HELLO_REPLY_OFF_MINOR] = HB_PROTO_VERSION_MINOR;
    r[HB_HELLO_REPLY_OFF_FW_MAJOR] = HB_FW_VERSION_MAJOR;
    r[HB_HELLO_REPLY_OFF_FW_MINOR] = HB_FW_VERSION_MINOR;
    hb_put_u16(&r[HB_HELLO_REPLY_OFF_CAPS],
               HB_CAP_RTP | HB_CAP_REG_WRITE | HB_CAP_ROM_SEQ | HB_CAP_STAMPED_STOP |
                   HB_CAP_CLOCK_SYNC | HB_CAP_QUEUE_STATUS | HB_CAP_CHIP_STATUS |
                   (core->hooks.enter_bootloader ? HB_CAP_BOOTLOADER : 0u));
    r[HB_HELLO_REPLY_OFF_QUEUE_CAP] = HB_QUEUE_CAPACITY;
    r[HB_HELLO_REPLY_OFF_DEVICE_ID] = core->device_id;
    hb_put_u32(&r[HB_HELLO_REPLY_OFF_BOARD_US], now_us(core));
    hb_put_u16(&r[HB_HELLO_REPLY_OFF_KEEPALIVE_MS], (uint16_t)(core->keepalive_us / 1000u));
    hb_put_u16(&r[HB_HELLO_REPLY_OFF_MAX_DRIVE_MS], (uint16_t)(core->max_drive_us / 1000u));
    hb_put_u16(&r[HB_HELLO_REPLY_OFF_TICK_NS], core->config.tick_ns);
    send(core, HB_T_HELLO_REPLY, r, sizeof r);
}

static void on_sync(hb_core *core, const uint8_t *p, uint32_t rx_us)
{
    uint8_t r[HB_SYNC_REPLY_LEN];
    hb_put_u32(&r[HB_SYNC_REPLY_OFF_TOKEN], hb_get_u32(&p[HB_SYNC_OFF_TOKEN]));
    hb_put_u32(&r[HB_SYNC_REPLY_OFF_RX_US], rx_us);
    hb_put_u32(&r[HB_SYNC_REPLY_OFF_TX_US], now_us(core));
    send(core, HB_T_SYNC_REPLY, r, sizeof r);
}

static void on_queue_status(hb_core *core)
{
    uint8_t r[HB_QUEUE_STATUS_LEN];
    lock(core);
    r[HB_QSTAT_OFF_FREE] = hb_queue_free(&core->queue);
    r[HB_QSTAT_OFF_CAPACITY] = HB_QUEUE_CAPACITY;
    hb_put_u16(&r[HB_QSTAT_OFF_UNDERRUNS], core->underruns);
    hb_put_u32(&r[HB_QSTAT_OFF_LAST_AT_US], core->last_at_us);
    hb_put_u32(&r[HB_QSTAT_OFF_LAST_RUN_US], core->last_run_us);
    hb_put_u32(&r[HB_QSTAT_OFF_EXECUTED], core->executed);
    unlock(core);
    r[HB_QSTAT_OFF_LAST_SEQ] = core->last_seq;
    hb_put_u16(&r[HB_QSTAT_OFF_REJECTED], core->rejected);
    send(core, HB_T_QUEUE_STATUS, r, sizeof r);
}

static void on_chip_status(hb_core *core)
{
    uint8_t status = 0xFF;
    uint8_t r[HB_CHIP_STATUS_LEN];
    lock(core);
    if (drv2605_read_reg(&core->chip, DRV2605_REG_STATUS, &status) != HB_I2C_ACK) {
        status = 0xFF;
    }
    r[HB_CSTAT_OFF_FAULTS] = core->faults | core->pending_faults;
    r[HB_CSTAT_OFF_DRIVING] = core->drive != HB_DRIVE_IDLE;
    r[HB_CSTAT_OFF_MODE_REG] = core->chip.mode_shadow;
    hb_put_u16(&r[HB_CSTAT_OFF_I2C_ERRORS], core->chip.i2c_errors);
    unlock(core);
    r[HB_CSTAT_OFF_STATUS_REG] = status;
    r[HB_CSTAT_OFF_STOP_REASON] = core->stop_reason;
    hb_put_u32(&r[HB_CSTAT_OFF_BOARD_US], now_us(core));
    send(core, HB_T_CHIP_STATUS, r, sizeof r);
}

static bool needs_session(uint8_t type)
{
    /* Status, sync, stop and bootloader entry work without a session so a
     * host can always inspect and stop a board it has just found. */
    switch (type) {
    case HB_T_SYNC:
    case HB_T_QUEUE_STATUS_REQ:
    case HB_T_CHIP_STATUS_REQ:
    case HB_T_STOP_ALL:
    case HB_T_ENTER_BOOTLOADER:
        return false;
    default:
        return true;
    }
}

static void on_frame(hb_core *core)
{
    const hb_decoder *d = &core->decoder;
    const uint8_t seq = hb_decoder_seq(d);
    const uint8_t type = hb_decoder_type(d);
    const uint8_t len = hb_decoder_len(d);
    const uint8_t *p = hb_decoder_payload(d);
    const uint32_t rx_us = now_us(core);

    /* Any CRC-valid frame proves the host is alive. */
    core->last_rx_us = rx_us;

    if (type == HB_T_HELLO && hb_host_payload_len_ok(type, len)) {
        on_hello(core, seq, p);
        return;
    }
    if (core->open) {
        if (seq != core->expected_seq) {
            /* Something was lost: refuse this frame and resynchronise, so the
             * host learns exactly which sequence numbers never arrived. */
            nak(core, seq, type, HB_NAK_SEQ_GAP);
            core->expected_seq = (uint8_t)(seq + 1u);
            return;
        }
        core->expected_seq = (uint8_t)(seq + 1u);
        core->last_seq = seq;
    }
    if (!hb_host_type_known(type)) {
        nak(core, seq, type, HB_NAK_UNKNOWN_TYPE);
        return;
    }
    if (!hb_host_payload_len_ok(type, len)) {
        nak(core, seq, type, HB_NAK_LENGTH);
        return;
    }
    if (!core->open && needs_session(type)) {
        nak(core, seq, type, HB_NAK_NOT_OPEN);
        return;
    }

    switch (type) {
    case HB_T_SYNC:
        on_sync(core, p, rx_us);
        return;
    case HB_T_KEEPALIVE:
        return;
    case HB_T_QUEUE_STATUS_REQ:
        on_queue_status(core);
        return;
    case HB_T_CHIP_STATUS_REQ:
        on_chip_status(core);
        return;
    case HB_T_STOP_ALL:
        lock(core);
        stop_locked(core, HB_STOP_HOST_REQUEST);
        unlock(core);
        ack(core, seq, type);
        return;
    case HB_T_CLEAR_FAULT:
        lock(core);
        core->faults = 0;
        core->pending_faults = 0;
        unlock(core);
        ack(core, seq, type);
        return;
    case HB_T_ENTER_BOOTLOADER:
        if (hb_get_u32(&p[HB_BOOT_OFF_MAGIC]) != HB_BOOT_MAGIC || !core->hooks.enter_bootloader) {
            nak(core, seq, type, HB_NAK_BAD_ARG);
            return;
        }
        lock(core);
        stop_locked(core, HB_STOP_BOOTLOADER);
        unlock(core);
        core->open = false;
        ack(core, seq, type);
        core->hooks.enter_bootloader(core->hooks.context);
        return;
    default: {
        hb_cmd cmd;
        uint8_t reason = parse_command(type, p, len, &cmd);
        if (!reason) {
            reason = enqueue(core, &cmd);
        }
        if (reason) {
            nak(core, seq, type, reason);
        }
        return;
    }
    }
}

void hb_core_receive(hb_core *core, const uint8_t *bytes, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++) {
        hb_decoder *d = &core->decoder;
        switch (hb_decoder_push(d, bytes[i])) {
        case HB_DECODE_FRAME:
            on_frame(core);
            break;
        case HB_DECODE_BAD_CRC:
            nak(core, hb_decoder_seq(d), hb_decoder_type(d), HB_NAK_CRC);
            break;
        case HB_DECODE_BAD_LENGTH:
            nak(core, 0, 0, HB_NAK_LENGTH);
            break;
        case HB_DECODE_MORE:
        default:
            break;
        }
    }
}

/* ---- Safety (main context) ----------------------------------------------- */

/* Main-context bus traffic must not sit on the bus when a stamped command is
 * due: the timer callback would wait for it (the lock) and start late. */
#define HB_BUS_GUARD_US 250u

static bool bus_free_soon(hb_core *core, uint32_t now)
{
    const hb_cmd *head = hb_queue_peek(&core->queue);
    return !head ||
           (int32_t)(due_time(core, head) - core->config.spin_us - now) > (int32_t)HB_BUS_GUARD_US;
}

static void poll_chip(hb_core *core, uint32_t now)
{
    lock(core);
    bool free_bus = bus_free_soon(core, now);
    unlock(core);
    if (!free_bus) {
        return; /* retried on the next poll, once the command has run */
    }
    if (core->drive == HB_DRIVE_SEQUENCE && reached(now, core->next_go_poll_us)) {
        core->next_go_poll_us = now + HB_GO_POLL_US;
        uint8_t go = 0;
        lock(core);
        if (drv2605_read_reg(&core->chip, DRV2605_REG_GO, &go) == HB_I2C_ACK &&
            !(go & DRV2605_GO_GO) && core->drive == HB_DRIVE_SEQUENCE) {
            core->drive = HB_DRIVE_IDLE; /* the sequencer finished on its own */
        }
        unlock(core);
    }
    if (core->open && reached(now, core->next_status_poll_us)) {
        core->next_status_poll_us = now + HB_STATUS_POLL_US;
        uint8_t status = 0;
        lock(core);
        if (drv2605_read_reg(&core->chip, DRV2605_REG_STATUS, &status) != HB_I2C_ACK) {
            core->pending_faults |= HB_FAULT_I2C;
        } else {
            if (status & DRV2605_STATUS_OVER_TEMP) {
                core->pending_faults |= HB_FAULT_OVER_TEMP;
            }
            if (status & DRV2605_STATUS_OC_DETECT) {
                core->pending_faults |= HB_FAULT_OVER_CURRENT;
            }
        }
        unlock(core);
    }
}

void hb_core_poll(hb_core *core)
{
    uint32_t now = now_us(core);
    poll_chip(core, now);

    lock(core);
    /* Read the clock under the lock: the timer callback may have started a
     * drive since `now` was taken, and its start must not lie in our future. */
    now = now_us(core);
    uint8_t new_faults = core->pending_faults;
    core->pending_faults = 0;
    core->faults |= new_faults;
    bool over_drive = core->drive != HB_DRIVE_IDLE &&
                      (uint32_t)(now - core->drive_start_us) > core->max_drive_us;
    unlock(core);

    if (new_faults) {
        stop_and_report(core, HB_STOP_FAULT);
    } else if (over_drive) {
        stop_and_report(core, HB_STOP_MAX_DRIVE);
    }
    if (core->open && (uint32_t)(now - core->last_rx_us) > core->keepalive_us) {
        /* The session ends with the silence: commands the host may still
         * have in flight were stamped against a clock it no longer tracks. */
        core->open = false;
        stop_and_report(core, HB_STOP_HOST_SILENT);
    }
}

bool hb_core_next_deadline(hb_core *core, uint32_t *at_us)
{
    uint32_t now = now_us(core);
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
    lock(core);
    const hb_cmd *head = hb_queue_peek(&core->queue);
    if (head) {
        CONSIDER(due_time(core, head) - core->config.spin_us);
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
    unlock(core);
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
