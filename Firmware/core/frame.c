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
