/* Core lifecycle and the frames and stops every other part uses. */
#include "hapbridge/core_private.h"

void hb_core_init(hb_core *core, const hb_hooks *hooks, const hb_core_config *config)
{
    *core = (hb_core){0};
    core->hooks = *hooks;
    core->config = *config;
    if (core->config.serial_len > HB_SERIAL_MAX_LEN) {
        core->config.serial_len = HB_SERIAL_MAX_LEN;
    }
    drv2605_init(&core->chip, &core->hooks);
    hb_decoder_init(&core->decoder);
    hb_queue_init(&core->queue);
    core->device_id = 0xFF;
    core->keepalive_us = HB_DEFAULT_KEEPALIVE_MS * 1000u;
    core->max_drive_us = HB_DEFAULT_MAX_DRIVE_MS * 1000u;
}

void hb_core_start(hb_core *core)
{
    hbi_lock(core);
    core->device_id = drv2605_probe(&core->chip);
    drv2605_stop(&core->chip);
    hbi_unlock(core);
    hbi_accel_probe(core);
}

/* ---- Frames to the host ------------------------------------------------- */

void hbi_send(hb_core *core, uint8_t type, const uint8_t *payload, uint8_t len)
{
    uint8_t n = hb_frame_encode(core->tx, core->tx_seq, type, payload, len);
    core->tx_seq++;
    core->hooks.send_frame(core->hooks.context, core->tx, n);
}

void hbi_nak(hb_core *core, uint8_t seq, uint8_t type, uint8_t reason)
{
    uint8_t p[HB_NAK_LEN];
    p[HB_NAK_OFF_SEQ] = seq;
    p[HB_NAK_OFF_REASON] = reason;
    p[HB_NAK_OFF_EXPECTED] = core->expected_seq;
    p[HB_NAK_OFF_TYPE] = type;
    if (core->rejected != UINT16_MAX) {
        core->rejected++;
    }
    hbi_send(core, HB_T_NAK, p, sizeof p);
}

void hbi_ack(hb_core *core, uint8_t seq, uint8_t type)
{
    uint8_t p[HB_ACK_LEN];
    p[HB_ACK_OFF_SEQ] = seq;
    p[HB_ACK_OFF_TYPE] = type;
    hbi_send(core, HB_T_ACK, p, sizeof p);
}

/* ---- Stopping ------------------------------------------------------------ */

uint8_t hbi_stop_locked(hb_core *core, uint8_t reason)
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

void hbi_stop_and_report(hb_core *core, uint8_t reason)
{
    hbi_lock(core);
    uint8_t flushed = hbi_stop_locked(core, reason);
    hbi_unlock(core);
    uint8_t p[HB_EVENT_STOPPED_LEN];
    p[HB_STOPPED_OFF_REASON] = reason;
    hb_put_u32(&p[HB_STOPPED_OFF_AT_US], hbi_now(core));
    p[HB_STOPPED_OFF_FLUSHED] = flushed;
    hbi_send(core, HB_T_EVENT_STOPPED, p, sizeof p);
}

