#include "fake_board.h"

#include <string.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/lis3dh.h"

/* ODR code -> period in µs, for the fake's own clock (exact, integral). */
static uint32_t lis_period_us(uint8_t odr)
{
    uint32_t ns = hb_lis3dh_period_ns(odr);
    return ns / 1000u;
}

static void lis_wrote(fake_board *b, uint8_t reg, uint8_t value)
{
    fake_lis3dh *l = &b->lis;
    if (reg == LIS3DH_REG_CTRL_REG1) {
        l->period_us = lis_period_us((uint8_t)(value >> LIS3DH_CTRL_REG1_ODR_SHIFT));
        l->next_us = b->now_us + l->period_us;
        l->produced = 0;
        l->first = 0;
        l->count = 0;
    } else if (reg == LIS3DH_REG_FIFO_CTRL && (value & 0xC0u) == LIS3DH_FIFO_MODE_BYPASS) {
        l->first = l->produced;
        l->count = 0;
    }
}

static void lis_tick(fake_board *b)
{
    fake_lis3dh *l = &b->lis;
    while (l->fitted && l->period_us && (int32_t)(b->now_us - l->next_us) >= 0) {
        if (l->produced < 64) {
            l->sample_at[l->produced] = l->next_us;
        }
        l->produced++;
        if (l->count == LIS3DH_FIFO_DEPTH) {
            l->first++; /* stream mode: the oldest is replaced */
            l->replaced++;
        } else {
            l->count++;
        }
        l->next_us += l->period_us;
    }
}

static void lis_read(fake_board *b, uint8_t reg, uint8_t *bytes, uint8_t len)
{
    fake_lis3dh *l = &b->lis;
    uint8_t r = (uint8_t)(reg & 0x7Fu);
    if (r == LIS3DH_REG_WHO_AM_I) {
        bytes[0] = LIS3DH_WHO_AM_I_VALUE;
    } else if (r == LIS3DH_REG_FIFO_SRC) {
        /* Datasheet Rev 2, 8.20: OVRN_FIFO with 32 unread (FSS's five bits
         * saturate there, as in the Swift model). */
        bytes[0] = (uint8_t)((l->count > 31u ? 31u : l->count) |
                             (l->count == LIS3DH_FIFO_DEPTH ? LIS3DH_FIFO_SRC_OVRN : 0u) |
                             (l->count ? 0u : LIS3DH_FIFO_SRC_EMPTY));
    } else if (r == LIS3DH_REG_OUT_X_L) {
        for (uint8_t i = 0; i + 6u <= len; i = (uint8_t)(i + 6u)) {
            int16_t x = (int16_t)(l->first * 16u), y = (int16_t)-x, z = (int16_t)(1000 * 16);
            hb_put_u16(&bytes[i], (uint16_t)x);
            hb_put_u16(&bytes[i + 2u], (uint16_t)y);
            hb_put_u16(&bytes[i + 4u], (uint16_t)z);
            if (l->count) {
                l->first++;
                l->count--;
            }
        }
    }
}

static hb_i2c_result i2c_write(void *ctx, uint8_t addr7, const uint8_t *bytes, uint8_t len)
{
    fake_board *b = ctx;
    bool chip = addr7 == DRV2605_I2C_ADDR;
    if (b->nack || (!chip && addr7 != FAKE_OTHER_ADDR) || len < 1) {
        return HB_I2C_NACK;
    }
    if (b->write_count < FAKE_LOG_MAX) {
        fake_write *w = &b->writes[b->write_count++];
        w->at_us = b->now_us;
        w->addr = addr7;
        w->reg = bytes[0];
        w->n = (uint8_t)(len - 1);
        memcpy(w->bytes, bytes + 1, len - 1u > sizeof w->bytes ? sizeof w->bytes : len - 1u);
    }
    if (!chip) {
        for (uint8_t i = 1; i < len; i++) {
            uint8_t reg = (uint8_t)((bytes[0] & (b->lis.fitted ? 0x7Fu : 0xFFu)) + i - 1);
            b->other_regs[reg % FAKE_OTHER_REGS] = bytes[i];
            if (b->lis.fitted) {
                lis_wrote(b, reg, bytes[i]);
            }
        }
        return HB_I2C_ACK;
    }
    for (uint8_t i = 1; i < len; i++) {
        uint8_t reg = (uint8_t)(bytes[0] + i - 1);
        if (reg < sizeof b->regs && reg != DRV2605_REG_STATUS) {
            b->regs[reg] = bytes[i];
        }
    }
    return HB_I2C_ACK;
}

static hb_i2c_result i2c_read(void *ctx, uint8_t addr7, uint8_t reg, uint8_t *bytes, uint8_t len)
{
    fake_board *b = ctx;
    if (b->nack || (addr7 != DRV2605_I2C_ADDR && addr7 != FAKE_OTHER_ADDR)) {
        return HB_I2C_NACK;
    }
    b->read_count++;
    if (addr7 == FAKE_OTHER_ADDR && b->lis.fitted) {
        lis_read(b, reg, bytes, len);
        return HB_I2C_ACK;
    }
    for (uint8_t i = 0; i < len; i++) {
        uint8_t r = (uint8_t)(reg + i);
        if (addr7 == FAKE_OTHER_ADDR) {
            bytes[i] = b->other_regs[r % FAKE_OTHER_REGS];
        } else {
            bytes[i] = r < sizeof b->regs ? b->regs[r] : 0;
        }
    }
    return HB_I2C_ACK;
}

static uint32_t now_us(void *ctx) { return ((fake_board *)ctx)->now_us; }

static void arm_timer(void *ctx, uint32_t at)
{
    fake_board *b = ctx;
    b->timer_armed = true;
    b->timer_at = at;
}

static void disarm_timer(void *ctx) { ((fake_board *)ctx)->timer_armed = false; }

static bool f_is_unprompted(const uint8_t *frame) { return frame[HB_FRAME_OFFSET_TYPE] == HB_T_ACCEL_SAMPLES; }

static void send_frame(void *ctx, const uint8_t *frame, uint8_t len)
{
    fake_board *b = ctx;
    if (b->frame_count >= FAKE_FRAMES_MAX || len < HB_FRAME_OVERHEAD) {
        return;
    }
    if (!hb_board_payload_len_ok(frame[HB_FRAME_OFFSET_TYPE], frame[HB_FRAME_OFFSET_LEN])) {
        return; /* a malformed board frame: tests looking for it will fail */
    }
    if (b->room_limited && f_is_unprompted(frame)) {
        b->room = b->room >= len ? (uint8_t)(b->room - len) : 0u; /* the ring fills */
    }
    fake_frame *f = &b->frames[b->frame_count++];
    f->seq = frame[HB_FRAME_OFFSET_SEQ];
    f->type = frame[HB_FRAME_OFFSET_TYPE];
    f->len = frame[HB_FRAME_OFFSET_LEN];
    memcpy(f->payload, frame + HB_FRAME_OFFSET_PAYLOAD, f->len);
}

static void enter_bootloader(void *ctx) { ((fake_board *)ctx)->bootloader_calls++; }

static uint8_t send_room(void *ctx)
{
    const fake_board *b = ctx;
    return b->room_limited ? b->room : 255u;
}

void fake_init(fake_board *b)
{
    hb_core_config config = {.exec_lead_us = 0, .tick_ns = 1000};
    fake_init_with(b, &config);
}

void fake_init_with(fake_board *b, const hb_core_config *config)
{
    memset(b, 0, sizeof *b);
    b->now_us = 1000;
    b->regs[DRV2605_REG_STATUS] = (uint8_t)(DRV2605_DEVICE_ID_DRV2605L << DRV2605_STATUS_DEVICE_ID_SHIFT);
    b->regs[DRV2605_REG_MODE] = DRV2605_MODE_STANDBY;
    hb_hooks hooks = {
        .context = b,
        .i2c_write = i2c_write,
        .i2c_read = i2c_read,
        .now_us = now_us,
        .arm_timer = arm_timer,
        .disarm_timer = disarm_timer,
        .send_frame = send_frame,
        .send_room = send_room,
        .enter_bootloader = enter_bootloader,
    };
    for (uint8_t i = 0; i < FAKE_OTHER_REGS; i++) {
        b->other_regs[i] = (uint8_t)(0x80u + i);
    }
    hb_core_init(&b->core, &hooks, config);
    hb_core_start(&b->core);
}

void fake_advance(fake_board *b, uint32_t us)
{
    /* 10 us steps: finer than anything the core schedules, coarse enough
     * to keep tests fast. */
    for (uint32_t t = 0; t < us; t += 10) {
        b->now_us += 10;
        lis_tick(b);
        if (b->timer_armed && (int32_t)(b->now_us - b->timer_at) >= 0) {
            b->timer_armed = false;
            hb_core_timer_fired(&b->core);
        }
        hb_core_poll(&b->core);
    }
}

void fake_send(fake_board *b, uint8_t type, const uint8_t *payload, uint8_t len)
{
    uint8_t frame[HB_FRAME_MAX_LEN];
    uint8_t n = hb_frame_encode(frame, b->host_seq++, type, payload, len);
    hb_core_receive(&b->core, frame, n);
}

void fake_hello(fake_board *b, uint16_t keepalive_ms, uint16_t max_drive_ms)
{
    fake_hello_minor(b, HB_PROTO_VERSION_MINOR, keepalive_ms, max_drive_ms);
}

void fake_hello_minor(fake_board *b, uint8_t minor, uint16_t keepalive_ms, uint16_t max_drive_ms)
{
    uint8_t p[HB_HELLO_LEN] = {HB_PROTO_VERSION_MAJOR, minor};
    hb_put_u16(&p[HB_HELLO_OFF_KEEPALIVE_MS], keepalive_ms);
    hb_put_u16(&p[HB_HELLO_OFF_MAX_DRIVE_MS], max_drive_ms);
    fake_send(b, HB_T_HELLO, p, sizeof p);
}

void fake_rtp(fake_board *b, uint32_t at, uint8_t amplitude)
{
    uint8_t p[HB_CMD_RTP_LEN];
    hb_put_u32(p, at);
    p[HB_CMD_RTP_OFF_AMPLITUDE] = amplitude;
    fake_send(b, HB_T_CMD_RTP, p, sizeof p);
}

const fake_frame *fake_last(const fake_board *b, uint8_t type)
{
    for (uint32_t i = b->frame_count; i-- > 0;) {
        if (b->frames[i].type == type) {
            return &b->frames[i];
        }
    }
    return NULL;
}

uint32_t fake_count(const fake_board *b, uint8_t type)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->frame_count; i++) {
        n += b->frames[i].type == type;
    }
    return n;
}

uint32_t fake_writes_of(const fake_board *b, uint8_t reg, uint8_t value)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->write_count; i++) {
        n += b->writes[i].addr == DRV2605_I2C_ADDR && b->writes[i].reg == reg && b->writes[i].n >= 1 &&
             b->writes[i].bytes[0] == value;
    }
    return n;
}

uint8_t fake_last_nak_reason(const fake_board *b)
{
    const fake_frame *f = fake_last(b, HB_T_NAK);
    return f ? f->payload[HB_NAK_OFF_REASON] : 0;
}

uint8_t fake_last_stop_reason(const fake_board *b)
{
    const fake_frame *f = fake_last(b, HB_T_EVENT_STOPPED);
    return f ? f->payload[HB_STOPPED_OFF_REASON] : 0;
}

bool fake_chip_stopped(const fake_board *b)
{
    return b->regs[DRV2605_REG_RTP_INPUT] == 0 && !(b->regs[DRV2605_REG_GO] & DRV2605_GO_GO) &&
           (b->regs[DRV2605_REG_MODE] & DRV2605_MODE_STANDBY);
}

void fake_fit_lis3dh(fake_board *b)
{
    b->lis = (fake_lis3dh){.fitted = true};
    hb_core_start(&b->core);
}
