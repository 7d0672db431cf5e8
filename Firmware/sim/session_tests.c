/* A session's opening: what is refused before HELLO, what HELLO_REPLY states,
 * and clock sync against the board's time. */
#include <stdio.h>
#include <string.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"
#include "suite.h"

static bool commands_before_hello_are_refused(void)
{
    uint32_t mark = chip.count;
    CHECK(send_rtp(stamp_in(1000), 0x33), "send failed");
    if (!expect_nak(HB_NAK_NOT_OPEN, NULL)) {
        return false;
    }
    link_pump(&host, 3000);
    CHECK(!wrote(mark, DRV2605_REG_RTP_INPUT, 0x33), "refused command reached the chip");
    return true;
}

static bool hello_reports_version_and_chip(void)
{
    link_frame r;
    CHECK(hello(500, 0, &r), "no HELLO_REPLY");
    CHECK(r.len == HB_HELLO_REPLY_LATCH_LEN, "reply length %u", r.len);
    CHECK(r.payload[HB_HELLO_REPLY_OFF_MAJOR] == HB_PROTO_VERSION_MAJOR, "protocol major");
    CHECK(r.payload[HB_HELLO_REPLY_OFF_DEVICE_ID] == DRV2605_DEVICE_ID_DRV2605L,
          "device id %u", r.payload[HB_HELLO_REPLY_OFF_DEVICE_ID]);
    CHECK(r.payload[HB_HELLO_REPLY_OFF_QUEUE_CAP] == EXPECTED_QUEUE_CAPACITY, "queue capacity %u",
          r.payload[HB_HELLO_REPLY_OFF_QUEUE_CAP]);
    CHECK(hb_get_u16(&r.payload[HB_HELLO_REPLY_OFF_CAPS]) & HB_CAP_CLOCK_SYNC, "capabilities");
    CHECK(hb_get_u16(&r.payload[HB_HELLO_REPLY_OFF_KEEPALIVE_MS]) == 500, "keepalive");
    /* Its latch lead: at least a MODE write and the carrying write at 400 kHz
     * (each 81.75 us START to STOP, i2c_bus_timing_tests.c), less than the intake. */
    uint16_t lead = hb_get_u16(&r.payload[HB_HELLO_REPLY_OFF_LATCH_LEAD_US]);
    CHECK(lead >= 2 * 82 && lead < HB_UNSTATED_WRITE_SPACING_US, "latch lead %u", lead);
    /* The ATmega32U4 states its intake (WRITE_SPACING_US), the slowest port's figure. */
    CHECK(hb_get_u16(&r.payload[HB_HELLO_REPLY_OFF_WRITE_SPACING_US]) == HB_UNSTATED_WRITE_SPACING_US, "write spacing %u",
          hb_get_u16(&r.payload[HB_HELLO_REPLY_OFF_WRITE_SPACING_US]));
    return true;
}

static bool clock_sync_brackets_board_time(void)
{
    for (uint32_t i = 0; i < 8; i++) {
        uint8_t p[HB_SYNC_LEN];
        hb_put_u32(p, 0xC0DE0000u + i);
        double sent = board_now();
        CHECK(link_send(&host, HB_T_SYNC, p, sizeof p), "send failed");
        link_frame r;
        CHECK(link_wait(&host, HB_T_SYNC_REPLY, 5000, &r), "no SYNC_REPLY");
        double got = board_now();
        uint32_t rx = hb_get_u32(&r.payload[HB_SYNC_REPLY_OFF_RX_US]);
        uint32_t tx = hb_get_u32(&r.payload[HB_SYNC_REPLY_OFF_TX_US]);
        CHECK(hb_get_u32(&r.payload[HB_SYNC_REPLY_OFF_TOKEN]) == 0xC0DE0000u + i, "token");
        /* the board's clock must read between our send and receive instants */
        CHECK(sent - 1 <= rx && rx <= tx && tx <= got + 1,
              "board times %u..%u outside host window %.1f..%.1f", rx, tx, sent, got);
    }
    return true;
}

void run_session_tests(void)
{
    run_test("stamped commands before HELLO are refused", commands_before_hello_are_refused);
    run_test("hello reports version and chip", hello_reports_version_and_chip);
    run_test("clock sync brackets board time", clock_sync_brackets_board_time);
}
