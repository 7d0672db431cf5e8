/* The bench accelerometer (lis3dh.h): found at start-up and on every HELLO by
 * WHO_AM_I, started and stopped by ACCEL_STREAM, and read in the stamped
 * stream's gaps (main context), like an untimed read: the FIFO holds 32
 * samples, so the board can wait for a gap where the stream must never wait
 * for it.  PROTOCOL.md, "Accelerometer". */
#include "hapbridge/core_private.h"
#include "hapbridge/lis3dh.h"

/* How long a read of `n` bytes holds the bus (dispatch.c's rule for untimed
 * reads: address, register, the repeated START's address, the data). */
static uint32_t read_us(uint8_t n) { return (3u + (uint32_t)n) * HB_UNTIMED_BYTE_US + HB_UNTIMED_FIXED_US; }

uint32_t hb_lis3dh_period_ns(uint8_t odr)
{
    /* Datasheet 8.8, Table 31: 1, 10, 25, 50, 100, 200, 400 Hz; 9 is
     * 1.344 kHz in normal and high-resolution mode.  Arithmetic, not a switch
     * gcc would make a table of: constant tables take RAM on the AVR. */
    if (odr == LIS3DH_ODR_1344HZ) {
        return 744048u; /* 1e9 / 1344, rounded */
    }
    if (odr == 1u) {
        return 1000000000u;
    }
    if (odr == 2u) {
        return 100000000u;
    }
    if (odr >= 3u && odr <= 7u) {
        return 40000000u >> (odr - 3u); /* 25 Hz doubling to 400 Hz */
    }
    return 0u;
}

static hb_i2c_result write_reg(hb_core *core, uint8_t reg, uint8_t value)
{
    uint8_t b[2] = {reg, value};
    return core->hooks.i2c_write(core->hooks.context, core->accel.addr, b, sizeof b);
}

void hbi_accel_probe(hb_core *core)
{
    core->accel = (hb_accel){0};
    hbi_lock(core);
    /* SA0 low, then high (a loop, not a table: tables take RAM on the AVR). */
    for (uint8_t addr = LIS3DH_ADDR_SA0_LOW; addr <= LIS3DH_ADDR_SA0_HIGH && !core->accel.addr; addr++) {
        uint8_t id = 0;
        if (core->hooks.i2c_read(core->hooks.context, addr, LIS3DH_REG_WHO_AM_I, &id, 1) == HB_I2C_ACK &&
            id == LIS3DH_WHO_AM_I_VALUE) {
            core->accel.addr = addr;
        }
    }
    if (core->accel.addr) {
        /* Powered down (CTRL_REG1's reset value) until a host asks. */
        write_reg(core, LIS3DH_REG_CTRL_REG1, LIS3DH_CTRL_REG1_XYZ);
        write_reg(core, LIS3DH_REG_FIFO_CTRL, LIS3DH_FIFO_MODE_BYPASS);
    }
    hbi_unlock(core);
}

void hbi_accel_stop(hb_core *core)
{
    if (!core->accel.odr) {
        return;
    }
    core->accel.odr = 0;
    hbi_lock(core);
    write_reg(core, LIS3DH_REG_CTRL_REG1, LIS3DH_CTRL_REG1_XYZ);
    write_reg(core, LIS3DH_REG_FIFO_CTRL, LIS3DH_FIFO_MODE_BYPASS);
    hbi_unlock(core);
}

uint8_t hbi_accel_stream(hb_core *core, uint8_t odr, uint8_t fs)
{
    hb_accel *a = &core->accel;
    uint32_t period = hb_lis3dh_period_ns(odr);
    if (!a->addr || fs > 3u || (odr && !period)) {
        return HB_NAK_BAD_ARG;
    }
    if (!odr) {
        hbi_accel_stop(core);
        return 0;
    }
    /* Runs when decoded, as an I2C_WRITE does (a host starts the stream
     * before it streams commands).  CTRL_REG1..CTRL_REG5 in one
     * auto-increment write with the sensor still powered down, the FIFO
     * reset (bypass) and put in stream mode, and the data rate last: the
     * sensor starts sampling at that write's STOP, which the first sample's
     * time estimate starts from. */
    uint8_t ctrl[6] = {LIS3DH_REG_CTRL_REG1 | LIS3DH_AUTO_INCREMENT,
                       LIS3DH_CTRL_REG1_XYZ,
                       0u,
                       0u,
                       (uint8_t)(LIS3DH_CTRL_REG4_BDU | (uint8_t)(fs << LIS3DH_CTRL_REG4_FS_SHIFT) | LIS3DH_CTRL_REG4_HR),
                       LIS3DH_CTRL_REG5_FIFO_EN};
    hbi_lock(core);
    bool ok = core->hooks.i2c_write(core->hooks.context, a->addr, ctrl, sizeof ctrl) == HB_I2C_ACK &&
              write_reg(core, LIS3DH_REG_FIFO_CTRL, LIS3DH_FIFO_MODE_BYPASS) == HB_I2C_ACK &&
              write_reg(core, LIS3DH_REG_FIFO_CTRL, LIS3DH_FIFO_MODE_STREAM) == HB_I2C_ACK &&
              write_reg(core, LIS3DH_REG_CTRL_REG1,
                        (uint8_t)((uint8_t)(odr << LIS3DH_CTRL_REG1_ODR_SHIFT) | LIS3DH_CTRL_REG1_XYZ)) == HB_I2C_ACK;
    uint32_t start = hbi_now(core);
    hbi_unlock(core);
    if (!ok) {
        return HB_NAK_BAD_ARG; /* the sensor stopped answering: the host sees no samples */
    }
    a->odr = odr;
    a->fs = fs;
    a->lost = false;
    a->period_us = period / 1000u;
    a->period_frac_ns = (uint16_t)(period % 1000u);
    a->next_us = start;
    a->next_frac_ns = 0;
    hbi_accel_advance(core, 1u);
    /* The first look once a frame's worth is in the FIFO. */
    a->next_read_us = a->next_us + (HB_ACCEL_MAX_SAMPLES - 1u) * a->period_us;
    return 0;
}

/* Moves the estimate of the oldest unread sample's time on by n periods
 * (n <= 32; a loop, not n * period: 32 s at 1 Hz overflows 32 bits). */
void hbi_accel_advance(hb_core *core, uint8_t n)
{
    hb_accel *a = &core->accel;
    while (n--) {
        a->next_us += a->period_us;
        a->next_frac_ns = (uint16_t)(a->next_frac_ns + a->period_frac_ns);
        if (a->next_frac_ns >= 1000u) {
            a->next_frac_ns = (uint16_t)(a->next_frac_ns - 1000u);
            a->next_us++;
        }
    }
}

/* The sensor's clock is its own (datasheet Table 4 allows it some spread),
 * so counting periods from the start drifts.  What the FIFO says bounds it:
 * `n` unread samples were counted at a moment between `asked` (the read of
 * FIFO_SRC began) and `seen` (it ended), when the sensor clocked the byte out:
 * the newest had arrived by `seen`, and the one after it not yet at `asked`.
 * (Bounding both by `seen` took the read's own bus time, ~100 us at 400 kHz,
 * for lateness: under simavr the estimate jumped ~13 us now and then.)  The
 * estimate moves only as far as those bounds make it. */
static void keep_estimate_in_bounds(hb_core *core, uint8_t n, uint32_t asked, uint32_t seen)
{
    hb_accel *a = &core->accel;
    uint32_t oldest = a->next_us;
    uint16_t frac = a->next_frac_ns;
    hbi_accel_advance(core, (uint8_t)(n - 1u)); /* the newest's time, for now */
    int32_t ahead = (int32_t)(a->next_us - seen);
    int32_t behind = (int32_t)(asked - a->next_us);
    a->next_us = oldest;
    a->next_frac_ns = frac;
    if (ahead > 0) {
        a->next_us -= (uint32_t)ahead; /* it cannot have arrived after it was counted */
    } else if (behind >= (int32_t)a->period_us) {
        /* One more would have been counted by then: they are later than thought. */
        a->next_us += (uint32_t)behind - a->period_us + 1u;
    }
}

/* The FIFO is full: 32 unread samples, and each one taken after that replaces
 * the oldest (datasheet DocID17530 Rev 2, 8.20 Table 52: OVRN_FIFO "is set
 * high when FIFO buffer is full", "at the following ODR a new sample set
 * replaces the oldest FIFO value").  How many were replaced is the board's
 * count of samples taken since the oldest unread one, beyond the 32 kept: the
 * estimate moves past them, so the next frame's stamp leaves a hole that wide
 * (within the estimate's period) and says why (format bit 7).  A stall long
 * enough to overflow the count (thousands of samples) dates the 32 from the
 * read instead: they are the newest. */
static void skip_replaced(hb_core *core, uint32_t seen)
{
    hb_accel *a = &core->accel;
    int32_t since = (int32_t)(seen - a->next_us);
    if (since < 0) {
        return;
    }
    uint32_t taken = (uint32_t)since / a->period_us + 1u;
    if (taken <= LIS3DH_FIFO_DEPTH) {
        return; /* full, none replaced yet */
    }
    uint32_t replaced = taken - LIS3DH_FIFO_DEPTH;
    a->lost = true;
    if (replaced > HB_ACCEL_SKIP_MAX) {
        a->next_us = seen;
        a->next_frac_ns = 0;
        return;
    }
    while (replaced) {
        uint8_t step = replaced < LIS3DH_FIFO_DEPTH ? (uint8_t)replaced : (uint8_t)LIS3DH_FIFO_DEPTH;
        hbi_accel_advance(core, step);
        replaced -= step;
    }
}

/* How many samples a frame may carry that the port has room to send now
 * (hooks.h, send_room).  A frame the port dropped would be samples lost;
 * samples left in the FIFO only wait, 24 ms at 1344 Hz, for the host to read
 * what the port holds. */
static uint8_t samples_with_room(hb_core *core)
{
    if (!core->hooks.send_room) {
        return HB_ACCEL_MAX_SAMPLES;
    }
    uint8_t room = core->hooks.send_room(core->hooks.context);
    uint8_t fixed = (uint8_t)(HB_FRAME_OVERHEAD + HB_ACCEL_OFF_DATA);
    if (room < fixed + HB_ACCEL_SAMPLE_LEN) {
        return 0;
    }
    uint8_t k = (uint8_t)((room - fixed) / HB_ACCEL_SAMPLE_LEN);
    return k < HB_ACCEL_MAX_SAMPLES ? k : (uint8_t)HB_ACCEL_MAX_SAMPLES;
}

void hbi_accel_poll(hb_core *core)
{
    hb_accel *a = &core->accel;
    uint32_t start = hbi_now(core);
    if (!a->odr || !hbi_reached(start, a->next_read_us)) {
        return;
    }
    uint8_t fits = samples_with_room(core);
    if (!fits) {
        /* The host has not read what the port holds: look again shortly. */
        a->next_read_us = start + (a->period_us < HB_ACCEL_ROOM_RETRY_US ? a->period_us : HB_ACCEL_ROOM_RETRY_US);
        return;
    }
    uint8_t p[HB_ACCEL_MAX_LEN];
    uint8_t src = 0;
    hbi_lock(core);
    /* The clock under the lock (safety.c, may_take_bus). */
    uint32_t now = hbi_now(core);
    if (!hbi_bus_free_for(core, now, read_us(1u) + HB_UNTIMED_GUARD_US)) {
        hbi_unlock(core);
        return; /* the next poll, once the command in the way has run */
    }
    bool ok = core->hooks.i2c_read(core->hooks.context, a->addr, LIS3DH_REG_FIFO_SRC, &src, 1) == HB_I2C_ACK;
    uint32_t seen = hbi_now(core);
    /* Full is 32 unread, which FSS's five bits cannot say: OVRN_FIFO does. */
    bool full = ok && (src & LIS3DH_FIFO_SRC_OVRN);
    uint8_t n = !ok ? 0u : full ? (uint8_t)LIS3DH_FIFO_DEPTH : (uint8_t)(src & LIS3DH_FIFO_SRC_FSS);
    uint8_t k = n < fits ? n : fits;
    while (k && !hbi_bus_free_for(core, seen, read_us((uint8_t)(k * HB_ACCEL_SAMPLE_LEN)) + HB_UNTIMED_GUARD_US)) {
        k--; /* what fits in the gap; the rest waits for the next */
    }
    if (k && core->hooks.i2c_read(core->hooks.context, a->addr, LIS3DH_REG_OUT_X_L | LIS3DH_AUTO_INCREMENT,
                                  &p[HB_ACCEL_OFF_DATA], (uint8_t)(k * HB_ACCEL_SAMPLE_LEN)) != HB_I2C_ACK) {
        ok = false;
    }
    hbi_unlock(core);
    uint32_t p_us = a->period_us;
    if (!ok) {
        a->lost = true; /* a NACK: look again a frame's time later */
        a->next_read_us = seen + HB_ACCEL_MAX_SAMPLES * p_us;
        return;
    }
    if (full) {
        skip_replaced(core, seen);
    }
    if (n) {
        keep_estimate_in_bounds(core, n, now, seen);
    }
    if (k) {
        hb_put_u32(&p[HB_ACCEL_OFF_FIRST_US], a->next_us);
        hb_put_u32(&p[HB_ACCEL_OFF_PERIOD_NS], a->period_us * 1000u + a->period_frac_ns);
        p[HB_ACCEL_OFF_FORMAT] = (uint8_t)(a->fs | (HB_ACCEL_RES_HIGH << HB_ACCEL_FORMAT_RES_SHIFT) |
                                           (a->lost ? HB_ACCEL_FORMAT_LOST : 0u));
        p[HB_ACCEL_OFF_COUNT] = k;
        a->lost = false;
        hbi_accel_advance(core, k);
        hbi_send(core, HB_T_ACCEL_SAMPLES, p, (uint8_t)(HB_ACCEL_OFF_DATA + k * HB_ACCEL_SAMPLE_LEN));
    }
    /* Next: at once when more are waiting, else once a frame's worth is in. */
    uint8_t left = (uint8_t)(n - k);
    a->next_read_us = left ? seen : seen + (uint32_t)(HB_ACCEL_MAX_SAMPLES - left) * p_us;
}
