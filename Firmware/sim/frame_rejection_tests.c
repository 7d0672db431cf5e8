/* Frames the board must refuse (bad CRC, lengths, a sequence gap, an unknown
 * type): each is reported and none reaches the chip; QUEUE_STATUS then counts
 * them beside the stream executed before. */
#include <stdio.h>
#include <string.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"
#include "suite.h"
#include "timing.h"

static bool bad_crc_is_reported_not_executed(void)
{
    uint32_t mark = chip.count;
    uint8_t p[HB_CMD_RTP_LEN], frame[HB_FRAME_MAX_LEN];
    hb_put_u32(p, stamp_in(2000));
    p[HB_CMD_RTP_OFF_AMPLITUDE] = 0x55;
    uint8_t n = hb_frame_encode(frame, host.tx_seq++, HB_T_CMD_RTP, p, sizeof p);
    frame[n - 1] ^= 0x01;
    CHECK(link_send_raw(&host, frame, n), "send failed");
    if (!expect_nak(HB_NAK_CRC, NULL) || !link_resync(&host)) {
        return false;
    }
    link_pump(&host, 4000);
    link_take(&host, HB_T_NAK, NULL); /* the flush may end a false frame */
    CHECK(!wrote(mark, DRV2605_REG_RTP_INPUT, 0x55), "corrupt frame was executed");
    /* the lost sequence number surfaces on the next good frame */
    CHECK(send_rtp(stamp_in(1000), 0x56), "send failed");
    uint8_t expected;
    if (!expect_nak(HB_NAK_SEQ_GAP, &expected)) {
        return false;
    }
    CHECK(send_rtp(stamp_in(1000), 0x57), "send failed");
    link_pump(&host, 3000);
    CHECK(!wrote(mark, DRV2605_REG_RTP_INPUT, 0x56), "frame after a gap was executed");
    CHECK(wrote(mark, DRV2605_REG_RTP_INPUT, 0x57), "link did not recover");
    return true;
}

static bool oversized_length_is_reported_not_executed(void)
{
    uint32_t mark = chip.count;
    uint8_t frame[HB_FRAME_MAX_LEN];
    uint8_t p[HB_CMD_RTP_LEN];
    hb_put_u32(p, stamp_in(2000));
    p[HB_CMD_RTP_OFF_AMPLITUDE] = 0x58;
    uint8_t n = hb_frame_encode(frame, host.tx_seq, HB_T_CMD_RTP, p, sizeof p);
    frame[HB_FRAME_OFFSET_LEN] = 200; /* longer than any frame */
    CHECK(link_send_raw(&host, frame, n), "send failed");
    if (!expect_nak(HB_NAK_LENGTH, NULL) || !link_resync(&host)) {
        return false;
    }
    link_pump(&host, 4000);
    link_take(&host, HB_T_NAK, NULL); /* the flush may end a false frame */
    CHECK(!wrote(mark, DRV2605_REG_RTP_INPUT, 0x58), "oversized frame was executed");
    /* nothing was consumed: the same sequence number is still expected */
    CHECK(send_rtp(stamp_in(1000), 0x59), "send failed");
    link_pump(&host, 3000);
    CHECK(wrote(mark, DRV2605_REG_RTP_INPUT, 0x59), "link did not recover");
    return true;
}

static bool wrong_length_for_type_is_reported_not_executed(void)
{
    uint32_t mark = chip.count;
    uint8_t p[HB_CMD_RTP_LEN + 1];
    hb_put_u32(p, stamp_in(2000));
    p[HB_CMD_RTP_OFF_AMPLITUDE] = 0x5A;
    p[HB_CMD_RTP_LEN] = 0;
    CHECK(link_send(&host, HB_T_CMD_RTP, p, sizeof p), "send failed"); /* CRC is valid */
    if (!expect_nak(HB_NAK_LENGTH, NULL)) {
        return false;
    }
    link_pump(&host, 4000);
    CHECK(!wrote(mark, DRV2605_REG_RTP_INPUT, 0x5A), "mis-sized frame was executed");
    return true;
}

static bool sequence_gap_is_reported_not_executed(void)
{
    uint32_t mark = chip.count;
    uint8_t lost = host.tx_seq++;
    CHECK(send_rtp(stamp_in(2000), 0x5B), "send failed");
    uint8_t expected;
    if (!expect_nak(HB_NAK_SEQ_GAP, &expected)) {
        return false;
    }
    CHECK(expected == lost, "NAK says expected %u, lost %u", expected, lost);
    link_pump(&host, 4000);
    CHECK(!wrote(mark, DRV2605_REG_RTP_INPUT, 0x5B), "frame after a gap was executed");
    return true;
}

static bool unknown_type_is_reported(void)
{
    CHECK(link_send(&host, 0x7E, NULL, 0), "send failed");
    return expect_nak(HB_NAK_UNKNOWN_TYPE, NULL);
}

static bool queue_status_counts_executions(void)
{
    CHECK(link_send(&host, HB_T_QUEUE_STATUS_REQ, NULL, 0), "send failed");
    link_frame r;
    CHECK(link_wait(&host, HB_T_QUEUE_STATUS, 5000, &r), "no QUEUE_STATUS");
    CHECK(r.payload[HB_QSTAT_OFF_FREE] == r.payload[HB_QSTAT_OFF_CAPACITY], "queue not drained");
    CHECK(hb_get_u32(&r.payload[HB_QSTAT_OFF_EXECUTED]) >= timing_commands(), "executed %u",
          hb_get_u32(&r.payload[HB_QSTAT_OFF_EXECUTED]));
    CHECK(hb_get_u16(&r.payload[HB_QSTAT_OFF_UNDERRUNS]) == 0, "underruns %u",
          hb_get_u16(&r.payload[HB_QSTAT_OFF_UNDERRUNS]));
    CHECK(hb_get_u16(&r.payload[HB_QSTAT_OFF_REJECTED]) >= 6, "rejections not counted");
    return true;
}

/* A burst the queue cannot hold, sent back to back: the board takes what fits and
 * refuses the rest, and every refusal reaches the host.  The port holds each bulk
 * OUT packet until the NAKs it can draw fit its IN ring (usb_identity.h,
 * HB_USB_OUT_REPLY_ROOM), so none is dropped for want of room: a host accounts
 * for every command it sent. */
#define BURST 200u
static bool every_refusal_of_a_burst_reaches_the_host(void)
{
    while (link_take(&host, HB_T_NAK, NULL)) {
    }
    CHECK(link_send(&host, HB_T_QUEUE_STATUS_REQ, NULL, 0), "send failed");
    link_frame r;
    CHECK(link_wait(&host, HB_T_QUEUE_STATUS, 5000, &r), "no QUEUE_STATUS");
    uint8_t free_before = r.payload[HB_QSTAT_OFF_FREE];
    uint32_t gaps = host.board_seq_gaps;
    static uint8_t burst[BURST * (HB_CMD_RTP_LEN + HB_FRAME_OVERHEAD)];
    uint32_t len = 0;
    uint32_t first = stamp_in(1000000);
    for (uint32_t i = 0; i < BURST; i++) {
        uint8_t p[HB_CMD_RTP_LEN];
        hb_put_u32(p, first + i * 10u);
        p[HB_CMD_RTP_OFF_AMPLITUDE] = (uint8_t)(i & 0x7Fu);
        len += hb_frame_encode(&burst[len], host.tx_seq++, HB_T_CMD_RTP, p, sizeof p);
    }
    /* The host reads bulk IN once a millisecond (a USB frame) while it sends. */
    host.read_every_us = 1000;
    bool sent = true;
    for (uint32_t off = 0; off < len && sent; off += 64u) {
        sent = link_send_raw(&host, &burst[off], (uint8_t)(len - off < 64u ? len - off : 64u));
    }
    host.read_every_us = 0;
    CHECK(sent, "burst not taken");
    link_pump(&host, 20000);
    uint32_t refused = 0;
    link_frame nak;
    while (link_take(&host, HB_T_NAK, &nak)) {
        CHECK(nak.payload[HB_NAK_OFF_REASON] == HB_NAK_QUEUE_FULL, "NAK reason %u", nak.payload[HB_NAK_OFF_REASON]);
        refused++;
    }
    CHECK(host.board_seq_gaps == gaps, "%u board frames lost", host.board_seq_gaps - gaps);
    CHECK(link_send(&host, HB_T_QUEUE_STATUS_REQ, NULL, 0), "send failed");
    CHECK(link_wait(&host, HB_T_QUEUE_STATUS, 5000, &r), "no QUEUE_STATUS");
    uint32_t queued = (uint32_t)(free_before - r.payload[HB_QSTAT_OFF_FREE]);
    CHECK(queued + refused == BURST, "%u queued + %u refused of %u sent", queued, refused, BURST);
    CHECK(hello(1000, 0, &r), "no HELLO_REPLY"); /* drops the far-stamped commands */
    return true;
}

void run_frame_rejection_tests(void)
{
    run_test("bad CRC is reported, not executed", bad_crc_is_reported_not_executed);
    run_test("oversized length is reported, not executed", oversized_length_is_reported_not_executed);
    run_test("wrong length for type is reported, not executed",
             wrong_length_for_type_is_reported_not_executed);
    run_test("sequence gap is reported, not executed", sequence_gap_is_reported_not_executed);
    run_test("unknown type is reported", unknown_type_is_reported);
    run_test("queue status counts executions", queue_status_counts_executions);
    run_test("every refusal of a burst the queue cannot hold reaches the host (flow control on bulk OUT)",
             every_refusal_of_a_burst_reaches_the_host);
}
