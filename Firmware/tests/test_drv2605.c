/* The DRV2605 driver against the fake chip: which bytes go on the bus. */
#include "check.h"
#include "fake_board.h"
#include "hapbridge/drv2605_regs.h"
#include "tests.h"

static fake_board b;

static void fresh(void)
{
    fake_init(&b);
    b.write_count = 0; /* forget the start-up stop */
}

static bool rtp_selects_rtp_mode_once_then_writes_only_the_amplitude(void)
{
    fresh();
    CHECK(drv2605_rtp(&b.core.chip, 0x40) == HB_I2C_ACK);
    CHECK(drv2605_rtp(&b.core.chip, 0x41) == HB_I2C_ACK);
    CHECK(b.write_count == 3);
    CHECK(b.writes[0].reg == DRV2605_REG_MODE && b.writes[0].bytes[0] == DRV2605_MODE_RTP);
    CHECK(b.writes[1].reg == DRV2605_REG_RTP_INPUT && b.writes[1].bytes[0] == 0x40);
    CHECK(b.writes[2].reg == DRV2605_REG_RTP_INPUT && b.writes[2].bytes[0] == 0x41);
    return true;
}

static bool sequence_is_one_auto_increment_write_with_terminator_then_go(void)
{
    fresh();
    const uint8_t seq[3] = {1, DRV2605_WAV_FRM_SEQ_WAIT | 10, 47};
    CHECK(drv2605_play_sequence(&b.core.chip, seq, 3) == HB_I2C_ACK);
    CHECK(b.write_count == 3);
    CHECK(b.writes[0].reg == DRV2605_REG_MODE && b.writes[0].bytes[0] == DRV2605_MODE_INTERNAL_TRIGGER);
    CHECK(b.writes[1].reg == DRV2605_REG_WAV_FRM_SEQ1 && b.writes[1].n == 4);
    CHECK(b.writes[1].bytes[2] == 47 && b.writes[1].bytes[3] == 0);
    CHECK(b.writes[2].reg == DRV2605_REG_GO && b.writes[2].bytes[0] == DRV2605_GO_GO);
    return true;
}

static bool full_sequence_has_no_terminator(void)
{
    fresh();
    const uint8_t seq[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(drv2605_play_sequence(&b.core.chip, seq, 8) == HB_I2C_ACK);
    CHECK(b.writes[1].n == 8);
    return true;
}

static bool stop_zeroes_rtp_clears_go_and_enters_standby(void)
{
    fresh();
    drv2605_rtp(&b.core.chip, 0x7F);
    CHECK(drv2605_stop(&b.core.chip) == HB_I2C_ACK);
    CHECK(b.regs[DRV2605_REG_RTP_INPUT] == 0);
    CHECK(!(b.regs[DRV2605_REG_GO] & DRV2605_GO_GO));
    CHECK(b.regs[DRV2605_REG_MODE] & DRV2605_MODE_STANDBY);
    /* the next drive must leave standby again */
    drv2605_rtp(&b.core.chip, 0x10);
    CHECK(b.regs[DRV2605_REG_MODE] == DRV2605_MODE_RTP);
    return true;
}

static bool nack_is_counted_and_forgets_the_mode(void)
{
    fresh();
    drv2605_rtp(&b.core.chip, 0x10);
    b.nack = true;
    CHECK(drv2605_write_reg(&b.core.chip, DRV2605_REG_MODE, DRV2605_MODE_RTP) == HB_I2C_NACK);
    CHECK(b.core.chip.i2c_errors == 1 && b.core.chip.mode_shadow == DRV2605_MODE_UNKNOWN);
    b.nack = false;
    b.write_count = 0;
    drv2605_rtp(&b.core.chip, 0x11);
    CHECK(b.write_count == 2); /* MODE is rewritten: we cannot know what the chip holds */
    return true;
}

static bool probe_reads_device_id(void)
{
    fresh();
    CHECK(drv2605_probe(&b.core.chip) == DRV2605_DEVICE_ID_DRV2605L);
    b.nack = true;
    CHECK(drv2605_probe(&b.core.chip) == 0xFF);
    return true;
}

static bool read_only_registers_are_not_writable(void)
{
    CHECK(!drv2605_reg_writable(DRV2605_REG_STATUS));
    CHECK(!drv2605_reg_writable(DRV2605_REG_VBAT));
    CHECK(!drv2605_reg_writable(DRV2605_REG_LRA_PERIOD));
    CHECK(!drv2605_reg_writable(DRV2605_REG_LAST + 1));
    CHECK(drv2605_reg_writable(DRV2605_REG_RATED_VOLTAGE));
    return true;
}

const test_case drv2605_tests[] = {
    {"rtp selects RTP mode once, then writes only the amplitude", rtp_selects_rtp_mode_once_then_writes_only_the_amplitude},
    {"sequence is one auto-increment write with terminator, then GO", sequence_is_one_auto_increment_write_with_terminator_then_go},
    {"full sequence has no terminator", full_sequence_has_no_terminator},
    {"stop zeroes RTP, clears GO and enters standby", stop_zeroes_rtp_clears_go_and_enters_standby},
    {"NACK is counted and forgets the mode", nack_is_counted_and_forgets_the_mode},
    {"probe reads the device id", probe_reads_device_id},
    {"read-only registers are not writable", read_only_registers_are_not_writable},
    TEST_LIST_END,
};
