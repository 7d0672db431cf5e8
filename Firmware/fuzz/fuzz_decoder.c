/*
 * libFuzzer target: arbitrary bytes from the host.
 *  1. Decoder alone: every frame it accepts must re-encode to exactly the
 *     bytes it came from (so nothing unchecked slips through), and its
 *     length must be within bounds.
 *  2. The whole core on a virtual clock: whatever arrives, the queue stays
 *     bounded and only writable DRV2605 registers are ever written.
 * Memory errors are ASan/UBSan's job.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hapbridge/core.h"
#include "hapbridge/drv2605_regs.h"

typedef struct fuzz_board {
    uint32_t now;
    uint32_t timer_at;
    int armed;
} fuzz_board;

static hb_i2c_result i2c_write(void *ctx, uint8_t addr7, const uint8_t *bytes, uint8_t len)
{
    (void)ctx;
    if (addr7 != DRV2605_I2C_ADDR || len < 2) {
        abort();
    }
    for (uint8_t i = 1; i < len; i++) {
        uint8_t reg = (uint8_t)(bytes[0] + i - 1);
        if (!drv2605_reg_writable(reg)) {
            abort(); /* a frame reached the chip unchecked */
        }
    }
    return HB_I2C_ACK;
}

static hb_i2c_result i2c_read(void *ctx, uint8_t addr7, uint8_t reg, uint8_t *bytes, uint8_t len)
{
    (void)ctx;
    (void)addr7;
    for (uint8_t i = 0; i < len; i++) {
        bytes[i] = (uint8_t)(reg == DRV2605_REG_STATUS ? 0xE0 : 0);
    }
    return HB_I2C_ACK;
}

static uint32_t now_us(void *ctx) { return ((fuzz_board *)ctx)->now; }

static void arm(void *ctx, uint32_t at)
{
    fuzz_board *b = ctx;
    b->timer_at = at;
    b->armed = 1;
}

static void send_frame(void *ctx, const uint8_t *frame, uint8_t len)
{
    (void)ctx;
    if (len < HB_FRAME_OVERHEAD || len > HB_FRAME_MAX_LEN || frame[0] != HB_FRAME_MAGIC) {
        abort();
    }
}

static void decoder_only(const uint8_t *data, size_t size)
{
    hb_decoder d;
    hb_decoder_init(&d);
    size_t frame_start = 0;
    for (size_t i = 0; i < size; i++) {
        hb_decode_result r = hb_decoder_push(&d, data[i]);
        if (d.pos == 1) {
            frame_start = i; /* this byte began a frame */
        }
        if (r != HB_DECODE_FRAME) {
            continue;
        }
        uint8_t len = hb_decoder_len(&d);
        if (len > HB_FRAME_MAX_PAYLOAD) {
            abort();
        }
        uint8_t again[HB_FRAME_MAX_LEN];
        uint8_t n = hb_frame_encode(again, hb_decoder_seq(&d), hb_decoder_type(&d),
                                    hb_decoder_payload(&d), len);
        if (n != i + 1 - frame_start || memcmp(again, data + frame_start, n) != 0) {
            abort();
        }
    }
}

static void whole_core(const uint8_t *data, size_t size)
{
    static hb_core core; /* large: keep it off the fuzzer's stack */
    fuzz_board b = {.now = 1000};
    hb_hooks hooks = {
        .context = &b,
        .i2c_write = i2c_write,
        .i2c_read = i2c_read,
        .now_us = now_us,
        .arm_timer = arm,
        .send_frame = send_frame,
    };
    hb_core_config config = {0};
    hb_core_init(&core, &hooks, &config);
    hb_core_start(&core);
    /* Bytes arrive in chunks with time passing between them, so stamped
     * commands also execute and safety timers run. */
    for (size_t i = 0; i < size; i += 16) {
        size_t n = size - i < 16 ? size - i : 16;
        hb_core_receive(&core, data + i, (uint32_t)n);
        b.now += 997;
        if (b.armed && (int32_t)(b.now - b.timer_at) >= 0) {
            b.armed = 0;
            hb_core_timer_fired(&core);
        }
        hb_core_poll(&core);
        if (hb_queue_count(&core.queue) > HB_QUEUE_CAPACITY) {
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decoder_only(data, size);
    whole_core(data, size);
    return 0;
}
