/* Host frames: validation, sessions and sequence numbers, and dispatch
 * (main context). */
#include "hapbridge/core_private.h"
#include "hapbridge/drv2605_regs.h"

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
    hbi_lock(core);
    const hb_cmd *last = hb_queue_peek_last(&core->queue);
    if (core->faults || core->pending_faults) {
        reason = HB_NAK_FAULT;
    } else if (last && (int32_t)(cmd->at_us - last->at_us) < 0) {
        reason = HB_NAK_OUT_OF_ORDER;
    } else if (!hb_queue_push(&core->queue, cmd)) {
        reason = HB_NAK_QUEUE_FULL;
    } else if (hb_queue_count(&core->queue) == 1) {
        hbi_arm_for(core, cmd);
    }
    hbi_unlock(core);
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
        /* The session ends here, and with it the drive: once closed, the
         * host-silence stop no longer watches it. */
        if (core->open) {
            core->open = false;
            hbi_accel_stop(core);
            hbi_stop_and_report(core, HB_STOP_HOST_REQUEST);
        }
        hbi_nak(core, seq, HB_T_HELLO, HB_NAK_VERSION);
        return;
    }
    core->keepalive_us = clamp_ms(hb_get_u16(&p[HB_HELLO_OFF_KEEPALIVE_MS]),
                                  HB_DEFAULT_KEEPALIVE_MS, 20u, 60000u);
    core->max_drive_us = clamp_ms(hb_get_u16(&p[HB_HELLO_OFF_MAX_DRIVE_MS]),
                                  HB_DEFAULT_MAX_DRIVE_MS, 10u, HB_MAX_DRIVE_LIMIT_MS);
    hbi_lock(core);
    /* A new session never inherits the previous one's stamped commands. */
    hb_queue_flush(&core->queue);
    core->device_id = drv2605_probe(&core->chip);
    hbi_unlock(core);
    /* A new session starts without the last one's samples; a breakout fitted
     * or taken off since is seen here. */
    hbi_accel_stop(core);
    hbi_accel_probe(core);
    core->open = true;
    core->expected_seq = (uint8_t)(seq + 1u);
    core->last_seq = seq;
    core->next_status_poll_us = hbi_now(core) + HB_STATUS_POLL_US;

    /* The reply's layout follows the negotiated minor: a 1.0 host's decoder
     * wants exactly the 18 bytes it knows. */
    uint8_t minor = p[HB_HELLO_OFF_MINOR] < HB_PROTO_VERSION_MINOR ? p[HB_HELLO_OFF_MINOR]
                                                                   : (uint8_t)HB_PROTO_VERSION_MINOR;
    uint8_t r[HB_HELLO_REPLY_LATCH_LEN] = {0};
    r[HB_HELLO_REPLY_OFF_MAJOR] = HB_PROTO_VERSION_MAJOR;
    r[HB_HELLO_REPLY_OFF_MINOR] = minor;
    r[HB_HELLO_REPLY_OFF_FW_MAJOR] = HB_FW_VERSION_MAJOR;
    r[HB_HELLO_REPLY_OFF_FW_MINOR] = HB_FW_VERSION_MINOR;
    hb_put_u16(&r[HB_HELLO_REPLY_OFF_CAPS],
               HB_CAP_RTP | HB_CAP_REG_WRITE | HB_CAP_ROM_SEQ | HB_CAP_STAMPED_STOP |
                   HB_CAP_CLOCK_SYNC | HB_CAP_QUEUE_STATUS | HB_CAP_CHIP_STATUS |
                   (core->hooks.enter_bootloader ? HB_CAP_BOOTLOADER : 0u) | HB_CAP_RAW_I2C |
                   HB_CAP_REPLACE_FROM | HB_CAP_IDENTITY | (core->accel.addr ? HB_CAP_ACCEL : 0u));
    r[HB_HELLO_REPLY_OFF_QUEUE_CAP] = HB_QUEUE_CAPACITY;
    r[HB_HELLO_REPLY_OFF_DEVICE_ID] = core->device_id;
    hb_put_u32(&r[HB_HELLO_REPLY_OFF_BOARD_US], hbi_now(core));
    hb_put_u16(&r[HB_HELLO_REPLY_OFF_KEEPALIVE_MS], (uint16_t)(core->keepalive_us / 1000u));
    hb_put_u16(&r[HB_HELLO_REPLY_OFF_MAX_DRIVE_MS], (uint16_t)(core->max_drive_us / 1000u));
    hb_put_u16(&r[HB_HELLO_REPLY_OFF_TICK_NS], core->config.tick_ns);
    if (minor == 0) {
        hbi_send(core, HB_T_HELLO_REPLY, r, HB_HELLO_REPLY_LEN);
        return;
    }
    r[HB_HELLO_REPLY_OFF_BOOTLOADER] = core->config.bootloader_kind;
    r[HB_HELLO_REPLY_OFF_SERIAL_LEN] = core->config.serial_len;
    for (uint8_t i = 0; i < core->config.serial_len; i++) {
        r[HB_HELLO_REPLY_OFF_SERIAL + i] = core->config.serial[i];
    }
    hb_put_u16(&r[HB_HELLO_REPLY_OFF_WRITE_SPACING_US], core->config.write_spacing_us);
    hb_put_u16(&r[HB_HELLO_REPLY_OFF_LATCH_LEAD_US], hbi_latch_lead_us(core));
    hbi_send(core, HB_T_HELLO_REPLY, r, HB_HELLO_REPLY_LATCH_LEN);
}

static void on_sync(hb_core *core, const uint8_t *p, uint32_t rx_us)
{
    uint8_t r[HB_SYNC_REPLY_LEN];
    hb_put_u32(&r[HB_SYNC_REPLY_OFF_TOKEN], hb_get_u32(&p[HB_SYNC_OFF_TOKEN]));
    hb_put_u32(&r[HB_SYNC_REPLY_OFF_RX_US], rx_us);
    hb_put_u32(&r[HB_SYNC_REPLY_OFF_TX_US], hbi_now(core));
    hbi_send(core, HB_T_SYNC_REPLY, r, sizeof r);
}

static void on_queue_status(hb_core *core)
{
    uint8_t r[HB_QUEUE_STATUS_LEN];
    hbi_lock(core);
    r[HB_QSTAT_OFF_FREE] = hb_queue_free(&core->queue);
    r[HB_QSTAT_OFF_CAPACITY] = HB_QUEUE_CAPACITY;
    hb_put_u16(&r[HB_QSTAT_OFF_UNDERRUNS], core->underruns);
    hb_put_u32(&r[HB_QSTAT_OFF_LAST_AT_US], core->last_at_us);
    hb_put_u32(&r[HB_QSTAT_OFF_LAST_RUN_US], core->last_run_us);
    hb_put_u32(&r[HB_QSTAT_OFF_EXECUTED], core->executed);
    hbi_unlock(core);
    r[HB_QSTAT_OFF_LAST_SEQ] = core->last_seq;
    hb_put_u16(&r[HB_QSTAT_OFF_REJECTED], core->rejected);
    hbi_send(core, HB_T_QUEUE_STATUS, r, sizeof r);
}

static void on_chip_status(hb_core *core)
{
    uint8_t status = 0xFF;
    uint8_t r[HB_CHIP_STATUS_LEN];
    hbi_lock(core);
    if (drv2605_read_reg(&core->chip, DRV2605_REG_STATUS, &status) != HB_I2C_ACK) {
        status = 0xFF;
    }
    r[HB_CSTAT_OFF_FAULTS] = core->faults | core->pending_faults;
    r[HB_CSTAT_OFF_DRIVING] = core->drive != HB_DRIVE_IDLE;
    r[HB_CSTAT_OFF_MODE_REG] = core->chip.mode_shadow;
    hb_put_u16(&r[HB_CSTAT_OFF_I2C_ERRORS], core->chip.i2c_errors);
    hbi_unlock(core);
    r[HB_CSTAT_OFF_STATUS_REG] = status;
    r[HB_CSTAT_OFF_STOP_REASON] = core->stop_reason;
    hb_put_u32(&r[HB_CSTAT_OFF_BOARD_US], hbi_now(core));
    hbi_send(core, HB_T_CHIP_STATUS, r, sizeof r);
}

/* How long an untimed read holds the bus: bytes on the wire (address,
 * register, the repeated START's address, the data) at HB_UNTIMED_BYTE_US. */
static uint32_t untimed_read_us(uint8_t n)
{
    return (3u + (uint32_t)n) * HB_UNTIMED_BYTE_US + HB_UNTIMED_FIXED_US;
}

/* One untimed transaction, now: in the main context, under the lock, so the
 * timer callback cannot start a stamped command's transaction while it is on
 * the bus, nor can it start inside a stamped command's. */
static void run_i2c(hb_core *core, uint8_t seq, uint8_t type, const uint8_t *p, uint8_t n)
{
    uint8_t addr = p[HB_I2C_OFF_ADDR];
    bool write = type == HB_T_I2C_WRITE;
    bool chip = addr == DRV2605_I2C_ADDR;
    uint8_t r[HB_I2C_RESULT_MIN_LEN + HB_I2C_MAX_DATA];
    hb_i2c_result result;
    hbi_lock(core);
    if (write && (core->faults || core->pending_faults)) {
        hbi_unlock(core);
        hbi_nak(core, seq, type, HB_NAK_FAULT);
        return;
    }
    if (chip) {
        /* Through the driver, so its shadows see what the host wrote (or a GO
         * the chip cleared) and the drive limit and host-silence stop cover a
         * drive it started. */
        result = write ? drv2605_write(&core->chip, &p[HB_I2C_OFF_REG], (uint8_t)(n + 1u))
                       : drv2605_read(&core->chip, p[HB_I2C_OFF_REG], &r[HB_I2C_RESULT_OFF_DATA], n);
        hbi_track_drive(core, hbi_now(core));
        if (write && result != HB_I2C_ACK) {
            core->pending_faults |= HB_FAULT_I2C; /* as for a stamped command */
        }
    } else if (write) {
        result = core->hooks.i2c_write(core->hooks.context, addr, &p[HB_I2C_OFF_REG],
                                       (uint8_t)(n + 1u));
    } else {
        result = core->hooks.i2c_read(core->hooks.context, addr, p[HB_I2C_OFF_REG],
                                      &r[HB_I2C_RESULT_OFF_DATA], n);
    }
    hbi_unlock(core);
    bool ok = result == HB_I2C_ACK;
    uint8_t count = ok && !write ? n : 0u;
    r[HB_I2C_RESULT_OFF_SEQ] = seq;
    r[HB_I2C_RESULT_OFF_ADDR] = addr;
    r[HB_I2C_RESULT_OFF_REG] = p[HB_I2C_OFF_REG];
    r[HB_I2C_RESULT_OFF_STATUS] = (uint8_t)(ok ? HB_I2C_STATUS_ACK : HB_I2C_STATUS_NACK);
    r[HB_I2C_RESULT_OFF_COUNT] = count;
    hbi_send(core, HB_T_I2C_RESULT, r, (uint8_t)(HB_I2C_RESULT_MIN_LEN + count));
}

void hbi_untimed_retry(hb_core *core)
{
    if (!core->untimed_pending) {
        return;
    }
    uint8_t n = core->untimed[HB_I2C_READ_OFF_COUNT];
    hbi_lock(core);
    /* The clock read under the lock (see safety.c's may_take_bus). */
    uint32_t now = hbi_now(core);
    bool go = hbi_bus_free_for(core, now, untimed_read_us(n) + HB_UNTIMED_GUARD_US) ||
              hbi_reached(now, core->untimed_since_us + HB_UNTIMED_MAX_WAIT_US);
    hbi_unlock(core);
    if (go) {
        core->untimed_pending = false;
        run_i2c(core, core->untimed_seq, HB_T_I2C_READ, core->untimed, n);
    }
}

/* I2C_READ / I2C_WRITE: checked at once; a read runs in the stream's next gap
 * (core.h, HB_UNTIMED_*; PROTOCOL.md, "Untimed I2C"), at once when nothing is
 * queued; a write runs at once. */
static void on_i2c(hb_core *core, uint8_t seq, uint8_t type, const uint8_t *p, uint8_t len)
{
    uint8_t addr = p[HB_I2C_OFF_ADDR];
    bool write = type == HB_T_I2C_WRITE;
    uint8_t n = write ? (uint8_t)(len - HB_I2C_WRITE_OFF_DATA) : p[HB_I2C_READ_OFF_COUNT];
    bool chip = addr == DRV2605_I2C_ADDR;
    if (addr > HB_I2C_MAX_ADDR || n == 0 || n > HB_I2C_MAX_DATA ||
        (write && chip && !drv2605_regs_writable(p[HB_I2C_OFF_REG], n))) {
        hbi_nak(core, seq, type, HB_NAK_BAD_ARG);
        return;
    }
    if (write) {
        run_i2c(core, seq, type, p, n);
        return;
    }
    if (core->untimed_pending) {
        /* One waits at a time; the host sends the next once this one's answer came. */
        hbi_nak(core, seq, type, HB_NAK_QUEUE_FULL);
        return;
    }
    for (uint8_t i = 0; i < HB_I2C_READ_LEN; i++) {
        core->untimed[i] = p[i];
    }
    core->untimed_seq = seq;
    core->untimed_since_us = hbi_now(core);
    core->untimed_pending = true;
    hbi_untimed_retry(core);
}

static void on_replace_from(hb_core *core, uint8_t seq, const uint8_t *p)
{
    uint8_t r[HB_REPLACED_LEN];
    hbi_lock(core);
    /* Only queued commands: the one the timer is running (if any) has left
     * the queue's reach, since the timer context holds the lock for it. */
    r[HB_REPLACED_OFF_DISCARDED] = hb_queue_drop_from(&core->queue, hb_get_u32(&p[HB_REPLACE_OFF_AT_US]));
    if (!hb_queue_count(&core->queue) && core->hooks.disarm_timer) {
        core->hooks.disarm_timer(core->hooks.context);
    }
    r[HB_REPLACED_OFF_FREE] = hb_queue_free(&core->queue);
    hbi_unlock(core);
    r[HB_REPLACED_OFF_SEQ] = seq;
    hbi_send(core, HB_T_REPLACED, r, sizeof r);
}

static bool needs_session(uint8_t type)
{
    /* Status, sync, stop, bootloader entry and bus reads work without a
     * session so a host can always inspect and stop a board it has just
     * found. */
    switch (type) {
    case HB_T_SYNC:
    case HB_T_QUEUE_STATUS_REQ:
    case HB_T_CHIP_STATUS_REQ:
    case HB_T_STOP_ALL:
    case HB_T_ENTER_BOOTLOADER:
    case HB_T_I2C_READ:
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
    const uint32_t rx_us = hbi_now(core);

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
            hbi_nak(core, seq, type, HB_NAK_SEQ_GAP);
            core->expected_seq = (uint8_t)(seq + 1u);
            return;
        }
        core->expected_seq = (uint8_t)(seq + 1u);
        core->last_seq = seq;
    }
    if (!hb_host_type_known(type)) {
        hbi_nak(core, seq, type, HB_NAK_UNKNOWN_TYPE);
        return;
    }
    if (!hb_host_payload_len_ok(type, len)) {
        hbi_nak(core, seq, type, HB_NAK_LENGTH);
        return;
    }
    if (!core->open && needs_session(type)) {
        hbi_nak(core, seq, type, HB_NAK_NOT_OPEN);
        return;
    }

    switch (type) {
    case HB_T_SYNC:
        on_sync(core, p, rx_us);
        return;
    case HB_T_KEEPALIVE:
        return;
    case HB_T_QUEUE_STATUS_REQ:
        /* The reply names its request, session or not: a host matches it to what it
         * sent (with a session open, last_seq is this frame's already). */
        core->last_seq = seq;
        on_queue_status(core);
        return;
    case HB_T_CHIP_STATUS_REQ:
        on_chip_status(core);
        return;
    case HB_T_STOP_ALL:
        hbi_lock(core);
        hbi_stop_locked(core, HB_STOP_HOST_REQUEST);
        hbi_unlock(core);
        hbi_ack(core, seq, type);
        return;
    case HB_T_CLEAR_FAULT:
        hbi_lock(core);
        core->faults = 0;
        core->pending_faults = 0;
        hbi_unlock(core);
        hbi_ack(core, seq, type);
        return;
    case HB_T_ENTER_BOOTLOADER:
        if (hb_get_u32(&p[HB_BOOT_OFF_MAGIC]) != HB_BOOT_MAGIC || !core->hooks.enter_bootloader) {
            hbi_nak(core, seq, type, HB_NAK_BAD_ARG);
            return;
        }
        hbi_lock(core);
        hbi_stop_locked(core, HB_STOP_BOOTLOADER);
        hbi_unlock(core);
        core->open = false;
        hbi_ack(core, seq, type);
        core->hooks.enter_bootloader(core->hooks.context);
        return;
    case HB_T_I2C_READ:
    case HB_T_I2C_WRITE:
        on_i2c(core, seq, type, p, len);
        return;
    case HB_T_REPLACE_FROM:
        on_replace_from(core, seq, p);
        return;
    case HB_T_ACCEL_STREAM: {
        uint8_t reason = hbi_accel_stream(core, p[HB_ACCEL_STREAM_OFF_ODR], p[HB_ACCEL_STREAM_OFF_FS]);
        if (reason) {
            hbi_nak(core, seq, type, reason);
        } else {
            hbi_ack(core, seq, type);
        }
        return;
    }
    default: {
        hb_cmd cmd;
        uint8_t reason = parse_command(type, p, len, &cmd);
        if (!reason) {
            reason = enqueue(core, &cmd);
        }
        if (reason) {
            hbi_nak(core, seq, type, reason);
        }
        return;
    }
    }
}

void hb_core_receive(hb_core *core, const uint8_t *bytes, uint32_t len)
{
    hb_decoder *d = &core->decoder;
    while (len) {
        uint32_t used;
        hb_decode_result r = hb_decoder_push_bytes(d, bytes, len, &used);
        bytes += used;
        len -= used;
        switch (r) {
        case HB_DECODE_FRAME:
            on_frame(core);
            break;
        case HB_DECODE_BAD_CRC:
            hbi_nak(core, hb_decoder_seq(d), hb_decoder_type(d), HB_NAK_CRC);
            break;
        case HB_DECODE_BAD_LENGTH:
            hbi_nak(core, 0, 0, HB_NAK_LENGTH);
            break;
        case HB_DECODE_MORE:
        default:
            break;
        }
    }
}
