/* PROTOCOL.md's worked examples, spoken to the core: a client written from the
 * document alone must work.  The byte sequences are read from the .md file at
 * test time (PROTOCOL_MD, set by the Makefile), so an edit of the document
 * that breaks one fails here.  Each printed host frame must decode and be
 * taken; each printed board frame must be, byte for byte, what the core sends
 * in the situation the document describes (its own fields give the situation:
 * sequence numbers, board time, the chip's registers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fake_board.h"
#include "hapbridge/drv2605_regs.h"
#include "hapbridge/frame.h"
#include "tests.h"

#ifndef PROTOCOL_MD
#define PROTOCOL_MD "PROTOCOL.md"
#endif

#define DOC_FRAMES_MAX 32

typedef struct doc_frame {
    uint8_t bytes[HB_FRAME_MAX_LEN];
    uint8_t n;
    unsigned line;
} doc_frame;

static doc_frame doc[DOC_FRAMES_MAX];
static unsigned doc_count;
static bool doc_loaded;
static char doc_error[64];

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* A two-hex-digit token at s, ending at whitespace, a backtick or the end. */
static int byte_token(const char *s)
{
    int hi = hex_digit(s[0]), lo = hi < 0 ? -1 : hex_digit(s[1]);
    char end = lo < 0 ? 'x' : s[2];
    if (lo < 0 || !(end == ' ' || end == '\n' || end == '`' || end == 0)) {
        return -1;
    }
    return hi * 16 + lo;
}

/* Every run of byte tokens in the document that starts with the magic A5 (in
 * inline code or a code block: a run may cross a line break) is one frame. */
static bool load_doc(void)
{
    if (doc_loaded) {
        return doc_count > 0;
    }
    doc_loaded = true;
    FILE *f = fopen(PROTOCOL_MD, "r");
    if (!f) {
        snprintf(doc_error, sizeof doc_error, "cannot open %s", PROTOCOL_MD);
        return false;
    }
    static char text[65536];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    unsigned line = 1;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n') {
            line++;
        }
        bool boundary = i == 0 || text[i - 1] == '`' || text[i - 1] == '\n' || text[i - 1] == ' ';
        if (!boundary || byte_token(&text[i]) != 0xA5 || doc_count >= DOC_FRAMES_MAX) {
            continue;
        }
        doc_frame *d = &doc[doc_count++];
        d->line = line;
        size_t j = i;
        int v;
        while ((v = byte_token(&text[j])) >= 0 && d->n < HB_FRAME_MAX_LEN) {
            d->bytes[d->n++] = (uint8_t)v;
            j += 2;
            if (text[j] == '`' || text[j] == 0) {
                break;
            }
            while (text[j] == ' ' || text[j] == '\n') {
                line += text[j] == '\n';
                j++;
            }
        }
        i = j > i ? j - 1 : i;
    }
    return doc_count > 0;
}

/* The n-th frame of this type the document prints (0-based), or NULL. */
static const doc_frame *doc_find(uint8_t type, unsigned nth)
{
    for (unsigned i = 0; i < doc_count; i++) {
        if (doc[i].n > HB_FRAME_OFFSET_TYPE && doc[i].bytes[HB_FRAME_OFFSET_TYPE] == type && nth-- == 0) {
            return &doc[i];
        }
    }
    return NULL;
}

static const uint8_t *payload(const doc_frame *d) { return &d->bytes[HB_FRAME_HEADER_LEN]; }

static fake_board b;

/* The board as the document's examples describe it: a DRV2605L, 500 ns
 * ticks, the ATmega32U4's intake (its WRITE_SPACING_US, which is
 * HB_UNSTATED_WRITE_SPACING_US: the slowest port's), a Caterina bootloader
 * and the serial HB-SIM-0001. */
static void doc_board(uint32_t now_us)
{
    static const char serial[] = "HB-SIM-0001";
    hb_core_config config = {.tick_ns = 500, .write_spacing_us = HB_UNSTATED_WRITE_SPACING_US, .bootloader_kind = HB_BOOTLOADER_CATERINA};
    config.serial_len = (uint8_t)strlen(serial);
    memcpy(config.serial, serial, config.serial_len);
    fake_init_with(&b, &config);
    b.now_us = now_us;
}

/* Opens a 1.1 session whose next expected host seq is `next`. */
static void open_expecting(uint8_t next)
{
    b.host_seq = (uint8_t)(next - 1u);
    fake_hello_minor(&b, 1, 500, 0);
}

/* The core's last frame of the printed frame's type, encoded as it went on
 * the wire, equals the printed one. */
static bool board_sent(const doc_frame *want)
{
    const fake_frame *f = fake_last(&b, want->bytes[HB_FRAME_OFFSET_TYPE]);
    if (!f) {
        snprintf(check_failure, sizeof check_failure, "PROTOCOL.md line %u: the board sent no frame of type 0x%02X",
                 want->line, want->bytes[HB_FRAME_OFFSET_TYPE]);
        return false;
    }
    uint8_t got[HB_FRAME_MAX_LEN];
    uint8_t n = hb_frame_encode(got, f->seq, f->type, f->payload, f->len);
    if (n != want->n || memcmp(got, want->bytes, n) != 0) {
        char *w = check_failure;
        size_t room = sizeof check_failure;
        int k = snprintf(w, room, "PROTOCOL.md line %u: board sent", want->line);
        for (uint8_t i = 0; i < n && k > 0 && (size_t)k < room; i++) {
            k += snprintf(w + k, room - (size_t)k, " %02X", got[i]);
        }
        return false;
    }
    return true;
}

static void receive(const doc_frame *d) { hb_core_receive(&b.core, d->bytes, d->n); }

#define DOC_CHECK(cond)                                                                           \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            if (!check_failure[0]) {                                                              \
                snprintf(check_failure, sizeof check_failure, "%s:%d: %s %s", __FILE__, __LINE__, \
                         #cond, doc_error);                                                       \
            }                                                                                     \
            return false;                                                                         \
        }                                                                                         \
    } while (0)

static bool every_printed_frame_decodes_with_its_crc(void)
{
    DOC_CHECK(load_doc());
    DOC_CHECK(doc_count >= 10);
    for (unsigned i = 0; i < doc_count; i++) {
        hb_decoder dec;
        hb_decoder_init(&dec);
        uint32_t used;
        hb_decode_result r = hb_decoder_push_bytes(&dec, doc[i].bytes, doc[i].n, &used);
        if (r != HB_DECODE_FRAME || used != doc[i].n) {
            snprintf(check_failure, sizeof check_failure, "PROTOCOL.md line %u: %u bytes do not decode as one frame (%d)",
                     doc[i].line, doc[i].n, (int)r);
            return false;
        }
    }
    return true;
}

/* The stamped RTP (host seq 5): taken in a session expecting 5, and RTP_INPUT
 * gets its amplitude at its stamp. */
static bool the_rtp_example_plays_at_its_stamp(void)
{
    DOC_CHECK(load_doc());
    const doc_frame *rtp = doc_find(HB_T_CMD_RTP, 0);
    DOC_CHECK(rtp);
    uint32_t at = hb_get_u32(&payload(rtp)[HB_CMD_OFF_AT_US]);
    doc_board(at - 5000u);
    open_expecting(rtp->bytes[HB_FRAME_OFFSET_SEQ]);
    receive(rtp);
    DOC_CHECK(fake_count(&b, HB_T_NAK) == 0);
    fake_advance(&b, 6000);
    DOC_CHECK(fake_writes_of(&b, DRV2605_REG_RTP_INPUT, payload(rtp)[HB_CMD_RTP_OFF_AMPLITUDE]) == 1);
    return true;
}

/* The NAK: a frame with the seq it names arrives while the board expects the
 * seq in its byte 2; the board's NAK is the printed one. */
static bool the_seq_gap_nak_is_what_the_board_sends(void)
{
    DOC_CHECK(load_doc());
    const doc_frame *nak = doc_find(HB_T_NAK, 0);
    DOC_CHECK(nak && payload(nak)[HB_NAK_OFF_REASON] == HB_NAK_SEQ_GAP);
    doc_board(1000000);
    open_expecting(payload(nak)[HB_NAK_OFF_EXPECTED]);
    b.core.tx_seq = nak->bytes[HB_FRAME_OFFSET_SEQ]; /* the board's own count, as printed */
    b.host_seq = payload(nak)[HB_NAK_OFF_SEQ];
    uint8_t p[HB_CMD_RTP_LEN] = {0};
    hb_put_u32(p, 1010000);
    fake_send(&b, payload(nak)[HB_NAK_OFF_TYPE], p, sizeof p);
    return board_sent(nak);
}

/* Both HELLOs open a session with the printed keep-alive; the 1.1 one, at
 * board time 1,000,000 on a fresh board, gets the printed HELLO_REPLY. */
static bool the_hellos_get_the_printed_reply(void)
{
    DOC_CHECK(load_doc());
    const doc_frame *h0 = doc_find(HB_T_HELLO, 0), *h1 = doc_find(HB_T_HELLO, 1);
    const doc_frame *reply = doc_find(HB_T_HELLO_REPLY, 0);
    DOC_CHECK(h0 && h1 && reply);
    DOC_CHECK(payload(h0)[HB_HELLO_OFF_MINOR] == 0 && payload(h1)[HB_HELLO_OFF_MINOR] == 1);
    doc_board(1000000);
    receive(h0);
    DOC_CHECK(b.core.open && fake_count(&b, HB_T_HELLO_REPLY) == 1);
    DOC_CHECK(b.core.keepalive_us == 1000u * hb_get_u16(&payload(h0)[HB_HELLO_OFF_KEEPALIVE_MS]));
    doc_board(1000000);
    receive(h1);
    return board_sent(reply);
}

/* I2C_READ (no session needed) of the chip holding the printed bytes: the
 * printed I2C_RESULT. */
static bool the_i2c_read_gets_the_printed_result(void)
{
    DOC_CHECK(load_doc());
    const doc_frame *rd = doc_find(HB_T_I2C_READ, 0), *res = doc_find(HB_T_I2C_RESULT, 0);
    DOC_CHECK(rd && res && payload(res)[HB_I2C_RESULT_OFF_SEQ] == rd->bytes[HB_FRAME_OFFSET_SEQ]);
    doc_board(1000000);
    uint8_t reg = payload(rd)[1], count = payload(rd)[2];
    memcpy(&b.regs[reg], &payload(res)[HB_I2C_RESULT_OFF_DATA], count);
    b.core.tx_seq = res->bytes[HB_FRAME_OFFSET_SEQ];
    receive(rd);
    return board_sent(res);
}

/* I2C_WRITE in a session expecting its seq: the chip takes the bytes and the
 * board answers the printed I2C_RESULT. */
static bool the_i2c_write_reaches_the_chip_and_gets_the_printed_result(void)
{
    DOC_CHECK(load_doc());
    const doc_frame *wr = doc_find(HB_T_I2C_WRITE, 0), *res = doc_find(HB_T_I2C_RESULT, 1);
    DOC_CHECK(wr && res && payload(res)[HB_I2C_RESULT_OFF_SEQ] == wr->bytes[HB_FRAME_OFFSET_SEQ]);
    doc_board(1000000);
    open_expecting(wr->bytes[HB_FRAME_OFFSET_SEQ]);
    b.core.tx_seq = res->bytes[HB_FRAME_OFFSET_SEQ];
    receive(wr);
    uint8_t reg = payload(wr)[1], n = (uint8_t)(wr->bytes[HB_FRAME_OFFSET_LEN] - HB_I2C_WRITE_OFF_DATA);
    DOC_CHECK(memcmp(&b.regs[reg], &payload(wr)[HB_I2C_WRITE_OFF_DATA], n) == 0);
    return board_sent(res);
}

/* REPLACE_FROM with as many commands queued from its stamp on as REPLACED
 * says it discarded: the printed REPLACED, free slots from the real queue. */
static bool the_replace_from_gets_the_printed_replaced(void)
{
    DOC_CHECK(load_doc());
    const doc_frame *rf = doc_find(HB_T_REPLACE_FROM, 0), *rep = doc_find(HB_T_REPLACED, 0);
    DOC_CHECK(rf && rep && payload(rep)[HB_REPLACED_OFF_SEQ] == rf->bytes[HB_FRAME_OFFSET_SEQ]);
    uint32_t from = hb_get_u32(&payload(rf)[0]);
    uint8_t discarded = payload(rep)[HB_REPLACED_OFF_DISCARDED];
    doc_board(from - 100000u);
    open_expecting((uint8_t)(rf->bytes[HB_FRAME_OFFSET_SEQ] - discarded));
    for (uint8_t i = 0; i < discarded; i++) {
        fake_rtp(&b, from + i * 1000u, 0x40);
    }
    DOC_CHECK(fake_count(&b, HB_T_NAK) == 0);
    b.core.tx_seq = rep->bytes[HB_FRAME_OFFSET_SEQ];
    receive(rf);
    return board_sent(rep);
}

/* ACCEL_STREAM on the documented board with a LIS3DH fitted (the unit
 * tests' counting sensor), in a session expecting its seq at board time
 * 1,000,000: the printed ACK, then the printed first ACCEL_SAMPLES. */
static bool the_accel_stream_gets_the_printed_ack_and_samples(void)
{
    DOC_CHECK(load_doc());
    const doc_frame *st = doc_find(HB_T_ACCEL_STREAM, 0), *samples = doc_find(HB_T_ACCEL_SAMPLES, 0);
    const doc_frame *ack = NULL;
    for (unsigned i = 0; !ack; i++) {
        const doc_frame *a = doc_find(HB_T_ACK, i);
        DOC_CHECK(a);
        ack = payload(a)[HB_ACK_OFF_TYPE] == HB_T_ACCEL_STREAM ? a : NULL;
    }
    DOC_CHECK(st && samples && payload(ack)[HB_ACK_OFF_SEQ] == st->bytes[HB_FRAME_OFFSET_SEQ]);
    doc_board(1000000);
    fake_fit_lis3dh(&b);
    open_expecting(st->bytes[HB_FRAME_OFFSET_SEQ]);
    b.core.tx_seq = ack->bytes[HB_FRAME_OFFSET_SEQ];
    receive(st);
    DOC_CHECK(board_sent(ack));
    while (!fake_count(&b, HB_T_ACCEL_SAMPLES) && b.now_us < 1100000u) {
        fake_advance(&b, 10);
    }
    return board_sent(samples);
}

const test_case protocol_doc_tests[] = {
    {"PROTOCOL.md: every printed frame decodes, CRC and all", every_printed_frame_decodes_with_its_crc},
    {"PROTOCOL.md: the stamped RTP example plays at its stamp", the_rtp_example_plays_at_its_stamp},
    {"PROTOCOL.md: the SEQ_GAP NAK example is what the board sends", the_seq_gap_nak_is_what_the_board_sends},
    {"PROTOCOL.md: the HELLOs open a session and get the printed HELLO_REPLY", the_hellos_get_the_printed_reply},
    {"PROTOCOL.md: the I2C_READ example gets the printed I2C_RESULT", the_i2c_read_gets_the_printed_result},
    {"PROTOCOL.md: the I2C_WRITE example reaches the chip and gets the printed I2C_RESULT",
     the_i2c_write_reaches_the_chip_and_gets_the_printed_result},
    {"PROTOCOL.md: the REPLACE_FROM example gets the printed REPLACED", the_replace_from_gets_the_printed_replaced},
    {"PROTOCOL.md: the ACCEL_STREAM example gets the printed ACK and first ACCEL_SAMPLES",
     the_accel_stream_gets_the_printed_ack_and_samples},
    TEST_LIST_END,
};
