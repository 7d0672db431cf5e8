#include "line_io.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void line_out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout); /* the host reads line by line: never leave one in a buffer */
}

void hex_encode(char *out, const uint8_t *bytes, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15u];
    }
    out[2 * n] = 0;
}

void hex_encode_register_access(char *out, uint8_t reg, const uint8_t *bytes, size_t n)
{
    hex_encode(out, &reg, 1);
    hex_encode(out + 2, bytes, n);
}

static int nibble(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int hex_decode(const char *text, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (; text[0] && text[0] != ' '; text += 2) {
        int hi = nibble(text[0]), lo = text[1] ? nibble(text[1]) : -1;
        if (hi < 0 || lo < 0 || n == cap) {
            return -1;
        }
        out[n++] = (uint8_t)(hi << 4 | lo);
    }
    return (int)n;
}

void line_out_peer_write(const char *peer, double stop_us, uint8_t reg, const uint8_t *bytes, size_t n)
{
    char text[2 * (1 + 256) + 1];
    if (n > 255) {
        n = 255;
    }
    hex_encode_register_access(text, reg, bytes, n);
    line_out("%s w %.4f %s", peer, stop_us, text);
}

int parse_i2c_address(const char *text)
{
    char *end = NULL;
    unsigned long a = strtoul(text, &end, 16);
    if (!*text || *end || a < 0x08u || a > 0x77u || a == 0x5Au) {
        return -1;
    }
    return (int)a;
}
