/*
 * usb-emulation-probe: a minimal libusb client of the bridge board, run as
 * COMMAND under `hapbridge emulate bridge` by Tests/USBEmulationTests.  It is a
 * test instrument, not the product's transport: plain synchronous libusb calls
 * (async only where the test needs a transfer pending across an unplug), the
 * frames built with protocol.h.  Every result is one "key=value ..." line on
 * stdout; errors go to stderr with exit status 1.  The timeouts only guard
 * against hangs.
 *
 *   list                          one line per 1209:0001 device: bus, port, address, serial
 *   hello [--serial S]            HELLO over bulk OUT, HELLO_REPLY from bulk IN
 *   bench N [--serial S]          N control round trips (GET_DESCRIPTOR device) and N
 *                                 HELLO -> HELLO_REPLY round trips: percentiles in us
 *   unplug-replug                 a bulk IN pending while the control socket unplugs the
 *                                 board, then a replug, then HELLO again
 *   signal-replug                 the same through SIGUSR1 / SIGUSR2 to the emulation
 *                                 (this program's parent when it is COMMAND)
 *   bootloader                    ENTER_BOOTLOADER: its ACK, the board leaving the bus
 *                                 and coming back (a board without a bootloader to stay
 *                                 in restarts), then HELLO again
 *   hold                          claims the board's interface, says "holding", and keeps
 *                                 it until standard input ends
 *   watch                         "watching" once a hotplug callback is registered, then
 *                                 the board leaving and arriving (whoever unplugs it)
 *   silence KEEPALIVE_MS          HELLO with that keep-alive, then silence until the
 *                                 board reports its stop (EVENT_STOPPED)
 *   idle SECONDS                  a bulk IN pending and the event loop running for that
 *                                 long (for measuring the emulation's CPU use meanwhile)
 *   open                          libusb_open on every 1209:0001 device: its result
 *   noise BYTES                   HELLO, then that many bytes from bulk IN: how many were
 *                                 the frame magic and how many whole valid frames they held
 *   chapter9 | halt-rounds N | halt-pending | burst TYPE N
 *                                 what goes over the wire (wire.c)
 *   claims                        two files of the node: one's claim taken by the other
 *                                 (DISCONNECT_CLAIM), GETDRIVER before and after (claims.c)
 *   later-frames                  HELLO (offering this probe's minor), then protocol 1.1's
 *                                 I2C_READ, I2C_WRITE and REPLACE_FROM, then a SYNC: the
 *                                 board's answer to each, found by its sequence number
 *
 * The control socket as a raw client sees it (no libusb):
 *   control-raw TEXT              TEXT and a newline; every reply byte printed, control
 *                                 bytes as \xHH, with how many were raw controls
 *   control-flood BYTES           BYTES of 'a' without a newline (until the emulation
 *                                 closes): what it answered and how long it took, then
 *                                 `list` on a new connection
 *   control-crowd N               N connections that say nothing (non-blocking connects:
 *                                 a full backlog refuses), then `list` on one more: whether
 *                                 and when it was answered, and the emulation's threads
 *                                 (this program's parent's) before and after
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, kill under -std=c11 */

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <libusb-1.0/libusb.h>

#include "hapbridge/protocol.h"
#include "hapbridge/usb_identity.h"
#include "probe.h"

/* later-frames' I2C address: one nothing answers on an emulated board (an
 * accelerometer's, PROTOCOL.md "Untimed I2C"), so its write changes nothing. */
#define ABSENT_I2C_ADDRESS 0x18u

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "usb-emulation-probe: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

void check(int r, const char *what)
{
    if (r < 0) {
        die("%s: %s", what, libusb_error_name(r));
    }
}

/* ---- finding a board ------------------------------------------------------ */

static bool serial_of(libusb_device_handle *h, char *out, int size)
{
    struct libusb_device_descriptor d;
    if (libusb_get_device_descriptor(libusb_get_device(h), &d) < 0 || d.iSerialNumber == 0) {
        return false;
    }
    return libusb_get_string_descriptor_ascii(h, d.iSerialNumber, (unsigned char *)out, size) > 0;
}

/* Opens the first board, or the one with this serial; claims its interface. */
libusb_device_handle *open_board(libusb_context *ctx, const char *serial)
{
    libusb_device **list;
    ssize_t n = libusb_get_device_list(ctx, &list);
    check((int)n, "libusb_get_device_list");
    libusb_device_handle *found = NULL;
    for (ssize_t i = 0; i < n && !found; i++) {
        struct libusb_device_descriptor d;
        if (libusb_get_device_descriptor(list[i], &d) < 0 || d.idVendor != HB_USB_VID || d.idProduct != HB_USB_PID) {
            continue;
        }
        libusb_device_handle *h;
        check(libusb_open(list[i], &h), "libusb_open");
        char s[64] = "";
        if (!serial || (serial_of(h, s, sizeof s) && strcmp(s, serial) == 0)) {
            found = h;
        } else {
            libusb_close(h);
        }
    }
    libusb_free_device_list(list, 1);
    if (!found) {
        die("no 1209:0001 board%s%s", serial ? " with serial " : "", serial ? serial : "");
    }
    check(libusb_claim_interface(found, HB_USB_INTERFACE_NUMBER), "libusb_claim_interface");
    return found;
}

/* ---- frames ------------------------------------------------------------------ */

uint8_t host_seq;

void send_frame(libusb_device_handle *h, uint8_t type, const uint8_t *payload, uint8_t len)
{
    uint8_t frame[HB_FRAME_MAX_LEN];
    uint8_t n = hb_frame_encode(frame, host_seq++, type, payload, len);
    int sent = 0;
    check(libusb_bulk_transfer(h, HB_USB_EP_BULK_OUT, frame, n, &sent, TIMEOUT_MS), "bulk OUT");
    if (sent != n) {
        die("bulk OUT sent %d of %u bytes", sent, n);
    }
}

/* Removes the first whole, valid frame from the buffer: its type, payload in out. */
int take_frame(rx *r, uint8_t *payload, uint8_t *len)
{
    for (;;) {
        int start = 0;
        while (start < r->len && r->bytes[start] != HB_FRAME_MAGIC) {
            start++;
        }
        memmove(r->bytes, r->bytes + start, (size_t)(r->len - start));
        r->len -= start;
        if (r->len < (int)HB_FRAME_OVERHEAD) {
            return -1;
        }
        uint8_t plen = r->bytes[HB_FRAME_OFFSET_LEN];
        int total = plen + (int)HB_FRAME_OVERHEAD;
        if (plen > HB_FRAME_MAX_PAYLOAD) {
            memmove(r->bytes, r->bytes + 1, (size_t)(r->len - 1));
            r->len--;
            continue;
        }
        if (r->len < total) {
            return -1;
        }
        uint16_t crc = hb_crc16(&r->bytes[HB_FRAME_OFFSET_LEN], HB_FRAME_HEADER_LEN - 1u + plen);
        if (crc != hb_get_u16(&r->bytes[HB_FRAME_HEADER_LEN + plen])) {
            memmove(r->bytes, r->bytes + 1, (size_t)(r->len - 1));
            r->len--;
            continue;
        }
        int type = r->bytes[HB_FRAME_OFFSET_TYPE];
        memcpy(payload, &r->bytes[HB_FRAME_OFFSET_PAYLOAD], plen);
        *len = plen;
        memmove(r->bytes, r->bytes + total, (size_t)(r->len - total));
        r->len -= total;
        return type;
    }
}

/* The next whole, valid frame from bulk IN: its type, payload in out.  `what` names
 * what is awaited when none comes within the guard. */
int next_frame(libusb_device_handle *h, rx *r, uint8_t *payload, uint8_t *len, double deadline, const char *what)
{
    for (;;) {
        int t = take_frame(r, payload, len);
        if (t >= 0) {
            return t;
        }
        if (now_us() > deadline) {
            die("no %s within %.0f s", what, GUARD_SECONDS);
        }
        int got = 0;
        int e = libusb_bulk_transfer(h, HB_USB_EP_BULK_IN, r->bytes + r->len, HB_USB_BULK_SIZE, &got, TIMEOUT_MS);
        if (e < 0 && e != LIBUSB_ERROR_TIMEOUT) {
            check(e, "bulk IN");
        }
        r->len += got;
    }
}

/* Reads bulk IN until a frame of this type arrives. */
void wait_frame(libusb_device_handle *h, rx *r, uint8_t type, uint8_t *payload, uint8_t *len)
{
    double deadline = now_us() + GUARD_SECONDS * 1e6;
    char what[32];
    snprintf(what, sizeof what, "frame of type 0x%02x", type);
    while (next_frame(h, r, payload, len, deadline, what) != type) {
        /* other frames are skipped */
    }
}

/* HELLO, and the reply's payload length. */
uint8_t hello(libusb_device_handle *h, rx *r, uint16_t keepalive_ms, uint8_t *reply)
{
    uint8_t p[HB_HELLO_LEN] = {0};
    p[HB_HELLO_OFF_MAJOR] = HB_PROTO_VERSION_MAJOR;
    p[HB_HELLO_OFF_MINOR] = HB_PROTO_VERSION_MINOR;
    hb_put_u16(&p[HB_HELLO_OFF_KEEPALIVE_MS], keepalive_ms);
    send_frame(h, HB_T_HELLO, p, sizeof p);
    uint8_t len;
    wait_frame(h, r, HB_T_HELLO_REPLY, reply, &len);
    return len;
}

static void print_board(libusb_device_handle *h)
{
    libusb_device *d = libusb_get_device(h);
    uint8_t ports[8];
    int n = libusb_get_port_numbers(d, ports, sizeof ports);
    char serial[64] = "?";
    serial_of(h, serial, sizeof serial);
    printf("board bus=%u port=%u address=%u serial=%s\n", libusb_get_bus_number(d), n > 0 ? ports[n - 1] : 0,
           libusb_get_device_address(d), serial);
}

static void print_hello(const uint8_t *reply, uint8_t len)
{
    printf("hello-length bytes=%u\n", len);
    char serial[HB_SERIAL_MAX_LEN + 1] = "-";
    if (len >= HB_HELLO_REPLY_1_1_LEN && reply[HB_HELLO_REPLY_OFF_SERIAL_LEN] <= HB_SERIAL_MAX_LEN) {
        memcpy(serial, &reply[HB_HELLO_REPLY_OFF_SERIAL], reply[HB_HELLO_REPLY_OFF_SERIAL_LEN]);
        serial[reply[HB_HELLO_REPLY_OFF_SERIAL_LEN]] = 0;
    }
    printf("hello-reply protocol=%u.%u firmware=%u.%u device_id=%u board_us=%u keepalive_ms=%u serial=%s\n",
           reply[HB_HELLO_REPLY_OFF_MAJOR], reply[HB_HELLO_REPLY_OFF_MINOR], reply[HB_HELLO_REPLY_OFF_FW_MAJOR],
           reply[HB_HELLO_REPLY_OFF_FW_MINOR], reply[HB_HELLO_REPLY_OFF_DEVICE_ID],
           hb_get_u32(&reply[HB_HELLO_REPLY_OFF_BOARD_US]), hb_get_u16(&reply[HB_HELLO_REPLY_OFF_KEEPALIVE_MS]), serial);
}

/* ---- commands ------------------------------------------------------------------ */

static int cmd_list(libusb_context *ctx)
{
    libusb_device **list;
    ssize_t n = libusb_get_device_list(ctx, &list);
    check((int)n, "libusb_get_device_list");
    for (ssize_t i = 0; i < n; i++) {
        struct libusb_device_descriptor d;
        if (libusb_get_device_descriptor(list[i], &d) == 0 && d.idVendor == HB_USB_VID && d.idProduct == HB_USB_PID) {
            libusb_device_handle *h;
            check(libusb_open(list[i], &h), "libusb_open");
            print_board(h);
            libusb_close(h);
        }
    }
    libusb_free_device_list(list, 1);
    return 0;
}

static int cmd_hello(libusb_context *ctx, const char *serial)
{
    libusb_device_handle *h = open_board(ctx, serial);
    print_board(h);
    rx r = {.len = 0};
    uint8_t reply[HB_FRAME_MAX_PAYLOAD];
    print_hello(reply, hello(h, &r, 0, reply));
    libusb_close(h);
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_percentiles(const char *name, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    printf("%s n=%d p50=%.0f p90=%.0f p99=%.0f max=%.0f\n", name, n, v[n / 2], v[n * 9 / 10], v[n * 99 / 100], v[n - 1]);
}

static int cmd_bench(libusb_context *ctx, int n, const char *serial)
{
    libusb_device_handle *h = open_board(ctx, serial);
    double *control = calloc((size_t)n, sizeof *control), *bulk = calloc((size_t)n, sizeof *bulk);
    if (!control || !bulk) {
        die("out of memory");
    }
    for (int i = 0; i < n; i++) {
        uint8_t d[18];
        double t0 = now_us();
        int got = libusb_control_transfer(h, 0x80, 6, 0x0100, 0, d, sizeof d, TIMEOUT_MS);
        control[i] = now_us() - t0;
        if (got != (int)sizeof d) {
            die("GET_DESCRIPTOR(device): %s", got < 0 ? libusb_error_name(got) : "short");
        }
    }
    rx r = {.len = 0};
    uint8_t reply[HB_FRAME_MAX_PAYLOAD];
    for (int i = 0; i < n; i++) {
        double t0 = now_us();
        hello(h, &r, 0, reply);
        bulk[i] = now_us() - t0;
    }
    print_percentiles("control_round_trip_us", control, n);
    print_percentiles("hello_round_trip_us", bulk, n);
    libusb_close(h);
    return 0;
}

/* One line to the emulation's control socket; its "ok ..." reply. */
static void control(const char *command)
{
    const char *path = getenv("HAPBRIDGE_EMULATE_CONTROL");
    if (!path) {
        die("HAPBRIDGE_EMULATE_CONTROL is not set: run under hapbridge emulate bridge");
    }
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        die("cannot connect to %s: %s", path, strerror(errno));
    }
    char line[256];
    int n = snprintf(line, sizeof line, "%s\n", command);
    if (write(fd, line, (size_t)n) != n) {
        die("cannot send to the control socket");
    }
    shutdown(fd, SHUT_WR);
    char reply[512];
    ssize_t got = 0, r;
    while ((r = read(fd, reply + got, sizeof reply - 1 - (size_t)got)) > 0) {
        got += r;
    }
    close(fd);
    reply[got] = 0;
    reply[strcspn(reply, "\n")] = 0;
    if (strncmp(reply, "ok", 2) != 0) {
        die("control \"%s\": %s", command, reply);
    }
    printf("control command=\"%s\" reply=\"%s\"\n", command, reply);
}

typedef struct hotplug_state {
    int arrived, left;
    libusb_device *device;
} hotplug_state;

static int LIBUSB_CALL on_hotplug(libusb_context *ctx, libusb_device *device, libusb_hotplug_event event, void *data)
{
    (void)ctx;
    hotplug_state *s = data;
    if (event == LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED) {
        s->arrived++;
        if (s->device) {
            libusb_unref_device(s->device);
        }
        s->device = libusb_ref_device(device);
    } else {
        s->left++;
    }
    return 0;
}

static void LIBUSB_CALL on_transfer(struct libusb_transfer *t) { *(int *)t->user_data = 1; }

/* Handles events until *flag is set. */
static void wait_for(libusb_context *ctx, int *flag, const char *what)
{
    double deadline = now_us() + GUARD_SECONDS * 1e6;
    while (!*flag) {
        struct timeval tv = {0, 100000};
        check(libusb_handle_events_timeout_completed(ctx, &tv, flag), "libusb_handle_events");
        if (now_us() > deadline) {
            die("%s did not happen within %.0f s", what, GUARD_SECONDS);
        }
    }
}

static void control_unplug(void) { control("unplug"); }
static void control_replug(void) { control("replug"); }

/* The emulation is this program's parent when it runs as COMMAND. */
static void signal_unplug(void)
{
    kill(getppid(), SIGUSR1);
    printf("signal sent=SIGUSR1\n");
}

static void signal_replug(void)
{
    kill(getppid(), SIGUSR2);
    printf("signal sent=SIGUSR2\n");
}

/* Hotplug events for the board's VID:PID, counted in *hp. */
static libusb_hotplug_callback_handle watch_hotplug(libusb_context *ctx, hotplug_state *hp)
{
    if (!libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG)) {
        die("this libusb has no hotplug support");
    }
    libusb_hotplug_callback_handle cb;
    check(libusb_hotplug_register_callback(ctx, LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT, 0,
                                           HB_USB_VID, HB_USB_PID, LIBUSB_HOTPLUG_MATCH_ANY, on_hotplug, hp, &cb),
          "libusb_hotplug_register_callback");
    return cb;
}

/* Waits for the board to arrive again, opens it and says HELLO. */
static void hello_after_arrival(libusb_context *ctx, hotplug_state *hp, libusb_hotplug_callback_handle cb)
{
    wait_for(ctx, &hp->arrived, "the hotplug 'arrived' event");
    printf("hotplug event=arrived count=%d\n", hp->arrived);
    libusb_device_handle *again;
    check(libusb_open(hp->device, &again), "libusb_open after the board came back");
    check(libusb_claim_interface(again, HB_USB_INTERFACE_NUMBER), "libusb_claim_interface after the board came back");
    print_board(again);
    rx r = {.len = 0};
    uint8_t reply[HB_FRAME_MAX_PAYLOAD];
    print_hello(reply, hello(again, &r, 0, reply));
    libusb_close(again);
    libusb_unref_device(hp->device);
    libusb_hotplug_deregister_callback(ctx, cb);
}

static int cmd_unplug_replug(libusb_context *ctx, void (*unplug)(void), void (*replug)(void))
{
    hotplug_state hp = {0};
    libusb_hotplug_callback_handle cb = watch_hotplug(ctx, &hp);
    libusb_device_handle *h = open_board(ctx, NULL);
    print_board(h);

    /* A bulk IN the board has nothing for: it stays pending (NAK) until the unplug. */
    struct libusb_transfer *t = libusb_alloc_transfer(0);
    uint8_t buf[HB_USB_BULK_SIZE];
    int done = 0;
    libusb_fill_bulk_transfer(t, h, HB_USB_EP_BULK_IN, buf, sizeof buf, on_transfer, &done, 0);
    check(libusb_submit_transfer(t), "libusb_submit_transfer");

    unplug();
    wait_for(ctx, &done, "the pending transfer's completion");
    printf("pending-transfer status=%s\n", t->status == LIBUSB_TRANSFER_NO_DEVICE ? "LIBUSB_TRANSFER_NO_DEVICE" : "other");
    libusb_free_transfer(t);
    wait_for(ctx, &hp.left, "the hotplug 'left' event");
    printf("hotplug event=left count=%d\n", hp.left);
    uint8_t frame[HB_FRAME_MAX_LEN] = {0};
    int sent = 0;
    int e = libusb_bulk_transfer(h, HB_USB_EP_BULK_OUT, frame, 8, &sent, TIMEOUT_MS);
    printf("bulk-after-unplug result=%s\n", libusb_error_name(e));
    libusb_close(h);

    replug();
    hello_after_arrival(ctx, &hp, cb);
    return 0;
}

/* Claims the board's interface, says "holding", and keeps it until standard input
 * ends (another program holding the board, for what a second client meets). */
static int cmd_hold(libusb_context *ctx)
{
    libusb_device_handle *h = open_board(ctx, NULL);
    printf("holding interface=%d\n", HB_USB_INTERFACE_NUMBER);
    fflush(stdout);
    char buffer[64];
    while (fread(buffer, 1, sizeof buffer, stdin) > 0) {
    }
    libusb_release_interface(h, HB_USB_INTERFACE_NUMBER);
    libusb_close(h);
    printf("released\n");
    return 0;
}

/* Says "watching" once its hotplug callback is registered, then waits for the
 * board to leave and to arrive again (whoever unplugs and replugs it): a client
 * whose uevent socket another took would wait in vain. */
static int cmd_watch(libusb_context *ctx)
{
    hotplug_state hp = {0};
    libusb_hotplug_callback_handle cb = watch_hotplug(ctx, &hp);
    printf("watching pid=%ld\n", (long)getpid());
    fflush(stdout);
    wait_for(ctx, &hp.left, "the hotplug 'left' event");
    printf("hotplug event=left count=%d\n", hp.left);
    wait_for(ctx, &hp.arrived, "the hotplug 'arrived' event");
    printf("hotplug event=arrived count=%d\n", hp.arrived);
    libusb_unref_device(hp.device);
    libusb_hotplug_deregister_callback(ctx, cb);
    return 0;
}

static int cmd_bootloader(libusb_context *ctx)
{
    hotplug_state hp = {0};
    libusb_hotplug_callback_handle cb = watch_hotplug(ctx, &hp);
    libusb_device_handle *h = open_board(ctx, NULL);
    print_board(h);
    rx r = {.len = 0};
    uint8_t reply[HB_FRAME_MAX_PAYLOAD], len;
    print_hello(reply, hello(h, &r, 0, reply));
    uint8_t p[HB_ENTER_BOOTLOADER_LEN];
    hb_put_u32(&p[HB_BOOT_OFF_MAGIC], HB_BOOT_MAGIC);
    send_frame(h, HB_T_ENTER_BOOTLOADER, p, sizeof p);
    wait_frame(h, &r, HB_T_ACK, reply, &len);
    printf("ack type=0x%02x\n", reply[HB_ACK_OFF_TYPE]);
    wait_for(ctx, &hp.left, "the hotplug 'left' event");
    printf("hotplug event=left count=%d\n", hp.left);
    libusb_close(h);
    hello_after_arrival(ctx, &hp, cb);
    return 0;
}

static int cmd_silence(libusb_context *ctx, uint16_t keepalive_ms)
{
    libusb_device_handle *h = open_board(ctx, NULL);
    rx r = {.len = 0};
    uint8_t reply[HB_FRAME_MAX_PAYLOAD];
    print_hello(reply, hello(h, &r, keepalive_ms, reply));
    uint8_t stopped[HB_FRAME_MAX_PAYLOAD], len;
    wait_frame(h, &r, HB_T_EVENT_STOPPED, stopped, &len);
    printf("stopped reason=%u at_us=%u\n", stopped[HB_STOPPED_OFF_REASON], hb_get_u32(&stopped[HB_STOPPED_OFF_AT_US]));
    libusb_close(h);
    return 0;
}

static int cmd_idle(libusb_context *ctx, double seconds)
{
    libusb_device_handle *h = open_board(ctx, NULL);
    struct libusb_transfer *t = libusb_alloc_transfer(0);
    uint8_t buf[HB_USB_BULK_SIZE];
    int done = 0;
    libusb_fill_bulk_transfer(t, h, HB_USB_EP_BULK_IN, buf, sizeof buf, on_transfer, &done, 0);
    check(libusb_submit_transfer(t), "libusb_submit_transfer");
    double end = now_us() + seconds * 1e6;
    while (now_us() < end && !done) {
        struct timeval tv = {0, 100000};
        check(libusb_handle_events_timeout_completed(ctx, &tv, &done), "libusb_handle_events");
    }
    libusb_cancel_transfer(t);
    while (!done) {
        check(libusb_handle_events_completed(ctx, &done), "libusb_handle_events");
    }
    libusb_free_transfer(t);
    libusb_close(h);
    printf("idle seconds=%.1f\n", seconds);
    return 0;
}

static int cmd_open(libusb_context *ctx)
{
    libusb_device **list;
    ssize_t n = libusb_get_device_list(ctx, &list);
    check((int)n, "libusb_get_device_list");
    for (ssize_t i = 0; i < n; i++) {
        struct libusb_device_descriptor d;
        if (libusb_get_device_descriptor(list[i], &d) < 0 || d.idVendor != HB_USB_VID || d.idProduct != HB_USB_PID) {
            continue;
        }
        libusb_device_handle *h;
        int e = libusb_open(list[i], &h);
        printf("open bus=%u address=%u result=%s\n", libusb_get_bus_number(list[i]), libusb_get_device_address(list[i]),
               e == 0 ? "OK" : libusb_error_name(e));
        if (e == 0) {
            libusb_close(h);
        }
    }
    libusb_free_device_list(list, 1);
    return 0;
}

static int cmd_noise(libusb_context *ctx, int want)
{
    libusb_device_handle *h = open_board(ctx, NULL);
    uint8_t p[HB_HELLO_LEN] = {0};
    p[HB_HELLO_OFF_MAJOR] = HB_PROTO_VERSION_MAJOR;
    p[HB_HELLO_OFF_MINOR] = HB_PROTO_VERSION_MINOR;
    send_frame(h, HB_T_HELLO, p, sizeof p);
    rx r = {.len = 0};
    int total = 0, magic = 0, frames = 0;
    double deadline = now_us() + GUARD_SECONDS * 1e6;
    while (total < want) {
        if (now_us() > deadline) {
            die("only %d of %d bytes within %.0f s", total, want, GUARD_SECONDS);
        }
        int got = 0;
        int e = libusb_bulk_transfer(h, HB_USB_EP_BULK_IN, r.bytes + r.len, HB_USB_BULK_SIZE, &got, TIMEOUT_MS);
        if (e < 0 && e != LIBUSB_ERROR_TIMEOUT) {
            check(e, "bulk IN");
        }
        for (int i = 0; i < got; i++) {
            magic += r.bytes[r.len + i] == HB_FRAME_MAGIC;
        }
        total += got;
        r.len += got;
        uint8_t payload[HB_FRAME_MAX_PAYLOAD], len;
        while (take_frame(&r, payload, &len) >= 0) {
            frames++;
        }
        if (r.len > (int)sizeof r.bytes - HB_USB_BULK_SIZE) { /* only a partial frame can stay: keep its tail */
            int keep = HB_FRAME_MAX_LEN;
            memmove(r.bytes, r.bytes + r.len - keep, (size_t)keep);
            r.len = keep;
        }
    }
    printf("noise bytes=%d magic=%d frames=%d\n", total, magic, frames);
    libusb_close(h);
    return 0;
}

/* The board's answer to the host frame with this sequence number: a NAK naming it, or
 * a frame of `answer` (whose first payload byte is the request's sequence, unless it
 * is a SYNC_REPLY). */
static void print_answer(libusb_device_handle *h, rx *r, uint8_t sent_type, uint8_t seq, uint8_t answer)
{
    double deadline = now_us() + GUARD_SECONDS * 1e6;
    for (;;) {
        uint8_t payload[HB_FRAME_MAX_PAYLOAD], len;
        int t = next_frame(h, r, payload, &len, deadline, "answer");
        if (t == HB_T_NAK && payload[HB_NAK_OFF_SEQ] == seq) {
            printf("answer sent=0x%02x type=nak reason=%u nak_type=0x%02x\n", sent_type, payload[HB_NAK_OFF_REASON],
                   payload[HB_NAK_OFF_TYPE]);
            return;
        }
        if (t == answer && (answer == HB_T_SYNC_REPLY || payload[0] == seq)) {
            printf("answer sent=0x%02x type=0x%02x\n", sent_type, (unsigned)t);
            return;
        }
    }
}

static int cmd_later_frames(libusb_context *ctx)
{
    libusb_device_handle *h = open_board(ctx, NULL);
    rx r = {.len = 0};
    uint8_t reply[HB_FRAME_MAX_PAYLOAD];
    print_hello(reply, hello(h, &r, 0, reply));

    uint8_t read[HB_I2C_READ_LEN] = {ABSENT_I2C_ADDRESS, 0x00, 1};
    uint8_t seq = host_seq;
    send_frame(h, HB_T_I2C_READ, read, sizeof read);
    print_answer(h, &r, HB_T_I2C_READ, seq, HB_T_I2C_RESULT);

    uint8_t write[HB_I2C_WRITE_MIN_LEN] = {ABSENT_I2C_ADDRESS, 0x00, 0x00};
    seq = host_seq;
    send_frame(h, HB_T_I2C_WRITE, write, sizeof write);
    print_answer(h, &r, HB_T_I2C_WRITE, seq, HB_T_I2C_RESULT);

    uint8_t replace[HB_REPLACE_FROM_LEN] = {0};
    seq = host_seq;
    send_frame(h, HB_T_REPLACE_FROM, replace, sizeof replace);
    print_answer(h, &r, HB_T_REPLACE_FROM, seq, HB_T_REPLACED);

    uint8_t sync[HB_SYNC_LEN] = {0};
    hb_put_u32(&sync[HB_SYNC_OFF_TOKEN], 0x5EC0u);
    seq = host_seq;
    send_frame(h, HB_T_SYNC, sync, sizeof sync);
    print_answer(h, &r, HB_T_SYNC, seq, HB_T_SYNC_REPLY);
    libusb_close(h);
    return 0;
}

/* ---- the control socket as a raw client ------------------------------- */

static int control_connect(bool nonblocking)
{
    const char *path = getenv("HAPBRIDGE_EMULATE_CONTROL");
    if (!path) {
        die("HAPBRIDGE_EMULATE_CONTROL is not set: run under hapbridge emulate bridge");
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | (nonblocking ? SOCK_NONBLOCK : 0), 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    if (fd < 0) {
        die("socket: %s", strerror(errno));
    }
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Reads until end of input or `timeout_ms`; the bytes (NUL-terminated) in buf. */
static size_t read_reply(int fd, char *buf, size_t size, int timeout_ms)
{
    size_t got = 0;
    double deadline = now_us() + timeout_ms * 1e3;
    while (got + 1 < size) {
        int left = (int)((deadline - now_us()) / 1e3);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, left) <= 0) {
            break;
        }
        ssize_t r = read(fd, buf + got, size - 1 - got);
        if (r <= 0) {
            break;
        }
        got += (size_t)r;
    }
    buf[got] = 0;
    return got;
}

/* The reply as one printable value: controls as \xHH; how many there were. */
static int print_escaped(const char *key, const char *bytes, size_t n)
{
    int controls = 0;
    printf(" %s=\"", key);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)bytes[i];
        if (c < 0x20 || c == 0x7F || c == '"') {
            controls += c != '\n' && c != '"';
            printf("\\x%02X", c);
        } else {
            putchar(c);
        }
    }
    printf("\"");
    return controls;
}

static int cmd_control_raw(const char *text)
{
    int fd = control_connect(false);
    if (fd < 0) {
        die("cannot connect to the control socket: %s", strerror(errno));
    }
    size_t n = strlen(text);
    if (send(fd, text, n, MSG_NOSIGNAL) != (ssize_t)n || send(fd, "\n", 1, MSG_NOSIGNAL) != 1) {
        die("cannot send to the control socket");
    }
    shutdown(fd, SHUT_WR);
    static char reply[65536];
    size_t got = read_reply(fd, reply, sizeof reply, 10000);
    close(fd);
    printf("raw");
    int controls = print_escaped("reply", reply, got);
    printf(" raw-controls=%d\n", controls);
    return 0;
}

/* `list` on a fresh connection: 1 when answered ok within timeout_ms. */
static int list_answered(int timeout_ms, double *ms)
{
    double t0 = now_us();
    int fd = control_connect(false);
    if (fd < 0) {
        return 0;
    }
    send(fd, "list\n", 5, MSG_NOSIGNAL);
    shutdown(fd, SHUT_WR);
    char reply[4096];
    read_reply(fd, reply, sizeof reply, timeout_ms);
    close(fd);
    *ms = (now_us() - t0) / 1e3;
    return strstr(reply, "\nok") != NULL || strncmp(reply, "ok", 2) == 0;
}

static int cmd_control_flood(long bytes)
{
    int fd = control_connect(false);
    if (fd < 0) {
        die("cannot connect to the control socket: %s", strerror(errno));
    }
    static char chunk[65536];
    memset(chunk, 'a', sizeof chunk);
    double t0 = now_us();
    long sent = 0;
    while (sent < bytes) {
        size_t n = (size_t)(bytes - sent < (long)sizeof chunk ? bytes - sent : (long)sizeof chunk);
        ssize_t r = send(fd, chunk, n, MSG_NOSIGNAL);
        if (r <= 0) {
            break; /* the emulation closed the connection */
        }
        sent += r;
    }
    shutdown(fd, SHUT_WR);
    char reply[4096];
    size_t got = read_reply(fd, reply, sizeof reply, 10000);
    close(fd);
    double ms = (now_us() - t0) / 1e3;
    printf("flood sent=%ld ms=%.0f", sent, ms);
    print_escaped("reply", reply, got);
    double list_ms;
    int ok = list_answered(5000, &list_ms);
    printf(" then-list=%s\n", ok ? "ok" : "unanswered");
    return 0;
}

/* The Threads: line of /proc/PID/status. */
static int threads_of(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    int threads = -1;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "Threads: %d", &threads) == 1) {
            break;
        }
    }
    if (f) {
        fclose(f);
    }
    return threads;
}

static int cmd_control_crowd(int n)
{
    int before = threads_of(getppid());
    int *fds = calloc((size_t)n, sizeof *fds);
    int opened = 0, refused = 0;
    for (int i = 0; i < n; i++) {
        int fd = control_connect(true);
        if (fd < 0) {
            refused++;
        } else {
            fds[opened++] = fd;
        }
    }
    int during = threads_of(getppid());
    double ms = 0;
    int ok = list_answered(20000, &ms);
    int after = threads_of(getppid());
    printf("crowd opened=%d refused=%d threads-before=%d threads-during=%d threads-after=%d list=%s list-ms=%.0f\n", opened,
           refused, before, during, after, ok ? "ok" : "unanswered", ms);
    for (int i = 0; i < opened; i++) {
        close(fds[i]);
    }
    free(fds);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        die("usage: %s list | hello [--serial S] | bench N [--serial S] | unplug-replug | signal-replug | "
            "bootloader | watch | hold | silence KEEPALIVE_MS | idle SECONDS | open | noise BYTES | later-frames | control-raw TEXT | "
            "control-flood BYTES | control-crowd N | chapter9 | halt-rounds N | halt-pending | burst TYPE N | claims",
            argv[0]);
    }
    const char *serial = NULL;
    for (int i = 2; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--serial") == 0) {
            serial = argv[i + 1];
        }
    }
    if (strcmp(argv[1], "control-raw") == 0 && argc == 3) {
        return cmd_control_raw(argv[2]);
    } else if (strcmp(argv[1], "control-flood") == 0 && argc == 3 && atol(argv[2]) > 0) {
        return cmd_control_flood(atol(argv[2]));
    } else if (strcmp(argv[1], "control-crowd") == 0 && argc == 3 && atoi(argv[2]) > 0) {
        return cmd_control_crowd(atoi(argv[2]));
    }
    libusb_context *ctx;
    check(libusb_init(&ctx), "libusb_init");
    int status;
    if (strcmp(argv[1], "list") == 0) {
        status = cmd_list(ctx);
    } else if (strcmp(argv[1], "hello") == 0) {
        status = cmd_hello(ctx, serial);
    } else if (strcmp(argv[1], "bench") == 0 && argc >= 3) {
        int n = atoi(argv[2]);
        if (n < 1) {
            die("bench needs a positive count");
        }
        status = cmd_bench(ctx, n, serial);
    } else if (strcmp(argv[1], "unplug-replug") == 0) {
        status = cmd_unplug_replug(ctx, control_unplug, control_replug);
    } else if (strcmp(argv[1], "signal-replug") == 0) {
        status = cmd_unplug_replug(ctx, signal_unplug, signal_replug);
    } else if (strcmp(argv[1], "bootloader") == 0) {
        status = cmd_bootloader(ctx);
    } else if (strcmp(argv[1], "watch") == 0) {
        status = cmd_watch(ctx);
    } else if (strcmp(argv[1], "hold") == 0) {
        status = cmd_hold(ctx);
    } else if (strcmp(argv[1], "idle") == 0 && argc == 3) {
        status = cmd_idle(ctx, atof(argv[2]));
    } else if (strcmp(argv[1], "open") == 0) {
        status = cmd_open(ctx);
    } else if (strcmp(argv[1], "noise") == 0 && argc == 3 && atoi(argv[2]) > 0) {
        status = cmd_noise(ctx, atoi(argv[2]));
    } else if (strcmp(argv[1], "later-frames") == 0) {
        status = cmd_later_frames(ctx);
    } else if (strcmp(argv[1], "chapter9") == 0) {
        status = cmd_chapter9(ctx);
    } else if (strcmp(argv[1], "halt-pending") == 0 && argc == 2) {
        status = cmd_halt_pending(ctx);
    } else if (strcmp(argv[1], "halt-rounds") == 0 && argc == 3 && atoi(argv[2]) > 0) {
        status = cmd_halt_rounds(ctx, atoi(argv[2]));
    } else if (strcmp(argv[1], "burst") == 0 && argc == 4 && atoi(argv[3]) > 0) {
        status = cmd_burst(ctx, (uint8_t)strtoul(argv[2], NULL, 0), atoi(argv[3]));
    } else if (strcmp(argv[1], "claims") == 0) {
        status = cmd_claims(ctx);
    } else if (strcmp(argv[1], "silence") == 0 && argc == 3) {
        status = cmd_silence(ctx, (uint16_t)atoi(argv[2]));
    } else {
        die("unknown command %s", argv[1]);
    }
    fflush(stdout);
    libusb_exit(ctx);
    return status;
}
