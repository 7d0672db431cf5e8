#include "hapbridge/board_identity.h"

#include <stdbool.h>

static uint8_t from_record(const uint8_t *record, uint8_t *out)
{
    static const char magic[] = HB_SERIAL_RECORD_MAGIC;
    for (uint8_t i = 0; i < HB_SERIAL_RECORD_MAGIC_LEN; i++) {
        if (record[HB_SERIAL_RECORD_OFF_MAGIC + i] != (uint8_t)magic[i]) {
            return 0;
        }
    }
    uint8_t n = record[HB_SERIAL_RECORD_OFF_LEN];
    if (n == 0 || n > HB_SERIAL_MAX_LEN) {
        return 0;
    }
    for (uint8_t i = 0; i < n; i++) {
        uint8_t c = record[HB_SERIAL_RECORD_OFF_TEXT + i];
        if (!hb_serial_char_ok(c)) {
            return 0;
        }
        out[i] = c;
    }
    return n;
}

/* Computed, not a table: constant tables take RAM on the AVR. */
static uint8_t hex_digit(uint8_t v) { return (uint8_t)(v < 10u ? (unsigned)'0' + v : (unsigned)'A' + v - 10u); }

static uint8_t from_unique_id(const uint8_t *id, uint8_t *out)
{
    bool all_clear = true, all_set = true;
    for (uint8_t i = 0; i < HB_UNIQUE_ID_LEN; i++) {
        all_clear = all_clear && id[i] == 0x00u;
        all_set = all_set && id[i] == 0xFFu;
    }
    if (all_clear || all_set) {
        return 0;
    }
    for (uint8_t i = 0; i < HB_UNIQUE_ID_LEN; i++) {
        out[2u * i] = hex_digit((uint8_t)(id[i] >> 4));
        out[2u * i + 1u] = hex_digit((uint8_t)(id[i] & 0x0Fu));
    }
    return (uint8_t)(2u * HB_UNIQUE_ID_LEN);
}

_Static_assert(2u * HB_UNIQUE_ID_LEN <= HB_SERIAL_MAX_LEN, "the unique ID as hex fits a serial");

uint8_t hb_board_serial(const uint8_t record[HB_SERIAL_RECORD_LEN], const uint8_t *unique_id,
                        uint8_t out[HB_SERIAL_MAX_LEN])
{
    uint8_t n = from_record(record, out);
    if (!n && unique_id) {
        n = from_unique_id(unique_id, out);
    }
    if (!n) {
        static const char fallback[] = HB_SERIAL_FALLBACK;
        for (; n < sizeof fallback - 1u; n++) {
            out[n] = (uint8_t)fallback[n];
        }
    }
    return n;
}

/* Advances a match of pattern (no proper prefix of it is also a suffix, so
 * a mismatch restarts from the current byte alone). */
static uint8_t match_step(const uint8_t *pattern, uint8_t matched, uint8_t byte)
{
    if (byte == pattern[matched]) {
        return (uint8_t)(matched + 1u);
    }
    return byte == pattern[0] ? 1u : 0u;
}

uint8_t hb_bootloader_kind(hb_read_byte_fn read_byte, void *context, uint16_t size)
{
    static const uint8_t caterina[] = {'C', 'A', 'T', 'E', 'R', 'I', 'N'};
    static const uint8_t atmel_dfu[] = {0xEB, 0x03, 0xF4, 0x2F}; /* 03EB:2FF4, little-endian */
    uint8_t in_caterina = 0, in_dfu = 0;
    bool blank = true;
    for (uint16_t i = 0; i < size; i++) {
        uint8_t b = read_byte(context, i);
        blank = blank && b == 0xFFu;
        in_caterina = match_step(caterina, in_caterina, b);
        if (in_caterina == sizeof caterina) {
            return HB_BOOTLOADER_CATERINA;
        }
        in_dfu = match_step(atmel_dfu, in_dfu, b);
        if (in_dfu == sizeof atmel_dfu) {
            return HB_BOOTLOADER_ATMEL_DFU;
        }
    }
    return blank ? HB_BOOTLOADER_NONE : HB_BOOTLOADER_UNKNOWN;
}
