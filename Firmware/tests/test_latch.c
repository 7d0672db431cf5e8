/* Timing where the chip latches: with a bus that takes time (write_us), a
 * stamped command's carrying write starts exec_lead_us + write_us before its
 * stamp, so its STOP lands on the stamp, and the writes it needs first (a MODE
 * change from standby, a ROM sequence's entries) go ahead of that. */
#include "check.h"
#include "fake_board.h"
#include "hapbridge/core_private.h"
#include "hapbridge/drv2605_regs.h"
#include "tests.h"

#define LEAD 5u
#define WRITE 80u
#define SPIN 40u
/* exec.c: the writes made ahead of the carrying one get exec_lead_us, and
 * each its bus time (write_us for 3 bytes on the wire, 5/16 of it + 1 for each
 * byte more) plus 16 us of slack. */
#define SLACK 16u
#define PREWRITE_MODE (LEAD + WRITE + SLACK)

static fake_board b;

static void spin_to(void *ctx, uint32_t at) { ((fake_board *)ctx)->now_us = at; }

static bool open_timed_bus(void)
{
    hb_core_config config = {.exec_lead_us = LEAD, .write_us = WRITE, .spin_us = SPIN, .tick_ns = 500};
    fake_init_with(&b, &config);
    b.core.hooks.spin_until = spin_to;
    fake_hello(&b, 500, 0);
    b.write_count = 0;
    return b.core.open;
}

static const fake_write *last_write(void) { return &b.writes[b.write_count - 1u]; }

static bool rtp_in_rtp_mode_starts_one_write_early(void)
{
    CHECK(open_timed_bus());
    b.core.chip.mode_shadow = DRV2605_MODE_RTP; /* as after an earlier RTP */
    uint32_t at = b.now_us + 2000;
    fake_rtp(&b, at, 0x40);
    CHECK(b.timer_at == at - LEAD - WRITE - SPIN);
    fake_advance(&b, 2000);
    CHECK(b.write_count == 1 && last_write()->reg == DRV2605_REG_RTP_INPUT);
    CHECK(last_write()->at_us == at - LEAD - WRITE);
    /* QUEUE_STATUS's "run" time is when the chip took it: on the stamp */
    CHECK(b.core.last_run_us == at && b.core.underruns == 0);
    return true;
}

static bool rtp_from_standby_puts_its_mode_write_ahead_of_the_stamp(void)
{
    CHECK(open_timed_bus());
    CHECK(b.core.chip.mode_shadow & DRV2605_MODE_STANDBY);
    uint32_t at = b.now_us + 2000;
    fake_rtp(&b, at, 0x41);
    CHECK(b.timer_at == at - LEAD - WRITE - PREWRITE_MODE - SPIN);
    fake_advance(&b, 2000);
    CHECK(b.write_count == 2);
    CHECK(b.writes[0].reg == DRV2605_REG_MODE && b.writes[0].bytes[0] == DRV2605_MODE_RTP);
    CHECK(b.writes[0].at_us == at - LEAD - WRITE - PREWRITE_MODE);
    /* the RTP itself starts where it would without the MODE write */
    CHECK(b.writes[1].reg == DRV2605_REG_RTP_INPUT && b.writes[1].at_us == at - LEAD - WRITE);
    CHECK(b.core.last_run_us == at && b.core.underruns == 0);
    return true;
}

static bool rom_sequence_latches_on_its_go_write(void)
{
    CHECK(open_timed_bus());
    uint32_t at = b.now_us + 2000;
    uint8_t p[HB_CMD_ROM_MIN_LEN];
    hb_put_u32(&p[HB_CMD_OFF_AT_US], at);
    p[HB_CMD_ROM_OFF_ENTRIES] = 7;
    fake_send(&b, HB_T_CMD_ROM_SEQ, p, sizeof p);
    /* MODE, then register + entry + terminator (4 bytes on the wire) */
    uint32_t ahead = PREWRITE_MODE + WRITE + (WRITE / 4u + WRITE / 16u + HB_WRITE_BYTE_MARGIN_US) + SLACK;
    CHECK(b.timer_at == at - LEAD - WRITE - ahead - SPIN);
    fake_advance(&b, 2000);
    CHECK(b.write_count == 3);
    CHECK(b.writes[0].reg == DRV2605_REG_MODE && b.writes[1].reg == DRV2605_REG_WAV_FRM_SEQ1);
    CHECK(b.writes[0].at_us == at - LEAD - WRITE - ahead);
    CHECK(b.writes[2].reg == DRV2605_REG_GO && b.writes[2].at_us == at - LEAD - WRITE);
    return true;
}

static bool virtual_time_board_runs_every_write_on_the_stamp(void)
{
    fake_init(&b); /* write_us 0 */
    fake_hello(&b, 500, 0);
    b.write_count = 0;
    uint32_t at = b.now_us + 1000;
    fake_rtp(&b, at, 0x43);
    CHECK(b.timer_at == at);
    fake_advance(&b, 1000);
    CHECK(b.write_count == 2 && b.writes[0].at_us == at && b.writes[1].at_us == at);
    return true;
}

const test_case latch_tests[] = {
    {"RTP in RTP mode starts exec lead + write time early, latching on its stamp",
     rtp_in_rtp_mode_starts_one_write_early},
    {"RTP from standby puts its MODE write ahead of the stamp, the RTP still latches on it",
     rtp_from_standby_puts_its_mode_write_ahead_of_the_stamp},
    {"ROM sequence: MODE and entries ahead, GO latches on the stamp", rom_sequence_latches_on_its_go_write},
    {"virtual-time board (write_us 0) makes every write on the stamp", virtual_time_board_runs_every_write_on_the_stamp},
    {0, 0},
};
