/* REPLACE_FROM (protocol 1.1): a host streaming far ahead changes what plays
 * from time T on. */
#include "check.h"
#include "fake_board.h"
#include "hapbridge/drv2605_regs.h"
#include "tests.h"

static fake_board b;

static void replace_from(uint32_t at)
{
    uint8_t p[HB_REPLACE_FROM_LEN];
    hb_put_u32(&p[HB_REPLACE_OFF_AT_US], at);
    fake_send(&b, HB_T_REPLACE_FROM, p, sizeof p);
}

/* Amplitudes 1..5 stamped t0+1000 .. t0+5000. */
static uint32_t stream_five(void)
{
    fake_init(&b);
    fake_hello(&b, 1000, 0);
    uint32_t t0 = b.now_us;
    for (uint8_t i = 1; i <= 5; i++) {
        fake_rtp(&b, t0 + 1000u * i, i);
    }
    return t0;
}

static bool replace_from_discards_the_queued_commands_at_or_after_its_stamp(void)
{
    uint32_t t0 = stream_five();
    uint8_t seq = b.host_seq;
    replace_from(t0 + 3000);
    const fake_frame *r = fake_last(&b, HB_T_REPLACED);
    CHECK(r && r->payload[HB_REPLACED_OFF_SEQ] == seq);
    CHECK(r->payload[HB_REPLACED_OFF_DISCARDED] == 3);
    CHECK(r->payload[HB_REPLACED_OFF_FREE] == HB_QUEUE_CAPACITY - 2u);
    fake_rtp(&b, t0 + 3000, 0x33); /* what plays from T on now */
    fake_advance(&b, 6000);
    CHECK(fake_writes_of(&b, DRV2605_REG_RTP_INPUT, 1) == 1 && fake_writes_of(&b, DRV2605_REG_RTP_INPUT, 2) == 1);
    CHECK(fake_writes_of(&b, DRV2605_REG_RTP_INPUT, 3) == 0 && fake_writes_of(&b, DRV2605_REG_RTP_INPUT, 5) == 0);
    CHECK(fake_writes_of(&b, DRV2605_REG_RTP_INPUT, 0x33) == 1);
    return true;
}

static bool the_order_check_restarts_from_the_last_command_left(void)
{
    uint32_t t0 = stream_five();
    replace_from(t0 + 3000);
    fake_rtp(&b, t0 + 1500, 0x15); /* before the last one left (t0+2000) */
    CHECK(fake_last_nak_reason(&b) == HB_NAK_OUT_OF_ORDER);
    b.frame_count = 0;
    fake_rtp(&b, t0 + 2500, 0x25); /* before the discarded ones: fine now */
    CHECK(fake_count(&b, HB_T_NAK) == 0 && hb_queue_count(&b.core.queue) == 3);
    return true;
}

static bool replacing_everything_leaves_an_empty_queue_that_takes_any_stamp(void)
{
    uint32_t t0 = stream_five();
    replace_from(t0);
    CHECK(fake_last(&b, HB_T_REPLACED)->payload[HB_REPLACED_OFF_DISCARDED] == 5);
    CHECK(hb_queue_count(&b.core.queue) == 0 && !b.timer_armed);
    fake_rtp(&b, t0 + 10, 0x01);
    CHECK(fake_count(&b, HB_T_NAK) == 0);
    return true;
}

static bool a_command_already_run_is_not_affected(void)
{
    uint32_t t0 = stream_five();
    fake_advance(&b, 1500); /* amplitude 1 has run */
    replace_from(t0 + 500);
    CHECK(fake_last(&b, HB_T_REPLACED)->payload[HB_REPLACED_OFF_DISCARDED] == 4);
    CHECK(b.regs[DRV2605_REG_RTP_INPUT] == 1 && b.core.executed == 1);
    return true;
}

static bool stamps_compare_across_the_clock_wrap(void)
{
    fake_init(&b);
    b.now_us = 0xFFFFF000u;
    fake_hello(&b, 1000, 0);
    fake_rtp(&b, 0xFFFFFF00u, 1);
    fake_rtp(&b, 0x00000100u, 2); /* after the wrap */
    fake_rtp(&b, 0x00000200u, 3);
    replace_from(0xFFFFFFF0u); /* before the wrap: both later ones go */
    CHECK(fake_last(&b, HB_T_REPLACED)->payload[HB_REPLACED_OFF_DISCARDED] == 2);
    CHECK(hb_queue_peek_last(&b.core.queue)->at_us == 0xFFFFFF00u);
    return true;
}

static bool replace_from_needs_a_session(void)
{
    fake_init(&b);
    replace_from(0);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_NOT_OPEN && fake_count(&b, HB_T_REPLACED) == 0);
    return true;
}

const test_case replace_from_tests[] = {
    {"REPLACE_FROM discards the queued commands at or after its stamp",
     replace_from_discards_the_queued_commands_at_or_after_its_stamp},
    {"the order check restarts from the last command left", the_order_check_restarts_from_the_last_command_left},
    {"replacing everything leaves an empty queue that takes any stamp",
     replacing_everything_leaves_an_empty_queue_that_takes_any_stamp},
    {"a command already run is not affected", a_command_already_run_is_not_affected},
    {"stamps compare across the clock wrap", stamps_compare_across_the_clock_wrap},
    {"REPLACE_FROM needs a session", replace_from_needs_a_session},
    TEST_LIST_END,
};
