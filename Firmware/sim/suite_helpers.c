/* The suite's protocol helpers: the board's clock, sending commands as a
 * host does, and reading what reached the chip. */
#include <string.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"
#include "suite.h"

double board_now(void) { return sim_board_us_at(&board, board.avr->cycle); }

uint32_t stamp_in(uint32_t us) { return (uint32_t)board_now() + us; }

bool send_rtp(uint32_t at, uint8_t amplitude)
{
    uint8_t p[HB_CMD_RTP_LEN];
    hb_put_u32(&p[HB_CMD_OFF_AT_US], at);
    p[HB_CMD_RTP_OFF_AMPLITUDE] = amplitude;
    return link_send(&host, HB_T_CMD_RTP, p, sizeof p);
}

bool hello_minor(uint8_t minor, uint16_t keepalive_ms, uint16_t max_drive_ms, link_frame *reply)
{
    uint8_t p[HB_HELLO_LEN];
    p[HB_HELLO_OFF_MAJOR] = HB_PROTO_VERSION_MAJOR;
    p[HB_HELLO_OFF_MINOR] = minor;
    hb_put_u16(&p[HB_HELLO_OFF_KEEPALIVE_MS], keepalive_ms);
    hb_put_u16(&p[HB_HELLO_OFF_MAX_DRIVE_MS], max_drive_ms);
    return link_send(&host, HB_T_HELLO, p, sizeof p) &&
           link_wait(&host, HB_T_HELLO_REPLY, 5000, reply);
}

bool hello(uint16_t keepalive_ms, uint16_t max_drive_ms, link_frame *reply)
{
    return hello_minor(HB_PROTO_VERSION_MINOR, keepalive_ms, max_drive_ms, reply);
}

bool expect_nak(uint8_t reason, uint8_t *expected_seq)
{
    link_frame f;
    if (!link_wait(&host, HB_T_NAK, 5000, &f)) {
        return fail("no NAK (wanted reason %u)", reason);
    }
    if (f.payload[HB_NAK_OFF_REASON] != reason) {
        return fail("NAK reason %u, wanted %u", f.payload[HB_NAK_OFF_REASON], reason);
    }
    if (expected_seq) {
        *expected_seq = f.payload[HB_NAK_OFF_EXPECTED];
    }
    return true;
}

/* True when some logged write since `from` put `value` into `reg`. */
bool wrote(uint32_t from, uint8_t reg, uint8_t value)
{
    for (uint32_t i = from; i < chip.count; i++) {
        const drv_txn *t = &chip.log[i];
        if (!t->is_read && t->reg == reg && t->n >= 1 && t->bytes[0] == value) {
            return true;
        }
    }
    return false;
}

bool chip_stopped(void)
{
    return chip.regs[DRV2605_REG_RTP_INPUT] == 0 && !(chip.regs[DRV2605_REG_GO] & DRV2605_GO_GO) &&
           (chip.regs[DRV2605_REG_MODE] & DRV2605_MODE_STANDBY);
}

bool hello_1_1(link_frame *r)
{
    CHECK(hello_minor(1, 1000, 0, r), "no HELLO_REPLY");
    CHECK(r->len == HB_HELLO_REPLY_LATCH_LEN && r->payload[HB_HELLO_REPLY_OFF_MINOR] == 1,
          "reply of %u bytes, minor %u", r->len, r->payload[HB_HELLO_REPLY_OFF_MINOR]);
    return true;
}

bool i2c(uint8_t type, const uint8_t *payload, uint8_t len, link_frame *result)
{
    uint8_t seq = host.tx_seq;
    CHECK(link_send(&host, type, payload, len), "send failed");
    CHECK(link_wait(&host, HB_T_I2C_RESULT, 5000, result), "no I2C_RESULT");
    CHECK(result->payload[HB_I2C_RESULT_OFF_SEQ] == seq, "result for seq %u, sent %u",
          result->payload[HB_I2C_RESULT_OFF_SEQ], seq);
    return true;
}

/* STOP of the write that put `value` into RTP_INPUT, on the board clock: when
 * the chip took it, what a stamp means. */
bool rtp_latch(uint32_t from, uint8_t value, double *latch)
{
    for (uint32_t i = from; i < chip.count; i++) {
        const drv_txn *t = &chip.log[i];
        if (!t->is_read && t->reg == DRV2605_REG_RTP_INPUT && t->n >= 1 && t->bytes[0] == value) {
            *latch = sim_board_us_at(&board, t->stop_cycle);
            return true;
        }
    }
    return false;
}

/* A 1.1 session, then n RTP amplitudes 1, 2, .. stamped `step` apart from
 * `ahead` us on (*t0); *mark is where the chip log stood before them. */
bool open_and_stream(uint32_t ahead, uint32_t n, uint32_t step, uint32_t *mark, uint32_t *t0)
{
    link_frame r;
    if (!hello_1_1(&r)) {
        return false;
    }
    link_pump(&host, 1000);
    *mark = chip.count;
    *t0 = stamp_in(ahead);
    for (uint32_t i = 0; i < n; i++) {
        CHECK(send_rtp(*t0 + i * step, (uint8_t)(1u + i)), "send failed");
    }
    return true;
}
