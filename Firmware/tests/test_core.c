/* Sessions, frame validation and timed execution in the core. */
#include <string.h>

#include "check.h"
#include "fake_board.h"
#include "hapbridge/drv2605_regs.h"
#include "tests.h"

static fake_board b;

static bool open_session(void)
{
    fake_init(&b);
    fake_hello(&b, 500, 0);
    return fake_last(&b, HB_T_HELLO_REPLY) != NULL;
}

static bool hello_opens_a_session_and_reports_the_chip(void)
{
    CHECK(open_session());
    const fake_frame *r = fake_last(&b, HB_T_HELLO_REPLY);
    CHECK(r->len == HB_HELLO_REPLY_LATCH_LEN);
    CHECK(r->payload[HB_HELLO_REPLY_OFF_MAJOR] == HB_PROTO_VERSION_MAJOR);
    CHECK(r->payload[HB_HELLO_REPLY_OFF_DEVICE_ID] == DRV2605_DEVICE_ID_DRV2605L);
    CHECK(hb_get_u16(&r->payload[HB_HELLO_REPLY_OFF_CAPS]) & HB_CAP_BOOTLOADER);
    CHECK(hb_get_u32(&r->payload[HB_HELLO_REPLY_OFF_BOARD_US]) == b.now_us);
    CHECK(b.core.open);
    return true;
}

static bool hello_with_another_major_is_refused(void)
{
    fake_init(&b);
    uint8_t p[HB_HELLO_LEN] = {HB_PROTO_VERSION_MAJOR + 1};
    fake_send(&b, HB_T_HELLO, p, sizeof p);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_VERSION && !b.core.open);
    return true;
}

static bool stamped_command_before_hello_is_refused(void)
{
    fake_init(&b);
    fake_rtp(&b, b.now_us + 100, 0x20);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_NOT_OPEN && hb_queue_count(&b.core.queue) == 0);
    return true;
}

static bool stamped_rtp_runs_when_its_time_comes_not_before(void)
{
    CHECK(open_session());
    uint32_t at = b.now_us + 5000;
    b.write_count = 0;
    fake_rtp(&b, at, 0x40);
    CHECK(b.timer_armed && b.timer_at == at);
    fake_advance(&b, 4990);
    CHECK(fake_writes_of(&b, DRV2605_REG_RTP_INPUT, 0x40) == 0);
    fake_advance(&b, 20);
    CHECK(fake_writes_of(&b, DRV2605_REG_RTP_INPUT, 0x40) == 1);
    CHECK(b.writes[b.write_count - 1].at_us == at);
    return true;
}

static bool exec_lead_arms_early_and_runs_on_the_stamp(void)
{
    CHECK(open_session());
    b.core.config.exec_lead_us = 30;
    uint32_t at = b.now_us + 1000;
    fake_rtp(&b, at, 0x41);
    CHECK(b.timer_at == at - 30);
    fake_advance(&b, 980);
    CHECK(fake_writes_of(&b, DRV2605_REG_RTP_INPUT, 0x41) == 1);
    return true;
}

static void spin_to(void *ctx, uint32_t at)
{
    fake_board *fb = ctx;
    fb->now_us = at; /* the fake clock only moves when told to */
}

static bool spin_window_wakes_early_and_starts_on_the_stamp(void)
{
    CHECK(open_session());
    b.core.config.spin_us = 40;
    b.core.hooks.spin_until = spin_to;
    uint32_t at = b.now_us + 1000;
    fake_rtp(&b, at, 0x42);
    CHECK(b.timer_at == at - 40);
    fake_advance(&b, 970); /* woken 30 us early: inside the window */
    CHECK(b.writes[b.write_count - 1].reg == DRV2605_REG_RTP_INPUT);
    CHECK(b.writes[b.write_count - 1].at_us == at);
    return true;
}

static bool commands_at_one_stamp_all_run_in_order(void)
{
    CHECK(open_session());
    uint32_t at = b.now_us + 100;
    fake_rtp(&b, at, 1);
    fake_rtp(&b, at, 2);
    fake_rtp(&b, at, 3);
    b.write_count = 0;
    fake_advance(&b, 200);
    CHECK(b.write_count == 4); /* MODE, then three amplitudes */
    CHECK(b.writes[1].bytes[0] == 1 && b.writes[2].bytes[0] == 2 && b.writes[3].bytes[0] == 3);
    return true;
}

static bool out_of_order_stamp_is_refused(void)
{
    CHECK(open_session());
    fake_rtp(&b, b.now_us + 2000, 1);
    fake_rtp(&b, b.now_us + 1000, 2);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_OUT_OF_ORDER && hb_queue_count(&b.core.queue) == 1);
    return true;
}

static bool full_queue_is_reported(void)
{
    CHECK(open_session());
    for (uint32_t i = 0; i < HB_QUEUE_CAPACITY; i++) {
        fake_rtp(&b, b.now_us + 1000 + i, 1);
    }
    CHECK(fake_count(&b, HB_T_NAK) == 0);
    fake_rtp(&b, b.now_us + 5000, 1);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_QUEUE_FULL);
    return true;
}

static bool bad_crc_is_reported_and_not_queued(void)
{
    CHECK(open_session());
    uint8_t p[HB_CMD_RTP_LEN] = {0}, frame[HB_FRAME_MAX_LEN];
    uint8_t n = hb_frame_encode(frame, b.host_seq++, HB_T_CMD_RTP, p, sizeof p);
    frame[n - 2] ^= 0xFF;
    hb_core_receive(&b.core, frame, n);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_CRC && hb_queue_count(&b.core.queue) == 0);
    return true;
}

static bool sequence_gap_is_reported_with_the_missing_number(void)
{
    CHECK(open_session());
    uint8_t lost = b.host_seq++;
    fake_rtp(&b, b.now_us + 1000, 0x33);
    const fake_frame *nak = fake_last(&b, HB_T_NAK);
    CHECK(nak && nak->payload[HB_NAK_OFF_REASON] == HB_NAK_SEQ_GAP);
    CHECK(nak->payload[HB_NAK_OFF_EXPECTED] == lost);
    CHECK(hb_queue_count(&b.core.queue) == 0);
    fake_rtp(&b, b.now_us + 1000, 0x34); /* resynchronised */
    CHECK(hb_queue_count(&b.core.queue) == 1 && fake_count(&b, HB_T_NAK) == 1);
    return true;
}

static bool wrong_length_for_type_is_reported(void)
{
    CHECK(open_session());
    uint8_t p[HB_CMD_RTP_LEN - 1] = {0};
    fake_send(&b, HB_T_CMD_RTP, p, sizeof p);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_LENGTH && hb_queue_count(&b.core.queue) == 0);
    return true;
}

static bool unknown_type_is_reported(void)
{
    CHECK(open_session());
    fake_send(&b, 0x55, NULL, 0);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_UNKNOWN_TYPE);
    return true;
}

static bool write_to_read_only_register_is_refused(void)
{
    CHECK(open_session());
    uint8_t p[HB_CMD_REG_WRITE_LEN] = {0};
    hb_put_u32(p, b.now_us + 100);
    p[HB_CMD_REG_OFF_REG] = DRV2605_REG_STATUS;
    fake_send(&b, HB_T_CMD_REG_WRITE, p, sizeof p);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_BAD_ARG && hb_queue_count(&b.core.queue) == 0);
    return true;
}

static bool rom_effect_out_of_range_is_refused(void)
{
    CHECK(open_session());
    uint8_t p[HB_CMD_ROM_MIN_LEN + 1];
    hb_put_u32(p, b.now_us + 100);
    p[HB_CMD_ROM_OFF_ENTRIES] = 1;
    p[HB_CMD_ROM_OFF_ENTRIES + 1] = DRV2605_EFFECT_ID_MAX + 1;
    fake_send(&b, HB_T_CMD_ROM_SEQ, p, sizeof p);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_BAD_ARG);
    p[HB_CMD_ROM_OFF_ENTRIES + 1] = DRV2605_WAV_FRM_SEQ_WAIT | 0x7F; /* a pause is fine */
    fake_send(&b, HB_T_CMD_ROM_SEQ, p, sizeof p);
    CHECK(hb_queue_count(&b.core.queue) == 1);
    return true;
}

static bool late_command_runs_at_once_and_counts_an_underrun(void)
{
    CHECK(open_session());
    fake_rtp(&b, b.now_us - 500, 0x22);
    fake_advance(&b, 10);
    CHECK(fake_writes_of(&b, DRV2605_REG_RTP_INPUT, 0x22) == 1 && b.core.underruns == 1);
    return true;
}

/* Commands on one stamp run back to back; the ones behind the first are late
 * when the first was (on a board the bus delays them, which is no underrun). */
static bool a_late_stamp_counts_each_command_on_it(void)
{
    CHECK(open_session());
    fake_rtp(&b, b.now_us - 500, 0x22);
    fake_rtp(&b, b.now_us - 500, 0x23);
    fake_advance(&b, 10);
    CHECK(fake_writes_of(&b, DRV2605_REG_RTP_INPUT, 0x23) == 1 && b.core.underruns == 2);
    return true;
}

static bool sync_echoes_the_token_with_board_times(void)
{
    fake_init(&b);
    uint8_t p[HB_SYNC_LEN];
    hb_put_u32(p, 0xABCD1234u);
    fake_send(&b, HB_T_SYNC, p, sizeof p); /* works without a session */
    const fake_frame *r = fake_last(&b, HB_T_SYNC_REPLY);
    CHECK(r && hb_get_u32(&r->payload[HB_SYNC_REPLY_OFF_TOKEN]) == 0xABCD1234u);
    CHECK(hb_get_u32(&r->payload[HB_SYNC_REPLY_OFF_RX_US]) == b.now_us);
    return true;
}

static bool queue_status_reports_free_slots_and_last_execution(void)
{
    CHECK(open_session());
    uint32_t at = b.now_us + 100;
    fake_rtp(&b, at, 1);
    fake_rtp(&b, at + 10000, 2);
    fake_advance(&b, 200);
    fake_send(&b, HB_T_QUEUE_STATUS_REQ, NULL, 0);
    const fake_frame *r = fake_last(&b, HB_T_QUEUE_STATUS);
    CHECK(r && r->payload[HB_QSTAT_OFF_FREE] == HB_QUEUE_CAPACITY - 1u);
    CHECK(hb_get_u32(&r->payload[HB_QSTAT_OFF_LAST_AT_US]) == at);
    CHECK(hb_get_u32(&r->payload[HB_QSTAT_OFF_EXECUTED]) == 1);
    CHECK(r->payload[HB_QSTAT_OFF_LAST_SEQ] == (uint8_t)(b.host_seq - 1u));
    return true;
}

static bool two_boards_in_one_process_are_independent(void)
{
    static fake_board a, c;
    fake_init(&a);
    fake_init(&c);
    fake_hello(&a, 500, 0);
    CHECK(a.core.open && !c.core.open);
    fake_rtp(&a, a.now_us + 10, 9);
    fake_advance(&a, 50);
    fake_advance(&c, 50);
    CHECK(a.regs[DRV2605_REG_RTP_INPUT] == 9 && c.regs[DRV2605_REG_RTP_INPUT] == 0);
    return true;
}

static bool next_deadline_is_the_earliest_pending_event(void)
{
    CHECK(open_session());
    uint32_t at;
    fake_rtp(&b, b.now_us + 300, 1);
    CHECK(hb_core_next_deadline(&b.core, &at) && at == b.now_us + 300);
    return true;
}

const test_case core_tests[] = {
    {"hello opens a session and reports the chip", hello_opens_a_session_and_reports_the_chip},
    {"hello with another major is refused", hello_with_another_major_is_refused},
    {"stamped command before hello is refused", stamped_command_before_hello_is_refused},
    {"stamped RTP runs when its time comes, not before", stamped_rtp_runs_when_its_time_comes_not_before},
    {"exec lead arms early and runs on the stamp", exec_lead_arms_early_and_runs_on_the_stamp},
    {"spin window wakes early and starts on the stamp", spin_window_wakes_early_and_starts_on_the_stamp},
    {"commands at one stamp all run in order", commands_at_one_stamp_all_run_in_order},
    {"out-of-order stamp is refused", out_of_order_stamp_is_refused},
    {"full queue is reported", full_queue_is_reported},
    {"bad CRC is reported and not queued", bad_crc_is_reported_and_not_queued},
    {"sequence gap is reported with the missing number", sequence_gap_is_reported_with_the_missing_number},
    {"wrong length for type is reported", wrong_length_for_type_is_reported},
    {"unknown type is reported", unknown_type_is_reported},
    {"write to a read-only register is refused", write_to_read_only_register_is_refused},
    {"ROM effect out of range is refused", rom_effect_out_of_range_is_refused},
    {"late command runs at once and counts an underrun", late_command_runs_at_once_and_counts_an_underrun},
    {"a late stamp counts each command on it", a_late_stamp_counts_each_command_on_it},
    {"sync echoes the token with board times", sync_echoes_the_token_with_board_times},
    {"queue status reports free slots and last execution", queue_status_reports_free_slots_and_last_execution},
    {"two boards in one process are independent", two_boards_in_one_process_are_independent},
    {"next deadline is the earliest pending event", next_deadline_is_the_earliest_pending_event},
    TEST_LIST_END,
};
