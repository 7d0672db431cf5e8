/* Untimed I2C (I2C_WRITE / I2C_READ) on the real ELF: a round trip through
 * the chip, a NACK from an absent address, and reads next to a stream that
 * delay it by no more than one transaction. */
#include <stdio.h>
#include <string.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"
#include "suite.h"

/* The register file answers as a DRV2605L fresh from power-up: what the
 * firmware never writes outside calibration reads its reset value, not 00. */
static bool the_chip_reads_its_datasheet_reset_values(void)
{
    link_frame r;
    if (!hello_1_1(&r)) {
        return false;
    }
    uint8_t rd[] = {DRV2605_I2C_ADDR, DRV2605_REG_CONTROL1, 3};
    if (!i2c(HB_T_I2C_READ, rd, sizeof rd, &r)) {
        return false;
    }
    const uint8_t *d = &r.payload[HB_I2C_RESULT_OFF_DATA];
    CHECK(r.payload[HB_I2C_RESULT_OFF_STATUS] == HB_I2C_STATUS_ACK && d[0] == 0x93 && d[1] == 0xF5 && d[2] == 0xA0,
          "CONTROL1..3 read 0x%02x 0x%02x 0x%02x (TI SLOS854: 0x93 0xF5 0xA0)", d[0], d[1], d[2]);
    return true;
}

static bool i2c_write_then_read_round_trips_through_the_chip(void)
{
    link_frame r;
    if (!hello_1_1(&r)) {
        return false;
    }
    uint8_t w[] = {DRV2605_I2C_ADDR, DRV2605_REG_RATED_VOLTAGE, 0x53, 0x89}; /* not the reset values */
    if (!i2c(HB_T_I2C_WRITE, w, sizeof w, &r)) {
        return false;
    }
    CHECK(r.payload[HB_I2C_RESULT_OFF_STATUS] == HB_I2C_STATUS_ACK && r.len == HB_I2C_RESULT_MIN_LEN,
          "write status %u", r.payload[HB_I2C_RESULT_OFF_STATUS]);
    CHECK(chip.regs[DRV2605_REG_RATED_VOLTAGE] == 0x53 && chip.regs[DRV2605_REG_OD_CLAMP] == 0x89,
          "chip holds 0x%02x 0x%02x", chip.regs[DRV2605_REG_RATED_VOLTAGE], chip.regs[DRV2605_REG_OD_CLAMP]);
    uint8_t rd[] = {DRV2605_I2C_ADDR, DRV2605_REG_STATUS, HB_I2C_MAX_DATA};
    if (!i2c(HB_T_I2C_READ, rd, sizeof rd, &r)) {
        return false;
    }
    CHECK(r.payload[HB_I2C_RESULT_OFF_STATUS] == HB_I2C_STATUS_ACK &&
              r.payload[HB_I2C_RESULT_OFF_COUNT] == HB_I2C_MAX_DATA,
          "read status %u, %u bytes", r.payload[HB_I2C_RESULT_OFF_STATUS], r.payload[HB_I2C_RESULT_OFF_COUNT]);
    const uint8_t *d = &r.payload[HB_I2C_RESULT_OFF_DATA];
    CHECK(d[DRV2605_REG_STATUS] >> DRV2605_STATUS_DEVICE_ID_SHIFT == DRV2605_DEVICE_ID_DRV2605L, "STATUS 0x%02x",
          d[DRV2605_REG_STATUS]);
    CHECK(d[DRV2605_REG_RATED_VOLTAGE] == 0x53 && d[DRV2605_REG_OD_CLAMP] == 0x89, "read back 0x%02x 0x%02x",
          d[DRV2605_REG_RATED_VOLTAGE], d[DRV2605_REG_OD_CLAMP]);
    return true;
}

static bool i2c_read_of_an_absent_address_reports_nack(void)
{
    link_frame r;
    uint8_t rd[] = {0x19, 0x0F, 1}; /* where a LIS3DH would answer */
    if (!i2c(HB_T_I2C_READ, rd, sizeof rd, &r)) {
        return false;
    }
    CHECK(r.payload[HB_I2C_RESULT_OFF_STATUS] == HB_I2C_STATUS_NACK && r.len == HB_I2C_RESULT_MIN_LEN,
          "status %u, %u bytes", r.payload[HB_I2C_RESULT_OFF_STATUS], r.len);
    return true;
}

#define NEXT_TO_STREAM 40u
#define NEXT_TO_STEP_US 500u
#define READ_EVERY_US 1700u

/* An untimed read waits for a gap in the stream (core.h, HB_UNTIMED_*): it
 * holds the bus (and the lock) for its whole transaction, so it goes only where
 * no stamped command falls due before it ends; none waits for it. */
static bool untimed_reads_next_to_a_stream_wait_for_its_gaps(void)
{
    link_frame r;
    uint32_t mark, t0;
    if (!open_and_stream(4000, NEXT_TO_STREAM, NEXT_TO_STEP_US, &mark, &t0)) {
        return false;
    }
    uint32_t end = t0 + NEXT_TO_STREAM * NEXT_TO_STEP_US;
    uint32_t reads = 0;
    uint8_t rd[] = {DRV2605_I2C_ADDR, DRV2605_REG_OD_CLAMP, 1};
    while ((int32_t)(stamp_in(0) - end) < 0) {
        link_pump(&host, READ_EVERY_US);
        if (!i2c(HB_T_I2C_READ, rd, sizeof rd, &r)) {
            return false;
        }
        CHECK(r.payload[HB_I2C_RESULT_OFF_COUNT] == 1 &&
                  r.payload[HB_I2C_RESULT_OFF_DATA] == chip.regs[DRV2605_REG_OD_CLAMP],
              "read %u came back wrong", reads);
        reads++;
    }
    link_pump(&host, 2000);
    CHECK(!link_take(&host, HB_T_NAK, &r), "NAK reason %u", r.payload[HB_NAK_OFF_REASON]);
    double longest_read = 0, longest_held = 0, worst = 0, start;
    for (uint32_t i = mark; i < chip.count; i++) {
        const drv_txn *t = &chip.log[i];
        double us = (double)(t->stop_cycle - t->start_cycle) / SIM_CYCLES_PER_US;
        if (t->is_read && us > longest_read) {
            longest_read = us;
            longest_held = (double)t->held_cycles / SIM_CYCLES_PER_US;
        }
    }
    for (uint32_t i = 0; i < NEXT_TO_STREAM; i++) {
        CHECK(rtp_latch(mark, (uint8_t)(1u + i), &start), "amplitude %u never played", 1u + i);
        double error = start - (double)(t0 + i * NEXT_TO_STEP_US);
        CHECK(error >= -LATCH_EARLY_US, "amplitude %u latched %.1f us early", 1u + i, -error);
        worst = error > worst ? error : worst;
    }
    printf("# untimed 1-byte read: %.1f us START->STOP at 400 kHz (%.1f us on the bus, %.1f us SCL held low by the "
           "firmware); %u reads in the gaps of %u stamped commands, which latched at most %.1f us after their stamps\n",
           longest_read, longest_read - longest_held, longest_held, reads, NEXT_TO_STREAM, worst);
    CHECK(worst < MAX_STAMP_ERROR_US, "a stamped command waited %.1f us for a read", worst);
    return true;
}

void run_untimed_i2c_tests(void)
{
    run_test("the chip reads its datasheet reset values (CONTROL1..3)", the_chip_reads_its_datasheet_reset_values);
    run_test("I2C_WRITE then I2C_READ round-trip through the chip", i2c_write_then_read_round_trips_through_the_chip);
    run_test("I2C_READ of an absent address reports NACK", i2c_read_of_an_absent_address_reports_nack);
}

void run_untimed_i2c_next_to_stream_tests(void)
{
    run_test("untimed reads next to a stream wait for its gaps: no stamped command waits for one",
             untimed_reads_next_to_a_stream_wait_for_its_gaps);
}
