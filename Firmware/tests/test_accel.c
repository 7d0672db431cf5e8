/* The bench accelerometer (core/lis3dh.c): found by WHO_AM_I, negotiated by
 * a capability bit, started by ACCEL_STREAM, read through its FIFO in the
 * stream's gaps and sent as ACCEL_SAMPLES stamped in board time. */
#include <string.h>

#include "check.h"
#include "fake_board.h"
#include "hapbridge/lis3dh.h"
#include "tests.h"

static fake_board b;

static uint16_t hello_caps(void)
{
    const fake_frame *r = fake_last(&b, HB_T_HELLO_REPLY);
    return r ? hb_get_u16(&r->payload[HB_HELLO_REPLY_OFF_CAPS]) : 0;
}

static void stream(uint8_t odr, uint8_t fs)
{
    uint8_t p[HB_ACCEL_STREAM_LEN] = {odr, fs};
    fake_send(&b, HB_T_ACCEL_STREAM, p, sizeof p);
}

static bool acked(uint8_t type)
{
    const fake_frame *a = fake_last(&b, HB_T_ACK);
    return a && a->payload[HB_ACK_OFF_TYPE] == type;
}

static bool absent_sensor_leaves_the_bit_clear_and_is_refused(void)
{
    fake_init(&b);
    fake_hello(&b, 500, 0);
    CHECK(!(hello_caps() & HB_CAP_ACCEL));
    CHECK(hello_caps() & HB_CAP_RAW_I2C);
    stream(LIS3DH_ODR_1344HZ, 0);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_BAD_ARG);
    fake_advance(&b, 20000);
    CHECK(fake_count(&b, HB_T_ACCEL_SAMPLES) == 0);
    return true;
}

static bool who_am_i_0x33_sets_the_capability(void)
{
    fake_init(&b);
    fake_fit_lis3dh(&b);
    CHECK(b.core.accel.addr == LIS3DH_ADDR_SA0_LOW);
    fake_hello(&b, 500, 0);
    CHECK(hello_caps() & HB_CAP_ACCEL);
    return true;
}

static bool stream_request_configures_the_sensor_rate_last(void)
{
    fake_init(&b);
    fake_fit_lis3dh(&b);
    fake_hello(&b, 500, 0);
    b.write_count = 0;
    stream(LIS3DH_ODR_1344HZ, 1);
    CHECK(acked(HB_T_ACCEL_STREAM));
    /* datasheet 8.11: BDU | FS=01 (+-4 g) | HR; 8.12: FIFO_EN; 8.18: stream */
    CHECK(b.other_regs[LIS3DH_REG_CTRL_REG4] == (0x80u | 0x10u | 0x08u));
    CHECK(b.other_regs[LIS3DH_REG_CTRL_REG5] == 0x40u);
    CHECK(b.other_regs[LIS3DH_REG_FIFO_CTRL] == 0x80u);
    CHECK(b.other_regs[LIS3DH_REG_CTRL_REG1] == 0x97u); /* ODR 9, X/Y/Z */
    const fake_write *last = &b.writes[b.write_count - 1];
    CHECK(last->addr == FAKE_OTHER_ADDR && last->reg == LIS3DH_REG_CTRL_REG1);
    stream(8, 0); /* 1.6 kHz exists in low-power mode only */
    CHECK(fake_last_nak_reason(&b) == HB_NAK_BAD_ARG);
    stream(LIS3DH_ODR_1344HZ, 4);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_BAD_ARG);
    return true;
}

/* Every sample once, in order, each stamped within one period of when the
 * sensor took it (the fake's own clock), six to a frame. */
static bool samples_arrive_in_order_stamped_in_board_time(void)
{
    fake_init(&b);
    fake_fit_lis3dh(&b);
    fake_hello(&b, 2000, 0);
    stream(LIS3DH_ODR_1344HZ, 0);
    fake_advance(&b, 40000);
    uint32_t expect = 0, frames = 0;
    for (uint32_t i = 0; i < b.frame_count; i++) {
        const fake_frame *f = &b.frames[i];
        if (f->type != HB_T_ACCEL_SAMPLES) {
            continue;
        }
        frames++;
        uint8_t n = f->payload[HB_ACCEL_OFF_COUNT];
        CHECK(n >= 1 && n <= HB_ACCEL_MAX_SAMPLES && f->len == HB_ACCEL_OFF_DATA + n * HB_ACCEL_SAMPLE_LEN);
        CHECK(hb_get_u32(&f->payload[HB_ACCEL_OFF_PERIOD_NS]) == 744048u);
        CHECK(!(f->payload[HB_ACCEL_OFF_FORMAT] & HB_ACCEL_FORMAT_LOST));
        uint32_t first = hb_get_u32(&f->payload[HB_ACCEL_OFF_FIRST_US]);
        for (uint8_t s = 0; s < n; s++, expect++) {
            int16_t x = (int16_t)hb_get_u16(&f->payload[HB_ACCEL_OFF_DATA + s * 6u]);
            CHECK(x == (int16_t)(expect * 16u));
            uint32_t stamped = first + (uint32_t)(((uint64_t)s * 744048u) / 1000u);
            int32_t error = (int32_t)(stamped - b.lis.sample_at[expect]);
            CHECK(error > -745 && error < 745);
        }
    }
    CHECK(frames >= 8);
    CHECK(expect >= 48); /* 40 ms at 1344 Hz is 53; the last few wait for a frame's worth */
    return true;
}

/* A read never takes the bus when a stamped command falls due before it
 * ends plus the guard: the FIFO waits, the stream does not. */
static bool reads_wait_for_a_gap_in_the_stream(void)
{
    fake_init(&b);
    fake_fit_lis3dh(&b);
    fake_hello(&b, 2000, 0);
    stream(LIS3DH_ODR_1344HZ, 0);
    uint32_t due = b.core.accel.next_read_us + 50u; /* the first look falls 50 us before it */
    fake_rtp(&b, due, 0x40);
    uint32_t reads = b.read_count;
    while ((int32_t)(b.now_us + 10u - due) < 0) {
        fake_advance(&b, 10);
    }
    CHECK((int32_t)(b.now_us - b.core.accel.next_read_us) >= 0); /* its time came, and passed */
    CHECK(b.read_count == reads);
    fake_advance(&b, 100);
    CHECK(fake_writes_of(&b, 0x02 /* RTP_INPUT */, 0x40) == 1);
    CHECK(b.read_count > reads);
    CHECK(fake_count(&b, HB_T_ACCEL_SAMPLES) == 1);
    return true;
}

static bool overwritten_samples_are_flagged_lost(void)
{
    fake_init(&b);
    fake_fit_lis3dh(&b);
    fake_hello(&b, 2000, 0);
    stream(LIS3DH_ODR_1344HZ, 0);
    b.now_us += 50000; /* a stall: 67 samples into a 32-level FIFO */
    fake_advance(&b, 10);
    const fake_frame *f = fake_last(&b, HB_T_ACCEL_SAMPLES);
    CHECK(f && (f->payload[HB_ACCEL_OFF_FORMAT] & HB_ACCEL_FORMAT_LOST));
    fake_advance(&b, 10000);
    f = fake_last(&b, HB_T_ACCEL_SAMPLES);
    CHECK(f && !(f->payload[HB_ACCEL_OFF_FORMAT] & HB_ACCEL_FORMAT_LOST));
    return true;
}

/* Sample i's X reads i (the fake's counting sensor). */
static int16_t sample_x(const fake_frame *f, uint8_t s)
{
    return (int16_t)((int16_t)hb_get_u16(&f->payload[HB_ACCEL_OFF_DATA + s * HB_ACCEL_SAMPLE_LEN]) / 16);
}

/* The stamp of sample s of a frame, us. */
static uint32_t stamp_of(const fake_frame *f, uint8_t s)
{
    uint32_t first = hb_get_u32(&f->payload[HB_ACCEL_OFF_FIRST_US]);
    return first + (uint32_t)(((uint64_t)s * hb_get_u32(&f->payload[HB_ACCEL_OFF_PERIOD_NS])) / 1000u);
}

/* A port whose ring has room for one frame at a time, and for none while the
 * host has not read it: the frames wait (the samples in the FIFO), none is
 * ever sent that the port would drop, and every sample arrives once. */
static bool frames_wait_for_the_ports_room(void)
{
    fake_init(&b);
    fake_fit_lis3dh(&b);
    fake_hello(&b, 2000, 0);
    stream(LIS3DH_ODR_1344HZ, 0);
    b.room_limited = true;
    b.room = 0;
    uint32_t expect = 0, frames = 0;
    for (uint32_t t = 0; t < 30000u; t += 10u) {
        /* The host reads the ring every 2 ms: then there is room for one full frame. */
        if (t % 2000u == 0u) {
            b.room = (uint8_t)(HB_FRAME_OVERHEAD + HB_ACCEL_MAX_LEN);
        }
        uint32_t before = b.frame_count;
        fake_advance(&b, 10);
        for (uint32_t i = before; i < b.frame_count; i++) {
            const fake_frame *f = &b.frames[i];
            if (f->type != HB_T_ACCEL_SAMPLES) {
                continue;
            }
            frames++;
            CHECK(f->len + HB_FRAME_OVERHEAD <= HB_FRAME_OVERHEAD + HB_ACCEL_MAX_LEN);
            CHECK(!(f->payload[HB_ACCEL_OFF_FORMAT] & HB_ACCEL_FORMAT_LOST));
            for (uint8_t s = 0; s < f->payload[HB_ACCEL_OFF_COUNT]; s++, expect++) {
                CHECK(sample_x(f, s) == (int16_t)expect);
            }
        }
    }
    CHECK(b.lis.replaced == 0);
    CHECK(frames >= 5); /* a look once 6 should be waiting: every 4.5 ms */
    CHECK(expect >= 30);
    return true;
}

/* Datasheet Rev 2, 8.20: OVRN_FIFO is set when the FIFO holds 32 unread
 * samples; only the next one replaces the oldest.  Full is not lost. */
static bool a_full_fifo_is_not_a_loss(void)
{
    fake_init(&b);
    fake_fit_lis3dh(&b);
    fake_hello(&b, 2000, 0);
    stream(LIS3DH_ODR_1344HZ, 0);
    b.room_limited = true;
    b.room = 0;
    while (b.lis.count < LIS3DH_FIFO_DEPTH) {
        fake_advance(&b, 10);
    }
    CHECK(b.lis.replaced == 0);
    b.room_limited = false;
    /* The reader looks again within HB_ACCEL_ROOM_RETRY_US, before the next
     * sample (744 us) would replace one. */
    fake_advance(&b, 700);
    CHECK(b.lis.replaced == 0);
    uint32_t expect = 0;
    for (uint32_t i = 0; i < b.frame_count; i++) {
        const fake_frame *f = &b.frames[i];
        if (f->type != HB_T_ACCEL_SAMPLES) {
            continue;
        }
        CHECK(!(f->payload[HB_ACCEL_OFF_FORMAT] & HB_ACCEL_FORMAT_LOST));
        for (uint8_t s = 0; s < f->payload[HB_ACCEL_OFF_COUNT]; s++, expect++) {
            CHECK(sample_x(f, s) == (int16_t)expect);
            int32_t error = (int32_t)(stamp_of(f, s) - b.lis.sample_at[expect]);
            CHECK(error > -745 && error < 745);
        }
    }
    CHECK(expect >= LIS3DH_FIFO_DEPTH);
    return true;
}

/* Samples a full FIFO replaced before the board read it: the next frame says
 * so (format bit 7) and its stamps go on where those samples would have been,
 * so the hole in the stamps is as many periods wide as samples were lost. */
static bool replaced_samples_leave_a_hole_as_wide_as_the_loss(void)
{
    fake_init(&b);
    fake_fit_lis3dh(&b);
    fake_hello(&b, 2000, 0);
    stream(LIS3DH_ODR_1344HZ, 0);
    fake_advance(&b, 10000); /* a few frames first */
    const fake_frame *last = fake_last(&b, HB_T_ACCEL_SAMPLES);
    CHECK(last);
    uint8_t n = last->payload[HB_ACCEL_OFF_COUNT];
    uint32_t next_expected = stamp_of(last, (uint8_t)(n - 1u)) + 744u;
    int16_t last_x = sample_x(last, (uint8_t)(n - 1u));
    uint32_t frames = fake_count(&b, HB_T_ACCEL_SAMPLES);
    b.room_limited = true;
    b.room = 0;
    while (b.lis.replaced < 9u) { /* the FIFO fills, then 9 are replaced */
        fake_advance(&b, 10);
    }
    b.room_limited = false;
    fake_advance(&b, HB_ACCEL_ROOM_RETRY_US + 100u);
    CHECK(fake_count(&b, HB_T_ACCEL_SAMPLES) > frames);
    const fake_frame *f = NULL;
    for (uint32_t i = 0; i < b.frame_count && !f; i++) {
        if (b.frames[i].type == HB_T_ACCEL_SAMPLES && frames-- == 0u) {
            f = &b.frames[i];
        }
    }
    CHECK(f && (f->payload[HB_ACCEL_OFF_FORMAT] & HB_ACCEL_FORMAT_LOST));
    uint32_t lost = b.lis.replaced;
    CHECK(sample_x(f, 0) == (int16_t)(last_x + 1 + (int16_t)lost)); /* the first kept after the hole */
    int32_t hole = (int32_t)(stamp_of(f, 0) - next_expected);
    CHECK(hole > (int32_t)(lost * 744u) - 744 && hole < (int32_t)(lost * 744u) + 744);
    return true;
}

static bool the_stream_ends_with_the_session(void)
{
    fake_init(&b);
    fake_fit_lis3dh(&b);
    fake_hello(&b, 50, 0);
    stream(LIS3DH_ODR_1344HZ, 0);
    fake_advance(&b, 60000); /* host silent past the keep-alive */
    CHECK(fake_last_stop_reason(&b) == HB_STOP_HOST_SILENT);
    CHECK(b.core.accel.odr == 0);
    CHECK(b.other_regs[LIS3DH_REG_CTRL_REG1] == LIS3DH_CTRL_REG1_XYZ); /* powered down */
    uint32_t n = fake_count(&b, HB_T_ACCEL_SAMPLES);
    fake_advance(&b, 20000);
    CHECK(fake_count(&b, HB_T_ACCEL_SAMPLES) == n);
    return true;
}

static bool stream_needs_a_session(void)
{
    fake_init(&b);
    fake_fit_lis3dh(&b);
    stream(LIS3DH_ODR_1344HZ, 0);
    CHECK(fake_last_nak_reason(&b) == HB_NAK_NOT_OPEN);
    return true;
}

const test_case accel_tests[] = {
    {"accel: no LIS3DH: HB_CAP_ACCEL clear, ACCEL_STREAM refused BAD_ARG, no samples",
     absent_sensor_leaves_the_bit_clear_and_is_refused},
    {"accel: WHO_AM_I 0x33 at 0x18 sets HB_CAP_ACCEL in HELLO_REPLY", who_am_i_0x33_sets_the_capability},
    {"accel: ACCEL_STREAM sets BDU/FS/HR, FIFO_EN, stream mode, then the ODR; bad codes refused",
     stream_request_configures_the_sensor_rate_last},
    {"accel: samples arrive once each, in order, stamped within a period of the sensor's clock",
     samples_arrive_in_order_stamped_in_board_time},
    {"accel: a FIFO read waits for a gap in the stamped stream", reads_wait_for_a_gap_in_the_stream},
    {"accel: samples overwritten in the FIFO are flagged lost in the next frame", overwritten_samples_are_flagged_lost},
    {"accel: a frame waits in the FIFO while the port has no room for it: none dropped, every sample once",
     frames_wait_for_the_ports_room},
    {"accel: a full FIFO (OVRN_FIFO, 32 unread) with none replaced is read whole, not flagged lost",
     a_full_fifo_is_not_a_loss},
    {"accel: samples a full FIFO replaced are flagged, and the stamps leave a hole that many periods wide",
     replaced_samples_leave_a_hole_as_wide_as_the_loss},
    {"accel: the stream ends with the session (host silence powers the sensor down)", the_stream_ends_with_the_session},
    {"accel: ACCEL_STREAM needs a session", stream_needs_a_session},
    TEST_LIST_END,
};
