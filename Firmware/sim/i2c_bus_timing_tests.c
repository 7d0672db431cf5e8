/* The TWI bus at its real speed (twi_bus.h): a transaction takes, START to
 * STOP, what the ATmega32U4's TWI takes at the SCL rate the firmware sets,
 * plus the time the firmware holds SCL low between bytes; and a write right
 * behind another keeps the bus free time between them.  The expected figures
 * come from the datasheet's formula and the I2C timing, not from twi_bus.c. */
#include <stdio.h>
#include <string.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"
#include "suite.h"

/* ATmega32U4 TWBR and TWSR (datasheet 20.9). */
#define ADDR_TWBR 0xB8u
#define ADDR_TWSR 0xB9u

/* The firmware's handling of one TWINT (read TWSR, check it, load TWDR, write
 * TWCR) holds SCL low for 2.5..3.3 us under simavr; this bounds it. */
#define MAX_HELD_PER_STEP_US 4.0
/* Cycle timers fire at the end of the instruction they fall in. */
#define BUS_TOLERANCE_US 0.5
/* I2C fast mode's bus free time between a STOP and the next START. */
#define TBUF_FAST_US 1.3

/* SCL = F_CPU / (16 + 2 * TWBR * 4^TWPS), datasheet 20.5.2, as the firmware
 * set it; in microseconds per period. */
static double scl_period_us(void)
{
    uint8_t twbr = board.avr->data[ADDR_TWBR], twps = board.avr->data[ADDR_TWSR] & 0x03u;
    return (16.0 + 2.0 * twbr * (double)(1u << (2u * twps))) / SIM_CYCLES_PER_US;
}

/* The last logged transaction of the given kind since `from`. */
static const drv_txn *last_txn(uint32_t from, bool is_read)
{
    const drv_txn *found = NULL;
    for (uint32_t i = from; i < chip.count; i++) {
        if (chip.log[i].is_read == is_read) {
            found = &chip.log[i];
        }
    }
    return found;
}

/* `periods`: the transaction's bus time in SCL periods; `steps`: the TWINTs
 * the firmware handles in it (each holds SCL low a while). */
static bool takes_its_bus_time(const char *what, const drv_txn *t, double periods, uint32_t steps)
{
    double period = scl_period_us();
    double total = (double)(t->stop_cycle - t->start_cycle) / SIM_CYCLES_PER_US;
    double held = (double)t->held_cycles / SIM_CYCLES_PER_US;
    double bus = total - held, want = periods * period;
    printf("# %s at %.0f kHz SCL: START->STOP %.2f us = %.2f us on the bus (datasheet %.2f: %.1f SCL periods) "
           "+ %.2f us SCL held low by the firmware over %u TWINTs\n",
           what, 1000.0 / period, total, bus, want, periods, held, steps);
    CHECK(bus >= want - BUS_TOLERANCE_US && bus <= want + BUS_TOLERANCE_US, "%s: %.2f us on the bus, datasheet %.2f us",
          what, bus, want);
    CHECK(total >= want && total <= want + steps * MAX_HELD_PER_STEP_US,
          "%s: START->STOP %.2f us, wanted %.2f..%.2f us", what, total, want, want + steps * MAX_HELD_PER_STEP_US);
    return true;
}

/* START hold (1/2), SLA+W, register, value (9 each), STOP (1). */
static bool a_3_byte_write_takes_its_datasheet_time(void)
{
    link_frame r;
    if (!hello_1_1(&r)) {
        return false;
    }
    CHECK(1000.0 / scl_period_us() <= 400.0 + 1e-9, "SCL %.1f kHz, above fast mode", 1000.0 / scl_period_us());
    uint32_t mark = chip.count;
    uint8_t w[] = {DRV2605_I2C_ADDR, DRV2605_REG_RATED_VOLTAGE, 0x3F};
    if (!i2c(HB_T_I2C_WRITE, w, sizeof w, &r)) {
        return false;
    }
    const drv_txn *t = last_txn(mark, false);
    CHECK(t && t->reg == DRV2605_REG_RATED_VOLTAGE && t->n == 1, "the write was not logged");
    return takes_its_bus_time("3-byte write", t, 0.5 + 3 * 9 + 1, 4);
}

/* START hold, SLA+W, register, repeated START (3/2), SLA+R, data + NACK, STOP. */
static bool a_1_byte_read_takes_its_datasheet_time(void)
{
    link_frame r;
    uint32_t mark = chip.count;
    uint8_t rd[] = {DRV2605_I2C_ADDR, DRV2605_REG_STATUS, 1};
    if (!i2c(HB_T_I2C_READ, rd, sizeof rd, &r)) {
        return false;
    }
    CHECK(r.payload[HB_I2C_RESULT_OFF_STATUS] == HB_I2C_STATUS_ACK && r.payload[HB_I2C_RESULT_OFF_COUNT] == 1,
          "read status %u", r.payload[HB_I2C_RESULT_OFF_STATUS]);
    const drv_txn *t = last_txn(mark, true);
    CHECK(t && t->reg == DRV2605_REG_STATUS && t->n == 1, "the read was not logged");
    return takes_its_bus_time("1-byte read", t, 0.5 + 9 + 9 + 1.5 + 9 + 9 + 1, 6);
}

/* Two writes on one stamp: the second's START waits out the bus free time
 * after the first's STOP, and the two never overlap. */
static bool back_to_back_writes_keep_the_bus_free_time(void)
{
    link_frame r;
    if (!hello_1_1(&r)) {
        return false;
    }
    link_pump(&host, 1000);
    uint32_t mark = chip.count, at = stamp_in(3000);
    for (uint8_t i = 0; i < 2; i++) {
        uint8_t p[HB_CMD_REG_WRITE_LEN];
        hb_put_u32(&p[HB_CMD_OFF_AT_US], at);
        p[HB_CMD_REG_OFF_REG] = DRV2605_REG_OD_CLAMP;
        p[HB_CMD_REG_OFF_VALUE] = (uint8_t)(0x90u + i);
        CHECK(link_send(&host, HB_T_CMD_REG_WRITE, p, sizeof p), "send failed");
    }
    link_pump(&host, 5000);
    CHECK(!link_take(&host, HB_T_NAK, &r), "NAK reason %u", r.payload[HB_NAK_OFF_REASON]);
    const drv_txn *w[2] = {NULL, NULL};
    for (uint32_t i = mark; i < chip.count; i++) {
        const drv_txn *t = &chip.log[i];
        if (!t->is_read && t->reg == DRV2605_REG_OD_CLAMP && t->n == 1 && (t->bytes[0] & 0xFEu) == 0x90u) {
            w[t->bytes[0] & 1u] = t;
        }
    }
    CHECK(w[0] && w[1], "the two writes were not both logged");
    double free_us = ((double)w[1]->start_cycle - (double)w[0]->stop_cycle) / SIM_CYCLES_PER_US;
    printf("# back-to-back writes: bus free %.2f us between STOP and START (I2C fast mode tBUF >= %.1f us)\n",
           free_us, TBUF_FAST_US);
    CHECK(free_us >= TBUF_FAST_US, "second START %.2f us after the first STOP", free_us);
    return true;
}

static bool underruns(uint16_t *count)
{
    link_frame r;
    CHECK(link_send(&host, HB_T_QUEUE_STATUS_REQ, NULL, 0), "send failed");
    CHECK(link_wait(&host, HB_T_QUEUE_STATUS, 5000, &r), "no QUEUE_STATUS");
    *count = hb_get_u16(&r.payload[HB_QSTAT_OFF_UNDERRUNS]);
    return true;
}

/* Commands sharing a stamp run back to back in queue order; the ones behind
 * the first cannot start on the stamp (the bus is busy with the one before),
 * so they start late by the writes ahead of them: the board counts that as
 * running on time, not as falling behind (exec.c). */
#define SHARED_STAMP_WRITES 4u
static bool commands_sharing_a_stamp_run_back_to_back_and_none_is_an_underrun(void)
{
    link_frame r;
    if (!hello_1_1(&r)) {
        return false;
    }
    link_pump(&host, 1000);
    uint16_t before = 0, after = 0;
    if (!underruns(&before)) {
        return false;
    }
    uint32_t mark = chip.count, at = stamp_in(3000);
    for (uint8_t i = 0; i < SHARED_STAMP_WRITES; i++) {
        uint8_t p[HB_CMD_REG_WRITE_LEN];
        hb_put_u32(&p[HB_CMD_OFF_AT_US], at);
        p[HB_CMD_REG_OFF_REG] = DRV2605_REG_OD_CLAMP;
        p[HB_CMD_REG_OFF_VALUE] = (uint8_t)(0xA0u + i);
        CHECK(link_send(&host, HB_T_CMD_REG_WRITE, p, sizeof p), "send failed");
    }
    link_pump(&host, 5000);
    CHECK(!link_take(&host, HB_T_NAK, &r), "NAK reason %u", r.payload[HB_NAK_OFF_REASON]);
    const drv_txn *w[SHARED_STAMP_WRITES] = {NULL};
    for (uint32_t i = mark; i < chip.count; i++) {
        const drv_txn *t = &chip.log[i];
        if (!t->is_read && t->reg == DRV2605_REG_OD_CLAMP && t->n == 1 && (t->bytes[0] & 0xFCu) == 0xA0u) {
            w[t->bytes[0] & 3u] = t;
        }
    }
    for (uint32_t i = 0; i < SHARED_STAMP_WRITES; i++) {
        CHECK(w[i], "write %u of the stamp was not logged", i);
    }
    /* Back to back: the last starts within one write and its set-up per write
     * ahead of it, far past the 100 us an underrun is counted at. */
    double last = sim_board_us_at(&board, w[SHARED_STAMP_WRITES - 1]->start_cycle) - at;
    double write = (double)(w[0]->stop_cycle - w[0]->start_cycle) / SIM_CYCLES_PER_US;
    printf("# %u register writes on one stamp: STARTs at +%.2f ... +%.2f us (a write %.2f us START to STOP)\n",
           SHARED_STAMP_WRITES, sim_board_us_at(&board, w[0]->start_cycle) - at, last, write);
    CHECK(last > HB_LATE_TOLERANCE_US && last < (SHARED_STAMP_WRITES - 1) * (write + 40.0) + MAX_STAMP_ERROR_US,
          "the last write started %.2f us after the stamp", last);
    if (!underruns(&after)) {
        return false;
    }
    CHECK(after == before, "%u underruns counted for commands sharing a stamp", (unsigned)(after - before));
    return true;
}

void run_i2c_bus_timing_tests(void)
{
    run_test("a 3-byte I2C write takes its datasheet time at the firmware's SCL rate",
             a_3_byte_write_takes_its_datasheet_time);
    run_test("a 1-byte I2C read takes its datasheet time at the firmware's SCL rate",
             a_1_byte_read_takes_its_datasheet_time);
    run_test("back-to-back writes keep the bus free time between STOP and START",
             back_to_back_writes_keep_the_bus_free_time);
    run_test("commands sharing a stamp run back to back and none counts as an underrun",
             commands_sharing_a_stamp_run_back_to_back_and_none_is_an_underrun);
}
