/*
 * The probe's commands about what goes over the wire, which every backing of
 * the emulation must answer as the firmware's usb.c does on a board:
 *
 *   chapter9          one fixed conversation: standard requests on endpoint 0
 *                     (USB 2.0 chapter 9, answered and STALLed ones), then HELLO,
 *                     QUEUE_STATUS_REQ and a frame type nobody knows over bulk.
 *                     One line per reply; a test runs it on every backing and
 *                     compares the lines byte for byte.
 *   halt-rounds N     N times: SET_FEATURE(ENDPOINT_HALT) on bulk IN, a read (it
 *                     must STALL), a clear-halt, then a SYNC round trip whose reads
 *                     must all succeed.
 *   halt-pending      SET_FEATURE(ENDPOINT_HALT) on bulk IN, two SYNCs sent while it
 *                     is halted (the first reply fills the endpoint's bank, the
 *                     second waits in the port's ring), a read (it must STALL), a
 *                     clear-halt, then reads until the second reply comes: which of
 *                     the two a clear-halt leaves.
 *   burst TYPE N      HELLO, then N frames of TYPE in one bulk OUT transfer: how many
 *                     replies the board sent back (the rest did not fit its IN ring).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hapbridge/protocol.h"
#include "hapbridge/usb_identity.h"
#include "probe.h"

#define GET_STATUS 0x00u
#define CLEAR_FEATURE 0x01u
#define SET_FEATURE 0x03u
#define GET_DESCRIPTOR 0x06u
#define SET_CONFIGURATION 0x09u
#define GET_CONFIGURATION 0x08u
#define GET_INTERFACE 0x0Au
#define SET_INTERFACE 0x0Bu
#define ENDPOINT_HALT 0u
#define DEVICE_REMOTE_WAKEUP 1u

typedef struct request {
    const char *name;
    uint8_t bm_request_type, b_request;
    uint16_t w_value, w_index, w_length;
} request;

/* In order: the halt requests change what the GET_STATUS after them answers. */
static const request conversation[] = {
    {"status-device", 0x80, GET_STATUS, 0, 0, 2},
    {"status-interface-0", 0x81, GET_STATUS, 0, HB_USB_INTERFACE_NUMBER, 2},
    {"status-interface-absent", 0x81, GET_STATUS, 0, 1, 2},
    {"status-ep-0x00", 0x82, GET_STATUS, 0, 0x00, 2},
    {"status-ep-0x80", 0x82, GET_STATUS, 0, 0x80, 2},
    {"status-ep-bulk-in", 0x82, GET_STATUS, 0, HB_USB_EP_BULK_IN, 2},
    {"status-ep-bulk-out", 0x82, GET_STATUS, 0, HB_USB_EP_BULK_OUT, 2},
    {"status-ep-0x01-absent", 0x82, GET_STATUS, 0, 0x01, 2},
    {"status-ep-0x82-absent", 0x82, GET_STATUS, 0, 0x82, 2},
    {"status-ep-0x83-absent", 0x82, GET_STATUS, 0, 0x83, 2},
    {"status-other-recipient", 0x83, GET_STATUS, 0, 0, 2},
    {"descriptor-device", 0x80, GET_DESCRIPTOR, 0x0100, 0, 18},
    {"descriptor-device-long", 0x80, GET_DESCRIPTOR, 0x0100, 0, 255},
    {"descriptor-device-short", 0x80, GET_DESCRIPTOR, 0x0100, 0, 8},
    {"descriptor-device-index-1", 0x80, GET_DESCRIPTOR, 0x0101, 0, 18},
    {"descriptor-configuration-head", 0x80, GET_DESCRIPTOR, 0x0200, 0, 9},
    {"descriptor-configuration", 0x80, GET_DESCRIPTOR, 0x0200, 0, 255},
    {"descriptor-configuration-index-1", 0x80, GET_DESCRIPTOR, 0x0201, 0, 255},
    {"descriptor-configuration-index-255", 0x80, GET_DESCRIPTOR, 0x02FF, 0, 255},
    {"descriptor-string-0", 0x80, GET_DESCRIPTOR, 0x0300, 0, 255},
    {"descriptor-string-manufacturer", 0x80, GET_DESCRIPTOR, 0x0300 | HB_USB_STRING_MANUFACTURER, HB_USB_LANGID_EN_US, 255},
    {"descriptor-string-product", 0x80, GET_DESCRIPTOR, 0x0300 | HB_USB_STRING_PRODUCT, HB_USB_LANGID_EN_US, 255},
    {"descriptor-string-serial", 0x80, GET_DESCRIPTOR, 0x0300 | HB_USB_STRING_SERIAL, HB_USB_LANGID_EN_US, 255},
    {"descriptor-string-serial-short", 0x80, GET_DESCRIPTOR, 0x0300 | HB_USB_STRING_SERIAL, HB_USB_LANGID_EN_US, 2},
    {"descriptor-string-absent", 0x80, GET_DESCRIPTOR, 0x0304, HB_USB_LANGID_EN_US, 255},
    {"descriptor-device-qualifier", 0x80, GET_DESCRIPTOR, 0x0600, 0, 10},
    {"descriptor-other-speed", 0x80, GET_DESCRIPTOR, 0x0700, 0, 255},
    {"descriptor-bos", 0x80, GET_DESCRIPTOR, 0x0F00, 0, 5},
    {"descriptor-unknown-type", 0x80, GET_DESCRIPTOR, 0x2100, 0, 9},
    {"get-configuration", 0x80, GET_CONFIGURATION, 0, 0, 1},
    {"get-interface-0", 0x81, GET_INTERFACE, 0, HB_USB_INTERFACE_NUMBER, 1},
    {"get-interface-absent", 0x81, GET_INTERFACE, 0, 1, 1},
    {"set-interface-0-alt-0", 0x01, SET_INTERFACE, 0, HB_USB_INTERFACE_NUMBER, 0},
    {"set-interface-0-alt-1", 0x01, SET_INTERFACE, 1, HB_USB_INTERFACE_NUMBER, 0},
    {"set-interface-absent", 0x01, SET_INTERFACE, 0, 1, 0},
    {"set-halt-bulk-in", 0x02, SET_FEATURE, ENDPOINT_HALT, HB_USB_EP_BULK_IN, 0},
    {"status-bulk-in-halted", 0x82, GET_STATUS, 0, HB_USB_EP_BULK_IN, 2},
    {"status-bulk-out-not-halted", 0x82, GET_STATUS, 0, HB_USB_EP_BULK_OUT, 2},
    {"clear-halt-bulk-in", 0x02, CLEAR_FEATURE, ENDPOINT_HALT, HB_USB_EP_BULK_IN, 0},
    {"status-bulk-in-cleared", 0x82, GET_STATUS, 0, HB_USB_EP_BULK_IN, 2},
    {"set-halt-bulk-out", 0x02, SET_FEATURE, ENDPOINT_HALT, HB_USB_EP_BULK_OUT, 0},
    {"status-bulk-out-halted", 0x82, GET_STATUS, 0, HB_USB_EP_BULK_OUT, 2},
    {"clear-halt-bulk-out", 0x02, CLEAR_FEATURE, ENDPOINT_HALT, HB_USB_EP_BULK_OUT, 0},
    {"status-bulk-out-cleared", 0x82, GET_STATUS, 0, HB_USB_EP_BULK_OUT, 2},
    {"set-halt-ep-0x01-absent", 0x02, SET_FEATURE, ENDPOINT_HALT, 0x01, 0},
    {"set-halt-ep-0x82-absent", 0x02, SET_FEATURE, ENDPOINT_HALT, 0x82, 0},
    {"clear-halt-ep-0x01-absent", 0x02, CLEAR_FEATURE, ENDPOINT_HALT, 0x01, 0},
    {"set-feature-endpoint-unknown", 0x02, SET_FEATURE, 7, HB_USB_EP_BULK_IN, 0},
    {"set-remote-wakeup", 0x00, SET_FEATURE, DEVICE_REMOTE_WAKEUP, 0, 0},
    {"clear-remote-wakeup", 0x00, CLEAR_FEATURE, DEVICE_REMOTE_WAKEUP, 0, 0},
    {"set-configuration-absent", 0x00, SET_CONFIGURATION, 2, 0, 0},
    {"status-device-after", 0x80, GET_STATUS, 0, 0, 2},
    {"vendor-in", 0xC0, 0x01, 0, 0, 4},
    {"vendor-out", 0x40, 0x01, 0, 0, 0},
    {"class-interface-in", 0xA1, 0x01, 0, 0, 4},
};

static void hex_line(const uint8_t *bytes, int n)
{
    for (int i = 0; i < n; i++) {
        printf("%02x", bytes[i]);
    }
}

/* A reply frame as a line.  HELLO_REPLY's fields that are facts of the board
 * rather than of its USB side are zeroed, and named: the board time (no two runs
 * share it), the timer's resolution (the core's clock counts whole µs, the
 * ATmega32U4's Timer1 half µs), the bootloader found (the ELF board has
 * Caterina in its boot section, the core board none) and the latch lead (the
 * ELF's I2C takes board time, the core board's none). */
static void print_frame(const char *name, int type, uint8_t *payload, uint8_t len)
{
    const char *masked = "";
    if (type == HB_T_HELLO_REPLY && len >= HB_HELLO_REPLY_OFF_BOOTLOADER + 1u) {
        memset(&payload[HB_HELLO_REPLY_OFF_BOARD_US], 0, 4);
        memset(&payload[HB_HELLO_REPLY_OFF_TICK_NS], 0, 2);
        payload[HB_HELLO_REPLY_OFF_BOOTLOADER] = 0;
        masked = " masked=board_us,tick_ns,bootloader";
        if (len >= HB_HELLO_REPLY_OFF_LATCH_LEAD_US + 2u) {
            memset(&payload[HB_HELLO_REPLY_OFF_LATCH_LEAD_US], 0, 2);
            masked = " masked=board_us,tick_ns,bootloader,latch_lead";
        }
    }
    printf("frame name=%s type=0x%02x%s payload=", name, (unsigned)type, masked);
    hex_line(payload, len);
    printf("\n");
}

int cmd_chapter9(libusb_context *ctx)
{
    libusb_device_handle *h = open_board(ctx, NULL);
    for (size_t i = 0; i < sizeof conversation / sizeof conversation[0]; i++) {
        const request *q = &conversation[i];
        uint8_t data[256] = {0};
        int r = libusb_control_transfer(h, q->bm_request_type, q->b_request, q->w_value, q->w_index, data, q->w_length,
                                        TIMEOUT_MS);
        printf("control name=%s setup=%02x%02x%04x%04x%04x ", q->name, q->bm_request_type, q->b_request, q->w_value,
               q->w_index, q->w_length);
        if (r >= 0) {
            printf("result=ok data=");
            hex_line(data, r);
            printf("\n");
        } else {
            printf("result=%s\n", r == LIBUSB_ERROR_PIPE ? "stall" : libusb_error_name(r));
        }
    }
    rx r = {.len = 0};
    uint8_t reply[HB_FRAME_MAX_PAYLOAD];
    uint8_t len = hello(h, &r, 0, reply);
    print_frame("hello", HB_T_HELLO_REPLY, reply, len);
    send_frame(h, HB_T_QUEUE_STATUS_REQ, NULL, 0);
    wait_frame(h, &r, HB_T_QUEUE_STATUS, reply, &len);
    print_frame("queue-status", HB_T_QUEUE_STATUS, reply, len);
    send_frame(h, 0x7Fu, NULL, 0); /* a type no protocol version defines: NAKed */
    wait_frame(h, &r, HB_T_NAK, reply, &len);
    print_frame("unknown-type", HB_T_NAK, reply, len);
    libusb_close(h);
    return 0;
}

/* One bulk IN read into r; the libusb result (bytes read are appended). */
static int read_some(libusb_device_handle *h, rx *r, unsigned timeout_ms)
{
    int got = 0;
    if (r->len + (int)HB_USB_BULK_SIZE > (int)sizeof r->bytes) {
        r->len = 0; /* nothing a round waits for is that far back */
    }
    int e = libusb_bulk_transfer(h, HB_USB_EP_BULK_IN, r->bytes + r->len, HB_USB_BULK_SIZE, &got, timeout_ms);
    r->len += got;
    return e;
}

static int halt_bulk_in(libusb_device_handle *h, uint8_t request_code)
{
    return libusb_control_transfer(h, 0x02, request_code, ENDPOINT_HALT, HB_USB_EP_BULK_IN, NULL, 0, TIMEOUT_MS);
}

int cmd_halt_rounds(libusb_context *ctx, int rounds)
{
    libusb_device_handle *h = open_board(ctx, NULL);
    rx r = {.len = 0};
    uint8_t reply[HB_FRAME_MAX_PAYLOAD];
    hello(h, &r, 0, reply);
    int stalled = 0, failures = 0, failed_rounds = 0;
    for (int round = 0; round < rounds; round++) {
        check(halt_bulk_in(h, SET_FEATURE), "SET_FEATURE(ENDPOINT_HALT)");
        if (read_some(h, &r, TIMEOUT_MS) == LIBUSB_ERROR_PIPE) {
            stalled++;
        }
        check(libusb_clear_halt(h, HB_USB_EP_BULK_IN), "libusb_clear_halt");
        r.len = 0;
        uint8_t sync[HB_SYNC_LEN];
        uint32_t token = 0x4A170000u + (uint32_t)round;
        hb_put_u32(&sync[HB_SYNC_OFF_TOKEN], token);
        send_frame(h, HB_T_SYNC, sync, sizeof sync);
        int failed = 0;
        double deadline = now_us() + GUARD_SECONDS * 1e6;
        for (;;) {
            uint8_t len;
            int t = take_frame(&r, reply, &len);
            if (t == HB_T_SYNC_REPLY && hb_get_u32(&reply[HB_SYNC_REPLY_OFF_TOKEN]) == token) {
                break;
            }
            if (t >= 0) {
                continue;
            }
            if (now_us() > deadline) {
                die("round %d: no SYNC_REPLY within %.0f s", round, GUARD_SECONDS);
            }
            int e = read_some(h, &r, TIMEOUT_MS);
            if (e == LIBUSB_ERROR_PIPE) {
                failed++;
            } else if (e < 0 && e != LIBUSB_ERROR_TIMEOUT) {
                check(e, "bulk IN");
            }
        }
        if (failed) {
            printf("halt-failure round=%d epipe_reads=%d\n", round, failed);
            failures += failed;
            failed_rounds++;
        }
    }
    printf("halt rounds=%d stalled=%d failed_rounds=%d epipe_reads=%d\n", rounds, stalled, failed_rounds, failures);
    libusb_close(h);
    return 0;
}

int cmd_halt_pending(libusb_context *ctx)
{
    libusb_device_handle *h = open_board(ctx, NULL);
    rx r = {.len = 0};
    uint8_t reply[HB_FRAME_MAX_PAYLOAD];
    hello(h, &r, 0, reply);
    check(halt_bulk_in(h, SET_FEATURE), "SET_FEATURE(ENDPOINT_HALT)");
    /* B's OUT transfer completes only once the board took A's packet, answered A
     * (its reply fills the free bank) and took B (its reply waits in the ring). */
    const uint32_t tokens[2] = {0x5E4D0001u, 0x5E4D0002u};
    for (int i = 0; i < 2; i++) {
        uint8_t sync[HB_SYNC_LEN];
        hb_put_u32(&sync[HB_SYNC_OFF_TOKEN], tokens[i]);
        send_frame(h, HB_T_SYNC, sync, sizeof sync);
    }
    r.len = 0;
    int stalled = read_some(h, &r, TIMEOUT_MS) == LIBUSB_ERROR_PIPE;
    check(libusb_clear_halt(h, HB_USB_EP_BULK_IN), "libusb_clear_halt");
    int seen[2] = {0, 0}, epipe = 0;
    double deadline = now_us() + GUARD_SECONDS * 1e6;
    while (!seen[1]) {
        uint8_t len;
        int t = take_frame(&r, reply, &len);
        if (t == HB_T_SYNC_REPLY) {
            uint32_t token = hb_get_u32(&reply[HB_SYNC_REPLY_OFF_TOKEN]);
            for (int i = 0; i < 2; i++) {
                seen[i] += token == tokens[i];
            }
            continue;
        }
        if (t >= 0) {
            continue;
        }
        if (now_us() > deadline) {
            die("no reply to the second SYNC within %.0f s of the clear-halt", GUARD_SECONDS);
        }
        int e = read_some(h, &r, TIMEOUT_MS);
        if (e == LIBUSB_ERROR_PIPE) {
            epipe++;
        } else if (e < 0 && e != LIBUSB_ERROR_TIMEOUT) {
            check(e, "bulk IN");
        }
    }
    printf("pending stalled=%d banked_reply=%d ring_reply=%d epipe_reads=%d\n", stalled, seen[0], seen[1], epipe);
    libusb_close(h);
    return 0;
}

/* The request a burst repeats: a payload that makes the board answer it. */
static uint8_t burst_payload(uint8_t type, int i, uint8_t *p)
{
    switch (type) {
    case HB_T_HELLO:
        memset(p, 0, HB_HELLO_LEN);
        p[HB_HELLO_OFF_MAJOR] = HB_PROTO_VERSION_MAJOR;
        p[HB_HELLO_OFF_MINOR] = HB_PROTO_VERSION_MINOR;
        return HB_HELLO_LEN;
    case HB_T_SYNC:
        hb_put_u32(&p[HB_SYNC_OFF_TOKEN], 0xB0000000u + (uint32_t)i);
        return HB_SYNC_LEN;
    default:
        return 0;
    }
}

int cmd_burst(libusb_context *ctx, uint8_t type, int count)
{
    libusb_device_handle *h = open_board(ctx, NULL);
    rx r = {.len = 0};
    uint8_t reply[HB_FRAME_MAX_PAYLOAD];
    hello(h, &r, 0, reply);
    uint8_t all[4096];
    int n = 0;
    for (int i = 0; i < count; i++) {
        uint8_t p[HB_FRAME_MAX_PAYLOAD];
        uint8_t plen = burst_payload(type, i, p);
        if (n + (int)HB_FRAME_MAX_LEN > (int)sizeof all) {
            die("burst: at most %zu bytes", sizeof all);
        }
        n += hb_frame_encode(&all[n], host_seq++, type, p, plen);
    }
    int sent = 0;
    check(libusb_bulk_transfer(h, HB_USB_EP_BULK_OUT, all, n, &sent, TIMEOUT_MS), "bulk OUT");
    /* A SYNC after the burst marks its end: every reply to the burst is ahead of the
     * marker's (the board answers in order).  A marker that did not fit the ring either
     * is sent again once a read comes back empty. */
    int replies = 0, markers = 0;
    double deadline = now_us() + GUARD_SECONDS * 1e6;
    uint32_t token = 0;
    for (;;) {
        uint8_t len;
        int t = take_frame(&r, reply, &len);
        if (t == HB_T_SYNC_REPLY && markers > 0 && hb_get_u32(&reply[HB_SYNC_REPLY_OFF_TOKEN]) == token) {
            break;
        }
        bool burst_sync = t == HB_T_SYNC_REPLY && (hb_get_u32(&reply[HB_SYNC_REPLY_OFF_TOKEN]) >> 24) == 0xB0u;
        if (type == HB_T_SYNC ? burst_sync : t == (int)(type | 0x80u)) {
            replies++;
            continue;
        }
        if (t >= 0) {
            continue;
        }
        if (now_us() > deadline) {
            die("burst: no end marker within %.0f s", GUARD_SECONDS);
        }
        int e = read_some(h, &r, 500);
        if (e < 0 && e != LIBUSB_ERROR_TIMEOUT) {
            check(e, "bulk IN");
        }
        if (markers == 0 || e == LIBUSB_ERROR_TIMEOUT) {
            uint8_t sync[HB_SYNC_LEN];
            token = 0x3A3C0000u + (uint32_t)markers++;
            hb_put_u32(&sync[HB_SYNC_OFF_TOKEN], token);
            send_frame(h, HB_T_SYNC, sync, sizeof sync);
        }
    }
    printf("burst type=0x%02x sent=%d bytes=%d replies=%d\n", type, count, n, replies);
    libusb_close(h);
    return 0;
}
