/* Frame encoding/decoding, the CRC, and the per-type length table. */
#include <string.h>

#include "check.h"
#include "hapbridge/frame.h"
#include "hapbridge/queue.h"
#include "tests.h"

static hb_decode_result feed(hb_decoder *d, const uint8_t *bytes, uint32_t n, uint32_t *frames)
{
    hb_decode_result last = HB_DECODE_MORE;
    for (uint32_t i = 0; i < n; i++) {
        hb_decode_result r = hb_decoder_push(d, bytes[i]);
        if (r != HB_DECODE_MORE) {
            last = r;
        }
        if (r == HB_DECODE_FRAME && frames) {
            (*frames)++;
        }
    }
    return last;
}

static bool crc16_matches_ccitt_false_check_value(void)
{
    CHECK(hb_crc16((const uint8_t *)"123456789", 9) == 0x29B1u);
    return true;
}

/* The polynomial's definition, one bit at a time: what the byte-wise form must equal. */
static uint16_t crc16_bitwise(uint16_t crc, uint8_t byte)
{
    uint32_t c = crc ^ ((uint32_t)byte << 8);
    for (int bit = 0; bit < 8; bit++) {
        c = (c & 0x8000u) ? ((c << 1) ^ 0x1021u) : (c << 1);
    }
    return (uint16_t)(c & 0xFFFFu);
}

static bool crc16_bytewise_update_equals_the_bitwise_definition(void)
{
    for (uint32_t crc = 0; crc <= 0xFFFFu; crc += 7u) {
        for (uint32_t byte = 0; byte <= 0xFFu; byte++) {
            uint16_t want = crc16_bitwise((uint16_t)crc, (uint8_t)byte);
            uint16_t got = hb_crc16_update((uint16_t)crc, (uint8_t)byte);
            CHECK(want == got);
        }
    }
    return true;
}

static bool documented_example_frame_encodes_byte_for_byte(void)
{
    /* PROTOCOL.md's worked examples, first: RTP amplitude 0x7F at board time
     * 1,000,000 us, host sequence 5. */
    uint8_t p[HB_CMD_RTP_LEN];
    hb_put_u32(p, 1000000u);
    p[HB_CMD_RTP_OFF_AMPLITUDE] = 0x7F;
    uint8_t frame[HB_FRAME_MAX_LEN];
    uint8_t n = hb_frame_encode(frame, 5, HB_T_CMD_RTP, p, sizeof p);
    const uint8_t want[] = {0xA5, 0x05, 0x05, 0x10, 0x40, 0x42, 0x0F, 0x00, 0x7F, 0x76, 0x2B};
    CHECK(n == sizeof want);
    CHECK(memcmp(frame, want, n) == 0);

    uint8_t hello[HB_HELLO_LEN] = {1, 0};
    hb_put_u16(&hello[HB_HELLO_OFF_KEEPALIVE_MS], 500);
    hb_put_u16(&hello[HB_HELLO_OFF_MAX_DRIVE_MS], 0);
    const uint8_t want_hello[] = {0xA5, 0x06, 0x00, 0x01, 0x01, 0x00, 0xF4, 0x01, 0x00, 0x00, 0xB7, 0xDD};
    n = hb_frame_encode(frame, 0, HB_T_HELLO, hello, sizeof hello);
    CHECK(n == sizeof want_hello && memcmp(frame, want_hello, n) == 0);

    const uint8_t nak[HB_NAK_LEN] = {6, HB_NAK_SEQ_GAP, 5, HB_T_CMD_RTP};
    const uint8_t want_nak[] = {0xA5, 0x04, 0x03, 0xE0, 0x06, 0x03, 0x05, 0x10, 0xE9, 0x56};
    n = hb_frame_encode(frame, 3, HB_T_NAK, nak, sizeof nak);
    CHECK(n == sizeof want_nak && memcmp(frame, want_nak, n) == 0);
    return true;
}

static bool decoder_accepts_a_valid_frame(void)
{
    uint8_t frame[HB_FRAME_MAX_LEN], p[3] = {1, 2, 3};
    uint8_t n = hb_frame_encode(frame, 9, HB_T_SYNC, p, sizeof p);
    hb_decoder d;
    hb_decoder_init(&d);
    CHECK(feed(&d, frame, n, NULL) == HB_DECODE_FRAME);
    CHECK(hb_decoder_seq(&d) == 9 && hb_decoder_type(&d) == HB_T_SYNC && hb_decoder_len(&d) == 3);
    CHECK(memcmp(hb_decoder_payload(&d), p, 3) == 0);
    return true;
}

static bool decoder_skips_noise_before_the_magic(void)
{
    uint8_t buf[8 + HB_FRAME_MAX_LEN] = {0x00, 0x13, 0xFF, 0x5A};
    uint8_t n = hb_frame_encode(buf + 4, 1, HB_T_KEEPALIVE, NULL, 0);
    hb_decoder d;
    hb_decoder_init(&d);
    uint32_t frames = 0;
    feed(&d, buf, 4u + n, &frames);
    CHECK(frames == 1 && d.skipped == 4);
    return true;
}

static bool decoder_rejects_a_corrupted_byte(void)
{
    uint8_t frame[HB_FRAME_MAX_LEN], p[5] = {1, 2, 3, 4, 5};
    uint8_t n = hb_frame_encode(frame, 1, HB_T_CMD_RTP, p, sizeof p);
    for (uint8_t i = 2; i < n; i++) { /* every byte after the length */
        uint8_t bad[HB_FRAME_MAX_LEN];
        memcpy(bad, frame, n);
        bad[i] ^= 0x10;
        hb_decoder d;
        hb_decoder_init(&d);
        CHECK(feed(&d, bad, n, NULL) == HB_DECODE_BAD_CRC);
    }
    return true;
}

static bool decoder_rejects_oversized_length_and_resyncs_on_next_frame(void)
{
    uint8_t buf[2 * HB_FRAME_MAX_LEN] = {HB_FRAME_MAGIC, HB_FRAME_MAX_PAYLOAD + 1u};
    uint8_t n = hb_frame_encode(buf + 2, 3, HB_T_KEEPALIVE, NULL, 0);
    hb_decoder d;
    hb_decoder_init(&d);
    CHECK(hb_decoder_push(&d, buf[0]) == HB_DECODE_MORE);
    CHECK(hb_decoder_push(&d, buf[1]) == HB_DECODE_BAD_LENGTH);
    uint32_t frames = 0;
    feed(&d, buf + 2, n, &frames);
    CHECK(frames == 1 && hb_decoder_seq(&d) == 3);
    return true;
}

static bool decoder_takes_a_magic_in_the_length_byte_as_a_new_start(void)
{
    uint8_t buf[1 + HB_FRAME_MAX_LEN] = {HB_FRAME_MAGIC};
    uint8_t n = hb_frame_encode(buf + 1, 4, HB_T_KEEPALIVE, NULL, 0);
    hb_decoder d;
    hb_decoder_init(&d);
    CHECK(hb_decoder_push(&d, buf[0]) == HB_DECODE_MORE);
    CHECK(hb_decoder_push(&d, buf[1]) == HB_DECODE_BAD_LENGTH); /* 0xA5 > 48 */
    uint32_t frames = 0;
    feed(&d, buf + 2, (uint32_t)(n - 1u), &frames);
    CHECK(frames == 1 && hb_decoder_seq(&d) == 4);
    return true;
}

static bool decoder_joins_a_frame_split_across_packets(void)
{
    uint8_t frame[HB_FRAME_MAX_LEN], p[HB_FRAME_MAX_PAYLOAD];
    memset(p, 0xA5, sizeof p); /* payload full of magic bytes */
    uint8_t n = hb_frame_encode(frame, 7, HB_T_CMD_ROM_SEQ, p, sizeof p);
    for (uint8_t split = 1; split < n; split++) {
        hb_decoder d;
        hb_decoder_init(&d);
        uint32_t frames = 0;
        feed(&d, frame, split, &frames);
        CHECK(frames == 0);
        feed(&d, frame + split, (uint32_t)(n - split), &frames);
        CHECK(frames == 1 && hb_decoder_len(&d) == HB_FRAME_MAX_PAYLOAD);
    }
    return true;
}

static bool encoder_refuses_oversized_payload(void)
{
    uint8_t frame[HB_FRAME_MAX_LEN + 8], p[HB_FRAME_MAX_PAYLOAD + 1] = {0};
    CHECK(hb_frame_encode(frame, 0, HB_T_SYNC, p, sizeof p) == 0);
    return true;
}

static bool length_table_accepts_only_documented_lengths(void)
{
    CHECK(hb_host_payload_len_ok(HB_T_CMD_RTP, HB_CMD_RTP_LEN));
    CHECK(!hb_host_payload_len_ok(HB_T_CMD_RTP, HB_CMD_RTP_LEN + 1));
    CHECK(!hb_host_payload_len_ok(HB_T_CMD_ROM_SEQ, HB_CMD_ROM_MIN_LEN - 1));
    CHECK(hb_host_payload_len_ok(HB_T_CMD_ROM_SEQ, HB_CMD_ROM_MAX_LEN));
    CHECK(!hb_host_payload_len_ok(HB_T_CMD_ROM_SEQ, HB_CMD_ROM_MAX_LEN + 1));
    CHECK(!hb_host_payload_len_ok(HB_T_HELLO_REPLY, HB_HELLO_REPLY_LEN)); /* board-only type */
    CHECK(!hb_host_type_known(0x7E));
    return true;
}

static bool queue_keeps_fifo_order_and_reports_full(void)
{
    hb_queue q;
    hb_queue_init(&q);
    hb_cmd c = {0};
    for (uint32_t i = 0; i < HB_QUEUE_CAPACITY; i++) {
        c.at_us = i;
        CHECK(hb_queue_push(&q, &c));
    }
    CHECK(!hb_queue_push(&q, &c) && hb_queue_free(&q) == 0);
    for (uint32_t i = 0; i < 5; i++) {
        CHECK(hb_queue_peek(&q)->at_us == i);
        hb_queue_drop_head(&q);
    }
    c.at_us = 100;
    CHECK(hb_queue_push(&q, &c) && hb_queue_peek_last(&q)->at_us == 100);
    CHECK(hb_queue_flush(&q) == HB_QUEUE_CAPACITY - 4u && hb_queue_peek(&q) == NULL);
    return true;
}


/* hb_core_receive decodes in runs (hb_decoder_push_bytes); whatever the
 * chunking, it must see exactly what a byte-at-a-time decoder sees: the same
 * results in the same order, the same frames, the same bytes skipped. */
static bool run_decoding_equals_byte_at_a_time(void)
{
    uint8_t stream[400];
    uint32_t n = 0;
    uint32_t lcg = 7u;
    for (uint8_t k = 0; k < 24u; k++) {
        uint8_t p[HB_FRAME_MAX_PAYLOAD];
        uint8_t len = (uint8_t)(k % 9u);
        for (uint8_t i = 0; i < len; i++) {
            lcg = lcg * 1103515245u + 12345u;
            p[i] = (uint8_t)(lcg >> 16);
        }
        n += hb_frame_encode(&stream[n], k, 0x10, p, len);
        if (k % 5u == 1u) {
            stream[n - 1u] ^= 0x40u; /* bad CRC */
        } else if (k % 7u == 2u) {
            stream[n++] = HB_FRAME_MAGIC; /* a false start with an impossible length */
            stream[n++] = 0xC8;
        } else if (k % 4u == 3u) {
            stream[n++] = 0x00; /* noise */
        }
    }
    hb_decode_result want[400];
    uint8_t want_seq[400];
    uint32_t nwant = 0;
    hb_decoder ref;
    hb_decoder_init(&ref);
    for (uint32_t i = 0; i < n; i++) {
        hb_decode_result r = hb_decoder_push(&ref, stream[i]);
        if (r != HB_DECODE_MORE) {
            want_seq[nwant] = hb_decoder_seq(&ref);
            want[nwant++] = r;
        }
    }
    CHECK(nwant > 24u);
    for (uint32_t chunk = 1; chunk <= 70u; chunk++) {
        hb_decoder d;
        hb_decoder_init(&d);
        uint32_t got = 0;
        for (uint32_t off = 0; off < n; off += chunk) {
            uint32_t left = n - off < chunk ? n - off : chunk;
            const uint8_t *at = &stream[off];
            while (left) {
                uint32_t used;
                hb_decode_result r = hb_decoder_push_bytes(&d, at, left, &used);
                CHECK(used >= 1u && used <= left);
                CHECK(r != HB_DECODE_MORE || used == left);
                at += used;
                left -= used;
                if (r != HB_DECODE_MORE) {
                    CHECK(got < nwant && r == want[got] && hb_decoder_seq(&d) == want_seq[got]);
                    got++;
                }
            }
        }
        CHECK(got == nwant);
        CHECK(d.skipped == ref.skipped && d.pos == ref.pos);
    }
    return true;
}

const test_case frame_tests[] = {
    {"crc16 matches the CCITT-FALSE check value", crc16_matches_ccitt_false_check_value},
    {"crc16 byte-wise update equals the bitwise definition", crc16_bytewise_update_equals_the_bitwise_definition},
    {"documented example frames encode byte for byte", documented_example_frame_encodes_byte_for_byte},
    {"decoder accepts a valid frame", decoder_accepts_a_valid_frame},
    {"run decoding equals byte-at-a-time decoding at any chunking", run_decoding_equals_byte_at_a_time},
    {"decoder skips noise before the magic", decoder_skips_noise_before_the_magic},
    {"decoder rejects any corrupted byte", decoder_rejects_a_corrupted_byte},
    {"decoder rejects an oversized length and resyncs", decoder_rejects_oversized_length_and_resyncs_on_next_frame},
    {"decoder takes a magic in the length byte as a new start", decoder_takes_a_magic_in_the_length_byte_as_a_new_start},
    {"decoder joins a frame split across packets", decoder_joins_a_frame_split_across_packets},
    {"encoder refuses an oversized payload", encoder_refuses_oversized_payload},
    {"length table accepts only documented lengths", length_table_accepts_only_documented_lengths},
    {"queue keeps FIFO order and reports full", queue_keeps_fifo_order_and_reports_full},
    TEST_LIST_END,
};
