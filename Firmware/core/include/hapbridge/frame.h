/*
 * Byte-stream frame decoder.  Fed one byte at a time so frames may share or
 * straddle transport packets; finds the magic, bounds the length before
 * buffering, and checks the CRC.  Length-per-type and sequence checks belong
 * to the dispatcher (core.c), which has the session state.
 */
#ifndef HAPBRIDGE_FRAME_H
#define HAPBRIDGE_FRAME_H

#include <stdint.h>

#include "hapbridge/protocol.h"

typedef enum hb_decode_result {
    HB_DECODE_MORE = 0,       /* byte consumed, no frame yet */
    HB_DECODE_FRAME = 1,      /* a CRC-valid frame is in the decoder */
    HB_DECODE_BAD_CRC = 2,    /* a frame completed with a CRC mismatch: discarded */
    HB_DECODE_BAD_LENGTH = 3, /* length byte above HB_FRAME_MAX_PAYLOAD: discarded */
} hb_decode_result;

typedef struct hb_decoder {
    uint8_t buf[HB_FRAME_MAX_LEN]; /* the frame being assembled, magic included */
    uint8_t pos;                   /* bytes in buf; 0 while hunting for the magic */
    uint16_t skipped;              /* bytes dropped while hunting (saturating) */
} hb_decoder;

void hb_decoder_init(hb_decoder *dec);
hb_decode_result hb_decoder_push(hb_decoder *dec, uint8_t byte);
/* The same over a run of bytes, stopping after the byte that completes (or
 * breaks) a frame: returns what hb_decoder_push returned for it, and in *used
 * how many bytes were consumed (all of them with HB_DECODE_MORE).  A frame's
 * body is copied in one loop instead of a call per byte: on the AVR the call
 * per byte was most of a frame's intake cost. */
hb_decode_result hb_decoder_push_bytes(hb_decoder *dec, const uint8_t *bytes, uint32_t len,
                                       uint32_t *used);

/* Valid after HB_DECODE_FRAME, HB_DECODE_BAD_CRC or HB_DECODE_BAD_LENGTH (as
 * received: untrusted for the latter two) until the next push. */
static inline uint8_t hb_decoder_seq(const hb_decoder *dec) { return dec->buf[HB_FRAME_OFFSET_SEQ]; }
static inline uint8_t hb_decoder_type(const hb_decoder *dec) { return dec->buf[HB_FRAME_OFFSET_TYPE]; }
static inline uint8_t hb_decoder_len(const hb_decoder *dec) { return dec->buf[HB_FRAME_OFFSET_LEN]; }
static inline const uint8_t *hb_decoder_payload(const hb_decoder *dec)
{
    return &dec->buf[HB_FRAME_OFFSET_PAYLOAD];
}

#endif /* HAPBRIDGE_FRAME_H */
