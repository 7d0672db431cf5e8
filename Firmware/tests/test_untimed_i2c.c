/* I2C_READ and I2C_WRITE (protocol 1.1): untimed transactions at any
 * address, and the safety code seeing a drive that raw writes start. */
#include <string.h>

#include "check.h"
#include "fake_board.h"
#include "hapbridge/drv2605_regs.h"
#include "tests.h"

static fake_board b;

static void i2c_read(uint8_t addr, uint8_t reg, uint8_t count)
{
    uint8_t p[HB_I2C_READ_LEN] = {addr, reg, count};
    fake_send(&b, HB_T_I2C_READ, p, sizeof p);
}

static void i2c_write(uint8_t addr, uint8_t reg, const uint8_t *data, uint8_t n)
{
    uint8_t p[HB_I2C_WRITE_MAX_LEN] = {addr, reg};
    memcpy(&p[HB_I2C_WRITE_OFF_DATA], data, n);
    fake_send(&b, HB_T_I2C_WRITE, p, (uint8_t)(HB_I2C_WRITE_OFF_DATA + n));
}

static bool read_works_without_a_session_and_returns_the_registers(void)
{
    fake_init(&b);
    b.regs[DRV2605_REG_RATED_VOLTAGE] = 0x53;
    b.regs[DRV2605_REG_OD_CLAMP] = 0x89;
    uint8_t seq = b.host_seq;
    i2c_read(DRV2605_I2C_ADDR, DRV2605_REG_RATED_VOLTAGE, 2);
    const fake_frame *r = fake_last(&b, HB_T_I2C_RESULT);
    CHECK(r && !b.core.open);
    CHECK(r->len == HB_I2C_RESULT_MIN_LEN + 2);
    CHECK(r->payload[HB_I2C_RESULT_OFF_SEQ] == seq);
    CHECK(r->payload[HB_I2C_RESULT_OFF_ADDR] == DRV2605_I2C_ADDR);
    CHECK(r->payload[HB_I2C_RESULT_OFF_REG] == DRV2605_REG_RATED_VOLTAGE);
    CHECK(r->payload[HB_I2C_RESULT_OFF_STATUS] == HB_I2C_STATUS_ACK);
    CHECK(r->payload[HB_I2C_RESULT_OFF_COUNT] == 2);
    CHECK(r->payload[HB_I2C_RESULT_OFF_DATA] == 0x53 && r->payload[HB_I2C_RESULT_OFF_DATA + 1] == 0x89);
    return true;
}

static bool read_reaches_any_address_up_to_32_bytes(void)
{
    fake_init(&b);
    i2c_read(FAKE_OTHER_ADDR, 0x0F, HB_I2C_MAX_DATA);
    const fake_frame *r = fake_last(&b, HB_T_I2C_RESULT);
    CHECK(r && r->payload[HB_I2C_RESULT_OFF_COUNT] == HB_I2C_MAX_DATA);
    CHECK(r->payload[HB_I2C_RESULT_OFF_DATA] == 0x8F && r->payload[r->len - 1u] == 0x80 + 0x0F + 31);
    return true;
}

static bool a_device_that_does_not_answer_reports_nack_and_no_bytes(void)
{
    fake_init(&b);
    i2c_read(0x29, 0x00, 4);
    const fake_frame *r = fake_last(&b, HB_T_I2C_RESULT);
    CHECK(r && r->len == HB_I2C_RESULT_MIN_LEN);
    CHECK(r->payload[HB_I2C_RESULT_OFF_STATUS] == HB_I2C_STATUS_NACK && r->payload[HB_I2C_RESULT_OFF_COUNT] == 0);
    CHECK(b.core.faults == 0 && b.core.pending_faults == 0); /* only the host asked */
    return true;
}

static bool counts_and_addresses_out_of_range_are_refused(void)
{
    fake_init(&b);
    i2c_read(DRV2605_I2C_ADDR, 0, 0);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_BAD_ARG);
    b.frame_count = 0;
    i2c_read(DRV2605_I2C_ADDR, 0, HB_I2C_MAX_DATA + 1);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_BAD_ARG);
    b.frame_count = 0;
    i2c_read(0x80, 0, 1);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_BAD_ARG && fake_count(&b, HB_T_I2C_RESULT) == 0);
    return true;
}

static bool write_needs_a_session(void)
{
    fake_init(&b);
    uint8_t v = 0x42;
    i2c_write(FAKE_OTHER_ADDR, 0x20, &v, 1);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_NOT_OPEN && b.other_regs[0x20] != 0x42);
    return true;
}

static bool write_is_one_auto_increment_transaction(void)
{
    fake_init(&b);
    fake_hello(&b, 500, 0);
    static const uint8_t data[] = {0x11, 0x22, 0x33};
    b.write_count = 0;
    i2c_write(FAKE_OTHER_ADDR, 0x20, data, sizeof data);
    const fake_frame *r = fake_last(&b, HB_T_I2C_RESULT);
    CHECK(r && r->len == HB_I2C_RESULT_MIN_LEN && r->payload[HB_I2C_RESULT_OFF_STATUS] == HB_I2C_STATUS_ACK);
    CHECK(r->payload[HB_I2C_RESULT_OFF_COUNT] == 0);
    CHECK(b.write_count == 1 && b.writes[0].addr == FAKE_OTHER_ADDR && b.writes[0].n == 3);
    CHECK(b.other_regs[0x20] == 0x11 && b.other_regs[0x22] == 0x33);
    return true;
}

static bool write_to_read_only_chip_registers_is_refused(void)
{
    fake_init(&b);
    fake_hello(&b, 500, 0);
    uint8_t v[2] = {0xFF, 0xFF};
    b.write_count = 0;
    i2c_write(DRV2605_I2C_ADDR, DRV2605_REG_STATUS, v, 1);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_BAD_ARG);
    b.frame_count = 0;
    i2c_write(DRV2605_I2C_ADDR, DRV2605_REG_OL_LRA_PERIOD, v, 2); /* runs on into VBAT */
    CHECK(fake_last_nak_reason(&b) == HB_NAK_BAD_ARG && b.write_count == 0);
    return true;
}

static bool write_is_refused_while_a_fault_is_latched(void)
{
    fake_init(&b);
    fake_hello(&b, 500, 0);
    b.regs[DRV2605_REG_STATUS] |= DRV2605_STATUS_OVER_TEMP;
    fake_advance(&b, 25000);
    CHECK(fake_last_stop_reason(&b) == HB_STOP_FAULT);
    uint8_t v = DRV2605_MODE_RTP;
    i2c_write(DRV2605_I2C_ADDR, DRV2605_REG_MODE, &v, 1);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_FAULT && (b.regs[DRV2605_REG_MODE] & DRV2605_MODE_STANDBY));
    return true;
}

/* MODE = RTP, RTP_INPUT = amplitude, as a host poking the chip would. */
static void raw_rtp_drive(uint16_t keepalive_ms, uint16_t max_drive_ms, uint8_t amplitude)
{
    fake_init(&b);
    fake_hello(&b, keepalive_ms, max_drive_ms);
    uint8_t mode_rtp[2] = {DRV2605_MODE_RTP, amplitude}; /* MODE, RTP_INPUT: one write */
    i2c_write(DRV2605_I2C_ADDR, DRV2605_REG_MODE, mode_rtp, 2);
}

static bool a_drive_started_by_raw_writes_is_stopped_at_the_drive_limit(void)
{
    raw_rtp_drive(1000, 30, 0x70);
    uint32_t started = b.now_us;
    CHECK(b.regs[DRV2605_REG_RTP_INPUT] == 0x70 && b.core.drive == HB_DRIVE_RTP);
    for (int i = 0; i < 4; i++) {
        fake_advance(&b, 10000);
        fake_send(&b, HB_T_KEEPALIVE, NULL, 0);
    }
    const fake_frame *f = fake_last(&b, HB_T_EVENT_STOPPED);
    CHECK(f && f->payload[HB_STOPPED_OFF_REASON] == HB_STOP_MAX_DRIVE && fake_chip_stopped(&b));
    int32_t after = (int32_t)(hb_get_u32(&f->payload[HB_STOPPED_OFF_AT_US]) - started);
    CHECK(after > 30000 && after <= 30010);
    return true;
}

static bool a_drive_started_by_raw_writes_is_stopped_when_the_host_goes_silent(void)
{
    raw_rtp_drive(50, 0, 0x71);
    fake_advance(&b, 51000);
    CHECK(fake_last_stop_reason(&b) == HB_STOP_HOST_SILENT && fake_chip_stopped(&b));
    return true;
}

static bool a_raw_go_counts_as_drive_until_the_chip_clears_it(void)
{
    fake_init(&b);
    fake_hello(&b, 1000, 0);
    uint8_t seq[3] = {DRV2605_MODE_INTERNAL_TRIGGER}, go = DRV2605_GO_GO;
    i2c_write(DRV2605_I2C_ADDR, DRV2605_REG_MODE, seq, 1);
    seq[0] = 47;
    i2c_write(DRV2605_I2C_ADDR, DRV2605_REG_WAV_FRM_SEQ1, seq, 2);
    CHECK(b.core.drive == HB_DRIVE_IDLE);
    i2c_write(DRV2605_I2C_ADDR, DRV2605_REG_GO, &go, 1);
    CHECK(b.core.drive == HB_DRIVE_SEQUENCE);
    fake_advance(&b, 5000);
    b.regs[DRV2605_REG_GO] = 0; /* the sequencer finished */
    fake_advance(&b, HB_GO_POLL_US + 1000);
    CHECK(b.core.drive == HB_DRIVE_IDLE && fake_last_stop_reason(&b) == 0);
    return true;
}

static bool an_external_input_mode_counts_as_drive(void)
{
    fake_init(&b);
    fake_hello(&b, 1000, 20);
    uint8_t pwm = DRV2605_MODE_PWM_ANALOG;
    i2c_write(DRV2605_I2C_ADDR, DRV2605_REG_MODE, &pwm, 1);
    CHECK(b.core.drive == HB_DRIVE_EXTERNAL);
    fake_advance(&b, 21000);
    CHECK(fake_last_stop_reason(&b) == HB_STOP_MAX_DRIVE && fake_chip_stopped(&b));
    return true;
}

static bool a_raw_standby_ends_the_drive_and_the_next_rtp_leaves_standby(void)
{
    raw_rtp_drive(1000, 0, 0x72);
    uint8_t standby = DRV2605_MODE_STANDBY;
    i2c_write(DRV2605_I2C_ADDR, DRV2605_REG_MODE, &standby, 1);
    CHECK(b.core.drive == HB_DRIVE_IDLE);
    fake_rtp(&b, b.now_us + 100, 0x73);
    fake_advance(&b, 200);
    /* the driver saw the raw write: it takes the chip out of standby again */
    CHECK(b.regs[DRV2605_REG_MODE] == DRV2605_MODE_RTP && b.regs[DRV2605_REG_RTP_INPUT] == 0x73);
    return true;
}

static bool a_nack_from_the_chip_on_a_raw_write_latches_an_i2c_fault(void)
{
    raw_rtp_drive(1000, 0, 0x74);
    b.nack = true;
    uint8_t v = 0x75;
    i2c_write(DRV2605_I2C_ADDR, DRV2605_REG_RTP_INPUT, &v, 1);
    const fake_frame *r = fake_last(&b, HB_T_I2C_RESULT);
    CHECK(r && r->payload[HB_I2C_RESULT_OFF_STATUS] == HB_I2C_STATUS_NACK);
    fake_advance(&b, 100);
    CHECK(fake_last_stop_reason(&b) == HB_STOP_FAULT && (b.core.faults & HB_FAULT_I2C));
    return true;
}

static bool a_stamped_register_write_that_starts_a_drive_counts_too(void)
{
    fake_init(&b);
    fake_hello(&b, 1000, 20);
    fake_rtp(&b, b.now_us + 100, 0); /* RTP mode, amplitude 0: not driving */
    fake_advance(&b, 200);
    CHECK(b.core.drive == HB_DRIVE_IDLE);
    uint8_t p[HB_CMD_REG_WRITE_LEN];
    hb_put_u32(p, b.now_us + 100);
    p[HB_CMD_REG_OFF_REG] = DRV2605_REG_RTP_INPUT;
    p[HB_CMD_REG_OFF_VALUE] = 0x60;
    fake_send(&b, HB_T_CMD_REG_WRITE, p, sizeof p);
    fake_advance(&b, 200);
    CHECK(b.core.drive == HB_DRIVE_RTP);
    fake_advance(&b, 21000);
    CHECK(fake_last_stop_reason(&b) == HB_STOP_MAX_DRIVE && fake_chip_stopped(&b));
    return true;
}

const test_case untimed_i2c_tests[] = {
    {"I2C_READ works without a session and returns the registers",
     read_works_without_a_session_and_returns_the_registers},
    {"I2C_READ reaches any address, up to 32 bytes", read_reaches_any_address_up_to_32_bytes},
    {"a device that does not answer reports NACK and no bytes", a_device_that_does_not_answer_reports_nack_and_no_bytes},
    {"I2C counts and addresses out of range are refused", counts_and_addresses_out_of_range_are_refused},
    {"I2C_WRITE needs a session", write_needs_a_session},
    {"I2C_WRITE is one auto-increment transaction", write_is_one_auto_increment_transaction},
    {"I2C_WRITE to read-only chip registers is refused", write_to_read_only_chip_registers_is_refused},
    {"I2C_WRITE is refused while a fault is latched", write_is_refused_while_a_fault_is_latched},
    {"a drive started by raw writes is stopped at the drive limit",
     a_drive_started_by_raw_writes_is_stopped_at_the_drive_limit},
    {"a drive started by raw writes is stopped when the host goes silent",
     a_drive_started_by_raw_writes_is_stopped_when_the_host_goes_silent},
    {"a raw GO counts as drive until the chip clears it", a_raw_go_counts_as_drive_until_the_chip_clears_it},
    {"an external-input mode (PWM) counts as drive", an_external_input_mode_counts_as_drive},
    {"a raw standby ends the drive and the next RTP leaves standby",
     a_raw_standby_ends_the_drive_and_the_next_rtp_leaves_standby},
    {"a NACK from the chip on a raw write latches an I2C fault",
     a_nack_from_the_chip_on_a_raw_write_latches_an_i2c_fault},
    {"a stamped register write that starts a drive counts toward the limit",
     a_stamped_register_write_that_starts_a_drive_counts_too},
    TEST_LIST_END,
};
