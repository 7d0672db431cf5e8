/*
 * libFuzzer target: the firmware core on a virtual clock, driven by a script
 * the fuzzer writes.  An input is a run of records, each an op byte and its
 * operands:
 *
 *   0x00..0x3F  host bytes: the next (op & 0x3F) + 1 bytes, as one transfer
 *   0x40..0x7F  time passes: (op & 0x3F) + 1 steps of 97 us
 *   0x80..0x9F  time jumps: ((op & 0x1F) << 8 | next byte) x 10 ms, up to
 *               82 s (past every keep-alive and drive limit the host can set)
 *   0xA0..0xBF  the chip: bit 0 OVER_TEMP, bit 1 OC_DETECT (set in STATUS),
 *               bit 2 clears both, bit 3 NACKs the next (next byte & 15)
 *               transactions, bit 4 the sequencer finishes (GO clears)
 *   0xC0..0xFF  one well-formed frame (right length, sequence, CRC) of host
 *               type HOST_TYPES[op & 15] whose payload comes from the next
 *               bytes; stamps and REPLACE_FROM times are taken relative to
 *               now, so commands fall due within the run
 *
 * Checked on every input, besides ASan/UBSan:
 *  - the streaming decoder the core uses (hb_decoder_push_bytes) and the
 *    byte-wise one (hb_decoder_push) see the same frames and verdicts, and
 *    every accepted frame re-encodes to exactly its bytes;
 *  - every frame the board sends is well formed for a board frame;
 *  - the queue stays bounded; only writable DRV2605 registers are written;
 *  - the identity rules, fed the input's first bytes as EEPROM record,
 *    unique ID and boot section, give a serial of 1..20 valid characters;
 *  - the safety stops happen: no drive outlives the drive limit, no session
 *    outlives the host's silence, and (when the chip acknowledges its writes)
 *    the chip is not left driving past either.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hapbridge/board_identity.h"
#include "hapbridge/core.h"
#include "hapbridge/drv2605_regs.h"

#define STEP_US 97u
#define JUMP_UNIT_US 10000u
#define OTHER_DEVICE 0x18u
/* The core stops at its deadline on this clock; the slack covers the one
 * step the harness takes past it. */
#define SLACK_US 1000u

static const uint8_t HOST_TYPES[16] = {
    HB_T_HELLO,         HB_T_SYNC,         HB_T_KEEPALIVE,     HB_T_QUEUE_STATUS_REQ,
    HB_T_CHIP_STATUS_REQ, HB_T_STOP_ALL,   HB_T_CLEAR_FAULT,   HB_T_I2C_READ,
    HB_T_I2C_WRITE,     HB_T_REPLACE_FROM, HB_T_CMD_RTP,       HB_T_CMD_REG_WRITE,
    HB_T_CMD_ROM_SEQ,   HB_T_CMD_STOP,     HB_T_CMD_RTP,       HB_T_ENTER_BOOTLOADER,
};

typedef struct fuzz_board {
    uint32_t now;
    uint32_t timer_at;
    bool armed;
    uint8_t regs[DRV2605_REG_LAST + 1u];
    uint8_t nacks_left;
    bool nacked_ever;     /* the chip may hold what the core believes it stopped */
    uint32_t last_host_us;
    bool chip_driving;
    uint32_t chip_drive_start;
    uint8_t host_seq;
} fuzz_board;

static fuzz_board b;

/* A broken property: says which, then lets libFuzzer record the input. */
#define finding(what) finding_at(__LINE__, what)
static void finding_at(int line, const char *what)
{
    fprintf(stderr, "fuzz_core.c:%d: %s\n", line, what);
    abort();
}
static hb_core core; /* large: off the fuzzer's stack */

static bool nack_now(void)
{
    if (b.nacks_left) {
        b.nacks_left--;
        b.nacked_ever = true;
        return true;
    }
    return false;
}

/* Whether the chip's registers drive the actuator (as the datasheet's modes
 * do), judged independently of the core's own bookkeeping. */
static bool chip_drives(void)
{
    uint8_t mode = b.regs[DRV2605_REG_MODE];
    if (mode & DRV2605_MODE_STANDBY) {
        return false;
    }
    switch (mode & DRV2605_MODE_MODE_MASK) {
    case DRV2605_MODE_RTP:
        return b.regs[DRV2605_REG_RTP_INPUT] != 0;
    case DRV2605_MODE_INTERNAL_TRIGGER:
    case DRV2605_MODE_DIAGNOSTICS:
    case DRV2605_MODE_AUTO_CAL:
        return b.regs[DRV2605_REG_GO] & DRV2605_GO_GO;
    default:
        return true;
    }
}

static void note_chip(void)
{
    bool d = chip_drives();
    if (d && !b.chip_driving) {
        b.chip_drive_start = b.now;
    }
    b.chip_driving = d;
}

static void reset_chip(void)
{
    uint8_t status = b.regs[DRV2605_REG_STATUS];
    memset(b.regs, 0, sizeof b.regs);
    b.regs[DRV2605_REG_STATUS] = status;
    b.regs[DRV2605_REG_MODE] = DRV2605_MODE_STANDBY;
}

static hb_i2c_result i2c_write(void *ctx, uint8_t addr7, const uint8_t *bytes, uint8_t len)
{
    (void)ctx;
    if (len < 1 || len > 1u + HB_I2C_MAX_DATA) {
        finding("malformed");
    }
    if (addr7 == OTHER_DEVICE) {
        return HB_I2C_ACK;
    }
    if (addr7 != DRV2605_I2C_ADDR || nack_now()) {
        return HB_I2C_NACK;
    }
    for (uint8_t i = 1; i < len; i++) {
        uint8_t reg = (uint8_t)(bytes[0] + i - 1);
        if (!drv2605_reg_writable(reg)) {
            finding("a frame reached the chip unchecked");
        }
        b.regs[reg] = bytes[i];
        if (reg == DRV2605_REG_MODE && (bytes[i] & DRV2605_MODE_DEV_RESET)) {
            reset_chip(); /* every register back to its default, at once */
        }
    }
    note_chip();
    return HB_I2C_ACK;
}

static hb_i2c_result i2c_read(void *ctx, uint8_t addr7, uint8_t reg, uint8_t *bytes, uint8_t len)
{
    (void)ctx;
    /* The host's untimed reads are at most HB_I2C_MAX_DATA; the accelerometer's
     * FIFO reads, the board's own, up to an ACCEL_SAMPLES frame's worth. */
    uint8_t most = addr7 == OTHER_DEVICE ? (uint8_t)(HB_ACCEL_MAX_SAMPLES * HB_ACCEL_SAMPLE_LEN) : (uint8_t)HB_I2C_MAX_DATA;
    if (len < 1 || len > most) {
        finding("malformed");
    }
    if ((addr7 != DRV2605_I2C_ADDR && addr7 != OTHER_DEVICE) || nack_now()) {
        return HB_I2C_NACK;
    }
    for (uint8_t i = 0; i < len; i++) {
        uint8_t r = (uint8_t)(reg + i);
        /* The other device answers WHO_AM_I as a LIS3DH does (0x33), so the core's
         * accelerometer path runs; every other register reads its own address
         * (FIFO_SRC 0x2F: 15 samples waiting, never an overrun). */
        bytes[i] = addr7 == OTHER_DEVICE ? (r == 0x0Fu ? 0x33u : r) : r <= DRV2605_REG_LAST ? b.regs[r] : 0;
    }
    return HB_I2C_ACK;
}

static uint32_t now_us(void *ctx)
{
    (void)ctx;
    return b.now;
}

static void arm(void *ctx, uint32_t at)
{
    (void)ctx;
    b.timer_at = at;
    b.armed = true;
}

static void disarm(void *ctx)
{
    (void)ctx;
    b.armed = false;
}

static void send_frame(void *ctx, const uint8_t *frame, uint8_t len)
{
    (void)ctx;
    hb_decoder d;
    hb_decoder_init(&d);
    uint32_t used = 0;
    if (len < HB_FRAME_OVERHEAD || len > HB_FRAME_MAX_LEN ||
        hb_decoder_push_bytes(&d, frame, len, &used) != HB_DECODE_FRAME || used != len ||
        !hb_board_payload_len_ok(hb_decoder_type(&d), hb_decoder_len(&d))) {
        finding("malformed");
    }
}

static void enter_bootloader(void *ctx) { (void)ctx; }

/* ---- the safety oracles -------------------------------------------------- */

static void check_invariants(void)
{
    if (hb_queue_count(&core.queue) > HB_QUEUE_CAPACITY) {
        finding("malformed");
    }
    if (core.drive != HB_DRIVE_IDLE && (uint32_t)(b.now - core.drive_start_us) > core.max_drive_us + SLACK_US) {
        finding("the drive limit did not stop it");
    }
    if (core.open && (uint32_t)(b.now - core.last_rx_us) > core.keepalive_us + SLACK_US) {
        finding("the session outlived the host's silence");
    }
    if (b.nacked_ever || !b.chip_driving) {
        return;
    }
    if ((uint32_t)(b.now - b.chip_drive_start) > core.max_drive_us + SLACK_US) {
        finding("the chip itself drove past the limit");
    }
    if ((uint32_t)(b.now - b.last_host_us) > core.keepalive_us + SLACK_US) {
        finding("driving on although the host went silent");
    }
}

/* Moves the clock to now + us, stopping at every moment the core asked for
 * (its timer, its deadlines) as a port's main loop would. */
static void advance(uint32_t us)
{
    uint32_t target = b.now + us;
    while ((int32_t)(target - b.now) > 0) {
        uint32_t next = target, at;
        if (b.armed && (int32_t)(b.timer_at - b.now) > 0 && (int32_t)(b.timer_at - next) < 0) {
            next = b.timer_at;
        }
        if (hb_core_next_deadline(&core, &at) && (int32_t)(at - b.now) > 0 && (int32_t)(at - next) < 0) {
            next = at;
        }
        /* A deadline the core deferred (its bus guard) is retried a step on. */
        if ((int32_t)(next - b.now) > (int32_t)SLACK_US) {
            uint32_t deferred;
            if (hb_core_next_deadline(&core, &deferred) && (int32_t)(deferred - b.now) <= 0) {
                next = b.now + STEP_US;
            }
        }
        b.now = next;
        if (b.armed && (int32_t)(b.now - b.timer_at) >= 0) {
            b.armed = false;
            hb_core_timer_fired(&core);
        }
        hb_core_poll(&core);
        check_invariants();
    }
}

/* ---- host bytes, and the decoder cross-check ------------------------------ */

static hb_decoder byte_wise, streaming;

static void compare_decoders(const uint8_t *bytes, uint32_t len)
{
    uint32_t i = 0;
    while (i < len) {
        uint32_t used = 0;
        hb_decode_result rs = hb_decoder_push_bytes(&streaming, bytes + i, len - i, &used);
        if (used == 0 || used > len - i) {
            finding("malformed");
        }
        hb_decode_result rb = HB_DECODE_MORE;
        for (uint32_t k = 0; k < used; k++) {
            rb = hb_decoder_push(&byte_wise, bytes[i + k]);
            if (rb != HB_DECODE_MORE && k + 1 != used) {
                finding("the streaming decoder ran past a verdict");
            }
        }
        if (rb != rs || byte_wise.pos != streaming.pos) {
            finding("malformed");
        }
        if (rs != HB_DECODE_MORE && memcmp(byte_wise.buf, streaming.buf, HB_FRAME_OFFSET_PAYLOAD) != 0) {
            finding("malformed");
        }
        if (rs == HB_DECODE_FRAME) {
            uint8_t n = hb_decoder_len(&streaming);
            uint8_t again[HB_FRAME_MAX_LEN];
            uint8_t total = hb_frame_encode(again, hb_decoder_seq(&streaming), hb_decoder_type(&streaming),
                                            hb_decoder_payload(&streaming), n);
            if (memcmp(byte_wise.buf, streaming.buf, total - HB_FRAME_CRC_LEN) != 0 ||
                memcmp(again, streaming.buf, total - HB_FRAME_CRC_LEN) != 0) {
                finding("malformed");
            }
        }
        i += used;
    }
}

static void host_bytes(const uint8_t *bytes, uint32_t len)
{
    compare_decoders(bytes, len);
    b.last_host_us = b.now;
    hb_core_receive(&core, bytes, len);
    hb_core_poll(&core); /* the main loop's next pass (a HELLO may have shortened a limit) */
    check_invariants();
}

static uint32_t take(const uint8_t **in, const uint8_t *end, uint8_t *out, uint32_t n)
{
    uint32_t got = (uint32_t)(end - *in) < n ? (uint32_t)(end - *in) : n;
    memcpy(out, *in, got);
    memset(out + got, 0, n - got);
    *in += got;
    return got;
}

static uint8_t frame_len(uint8_t type, uint8_t hint)
{
    switch (type) {
    case HB_T_HELLO: return HB_HELLO_LEN;
    case HB_T_SYNC: return HB_SYNC_LEN;
    case HB_T_ENTER_BOOTLOADER: return HB_ENTER_BOOTLOADER_LEN;
    case HB_T_I2C_READ: return HB_I2C_READ_LEN;
    case HB_T_I2C_WRITE: return (uint8_t)(HB_I2C_WRITE_MIN_LEN + hint % (HB_I2C_WRITE_MAX_LEN - HB_I2C_WRITE_MIN_LEN + 1u));
    case HB_T_REPLACE_FROM: return HB_REPLACE_FROM_LEN;
    case HB_T_CMD_RTP: return HB_CMD_RTP_LEN;
    case HB_T_CMD_REG_WRITE: return HB_CMD_REG_WRITE_LEN;
    case HB_T_CMD_ROM_SEQ: return (uint8_t)(HB_CMD_ROM_MIN_LEN + hint % HB_CMD_ROM_MAX_ENTRIES);
    case HB_T_CMD_STOP: return HB_CMD_STOP_LEN;
    default: return 0;
    }
}

static void well_formed_frame(uint8_t op, const uint8_t **in, const uint8_t *end)
{
    uint8_t type = HOST_TYPES[op & 0x0Fu];
    uint8_t hint = 0;
    take(in, end, &hint, 1);
    uint8_t len = frame_len(type, hint);
    uint8_t p[HB_FRAME_MAX_PAYLOAD];
    take(in, end, p, len);
    bool stamped = type == HB_T_REPLACE_FROM || (type >= HB_T_CMD_RTP && type <= HB_T_CMD_STOP);
    if (stamped) {
        /* an offset from now: -32..+32 ms, so it falls due within the run */
        hb_put_u32(p, b.now + (uint32_t)(int32_t)(int16_t)hb_get_u16(p));
    }
    if (type == HB_T_ENTER_BOOTLOADER && (hint & 1u)) {
        hb_put_u32(p, HB_BOOT_MAGIC);
    }
    if (type == HB_T_HELLO && !(hint & 0x40u)) {
        p[HB_HELLO_OFF_MAJOR] = HB_PROTO_VERSION_MAJOR; /* mostly a HELLO the board takes */
    }
    uint8_t frame[HB_FRAME_MAX_LEN];
    uint8_t n = hb_frame_encode(frame, b.host_seq, type, p, len);
    b.host_seq = (hint & 0x80u) ? (uint8_t)(b.host_seq + 2u) : (uint8_t)(b.host_seq + 1u); /* sometimes a gap */
    host_bytes(frame, n);
}

static const uint8_t *identity_bytes;
static size_t identity_size;

static uint8_t read_input(void *context, uint16_t offset)
{
    (void)context;
    return offset < identity_size ? identity_bytes[offset] : 0xFFu;
}

static void identity_rules(const uint8_t *data, size_t size)
{
    uint8_t record[HB_SERIAL_RECORD_LEN], id[HB_UNIQUE_ID_LEN], serial[HB_SERIAL_MAX_LEN];
    const uint8_t *in = data, *end = data + size;
    take(&in, end, record, sizeof record);
    take(&in, end, id, sizeof id);
    uint8_t n = hb_board_serial(record, id, serial);
    if (n == 0 || n > HB_SERIAL_MAX_LEN) {
        finding("serial length out of range");
    }
    for (uint8_t i = 0; i < n; i++) {
        if (!hb_serial_char_ok(serial[i])) {
            finding("serial character outside [0-9A-Za-z._-]");
        }
    }
    identity_bytes = data;
    identity_size = size;
    uint8_t kind = hb_bootloader_kind(read_input, NULL, (uint16_t)(size < 4096u ? size : 4096u));
    if (kind != HB_BOOTLOADER_NONE && kind != HB_BOOTLOADER_CATERINA && kind != HB_BOOTLOADER_ATMEL_DFU &&
        kind != HB_BOOTLOADER_UNKNOWN) {
        finding("bootloader kind outside the protocol's values");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    identity_rules(data, size);
    memset(&b, 0, sizeof b);
    b.now = 1000;
    b.regs[DRV2605_REG_STATUS] = (uint8_t)(DRV2605_DEVICE_ID_DRV2605L << DRV2605_STATUS_DEVICE_ID_SHIFT);
    reset_chip();
    hb_hooks hooks = {
        .i2c_write = i2c_write,
        .i2c_read = i2c_read,
        .now_us = now_us,
        .arm_timer = arm,
        .disarm_timer = disarm,
        .send_frame = send_frame,
        .enter_bootloader = enter_bootloader,
    };
    hb_core_config config = {.tick_ns = 1000, .serial_len = 4, .serial = {'F', 'U', 'Z', 'Z'}};
    hb_core_init(&core, &hooks, &config);
    hb_core_start(&core);
    hb_decoder_init(&byte_wise);
    hb_decoder_init(&streaming);

    const uint8_t *in = data, *end = data + size;
    while (in < end) {
        uint8_t op = *in++;
        if (op < 0x40u) {
            uint8_t chunk[64];
            uint32_t n = take(&in, end, chunk, (op & 0x3Fu) + 1u);
            if (n) {
                host_bytes(chunk, n);
            }
        } else if (op < 0x80u) {
            advance(((op & 0x3Fu) + 1u) * STEP_US);
        } else if (op < 0xA0u) {
            uint8_t lo = 0;
            take(&in, end, &lo, 1);
            advance((((uint32_t)(op & 0x1Fu) << 8) | lo) * JUMP_UNIT_US);
        } else if (op < 0xC0u) {
            if (op & 1u) {
                b.regs[DRV2605_REG_STATUS] |= DRV2605_STATUS_OVER_TEMP;
            }
            if (op & 2u) {
                b.regs[DRV2605_REG_STATUS] |= DRV2605_STATUS_OC_DETECT;
            }
            if (op & 4u) {
                b.regs[DRV2605_REG_STATUS] &= (uint8_t)~(DRV2605_STATUS_OVER_TEMP | DRV2605_STATUS_OC_DETECT);
            }
            if (op & 8u) {
                uint8_t n = 0;
                take(&in, end, &n, 1);
                b.nacks_left = n & 15u;
            }
            if (op & 16u) {
                b.regs[DRV2605_REG_GO] = 0;
                note_chip();
            }
        } else {
            well_formed_frame(op, &in, end);
        }
    }
    return 0;
}
