#include "hapbridge/frame.h"

void hb_decoder_init(hb_decoder *dec)
{
    dec->pos = 0;
    dec->skipped = 0;
    for (uint8_t i = 0; i < HB_FRAME_MAX_LEN; i++) {
        dec->buf[i] = 0;
    }
}

hb_decode_result hb_decoder_push(hb_decoder *dec, uint8_t byte)
{
    if (dec->pos == 0) {
        if (byte != HB_FRAME_MAGIC) {
            if (dec->skipped != UINT16_MAX) {
                dec->skipped++;
            }
            return HB_DECODE_MORE;
        }
        dec->buf[dec->pos++] = byte;
        return HB_DECODE_MORE;
    }

    if (dec->pos == HB_FRAME_OFFSET_LEN && byte > HB_FRAME_MAX_PAYLOAD) {
        /* Reject before buffering: a corrupt length must never make us wait
         * for (or swallow) up to 255 bytes of following good frames. */
        dec->buf[HB_FRAME_OFFSET_LEN] = byte;
        dec->buf[HB_FRAME_OFFSET_SEQ] = 0;
        dec->buf[HB_FRAME_OFFSET_TYPE] = 0;
        /* 0xA5 is itself an impossible length, and may be the real start. */
        dec->pos = (byte == HB_FRAME_MAGIC) ? 1u : 0u;
        return HB_DECODE_BAD_LENGTH;
    }

    dec->buf[dec->pos++] = byte;
    if (dec->pos < HB_FRAME_HEADER_LEN) {
        return HB_DECODE_MORE;
    }
    uint8_t len = dec->buf[HB_FRAME_OFFSET_LEN];
    uint8_t total = (uint8_t)(len + HB_FRAME_OVERHEAD);
    if (dec->pos < total) {
        return HB_DECODE_MORE;
    }

    dec->pos = 0;
    uint16_t want = hb_get_u16(&dec->buf[HB_FRAME_HEADER_LEN + len]);
    uint16_t got = hb_crc16(&dec->buf[HB_FRAME_OFFSET_LEN], (uint32_t)HB_FRAME_HEADER_LEN - 1u + len);
    return want == got ? HB_DECODE_FRAME : HB_DECODE_BAD_CRC;
}

hb_decode_result hb_decoder_push_bytes(hb_decoder *dec, const uint8_t *bytes, uint32_t len,
                                       uint32_t *used)
{
    /* Pointers, not a 32-bit index: this loop is on every byte the host sends. */
    const uint8_t *in = bytes;
    const uint8_t *const end = bytes + len;
    hb_decode_result r = HB_DECODE_MORE;
    while (in != end) {
        uint8_t pos = dec->pos;
        if (pos == 0 && in[0] == HB_FRAME_MAGIC && (uint32_t)(end - in) >= HB_FRAME_HEADER_LEN &&
            in[HB_FRAME_OFFSET_LEN] <= HB_FRAME_MAX_PAYLOAD) {
            /* A whole header with a valid length: taken at once, as
             * hb_decoder_push would take it byte by byte. */
            for (; pos < HB_FRAME_HEADER_LEN; pos++) {
                dec->buf[pos] = *in++;
            }
            dec->pos = pos;
        }
        if (pos >= HB_FRAME_HEADER_LEN) {
            /* Inside a frame whose length is known and bounded: its bytes up
             * to the last are stored as they come.  The last goes through
             * hb_decoder_push, which checks the CRC. */
            uint8_t run = (uint8_t)(dec->buf[HB_FRAME_OFFSET_LEN] + HB_FRAME_OVERHEAD - 1u - pos);
            if ((uint32_t)(end - in) <= run) {
                run = (uint8_t)(end - in);
            }
            uint8_t *to = &dec->buf[pos];
            dec->pos = (uint8_t)(pos + run);
            while (run--) {
                *to++ = *in++;
            }
            if (in == end) {
                break;
            }
        }
        r = hb_decoder_push(dec, *in++);
        if (r != HB_DECODE_MORE) {
            break;
        }
    }
    *used = (uint32_t)(in - bytes);
    return r;
}
