#include "usb_host.h"

#include <avr_usb.h>
#include <sim_io.h>

/* A NAK is retried after this much simulated time, this many times. */
#define RETRY_US 5u
#define RETRY_LIMIT 20000u

static int io(sim_board *b, uint32_t ctl, uint8_t pipe, uint8_t *buf, uint32_t sz)
{
    if (b->usb_detached && ctl != AVR_IOCTL_USB_RESET) {
        return USB_HOST_DETACHED; /* no device on the bus (see sim_board.c) */
    }
    struct avr_io_usb req = {.pipe = pipe, .sz = sz, .buf = buf};
    int r = avr_ioctl(b->avr, ctl, &req);
    return r < 0 ? r : (int)req.sz;
}

static void (*wait_hook)(void *ctx);
static void *wait_hook_ctx;

void usb_host_set_wait_hook(void (*hook)(void *ctx), void *ctx)
{
    wait_hook = hook;
    wait_hook_ctx = ctx;
}

/* Retries while the device NAKs (or, before it enabled the endpoint, while
 * simavr refuses with -1). */
static int io_retry(sim_board *b, uint32_t ctl, uint8_t pipe, uint8_t *buf, uint32_t sz)
{
    for (uint32_t i = 0; i < RETRY_LIMIT; i++) {
        int r = io(b, ctl, pipe, buf, sz);
        if (r == USB_HOST_DETACHED) {
            return r;
        }
        if (r != AVR_IOCTL_USB_NAK && r != -1) {
            return r;
        }
        if (!sim_run_us(b, RETRY_US)) {
            return USB_HOST_TIMEOUT;
        }
        if (wait_hook) {
            wait_hook(wait_hook_ctx);
        }
    }
    return USB_HOST_TIMEOUT;
}

void usb_host_bus_reset(sim_board *b)
{
    io(b, AVR_IOCTL_USB_RESET, 0, 0, 0);
    sim_run_us(b, 50); /* the firmware reconfigures endpoint 0 */
}

int usb_host_control(sim_board *b, const usb_setup *s, uint8_t *buf)
{
    uint8_t pkt[8] = {
        s->bm_request_type, s->b_request,
        (uint8_t)s->w_value, (uint8_t)(s->w_value >> 8),
        (uint8_t)s->w_index, (uint8_t)(s->w_index >> 8),
        (uint8_t)s->w_length, (uint8_t)(s->w_length >> 8),
    };
    int r = io_retry(b, AVR_IOCTL_USB_SETUP, 0, pkt, sizeof pkt);
    if (r < 0) {
        return r;
    }
    sim_run_us(b, 5);
    if (s->bm_request_type & 0x80u) {
        int total = 0;
        for (;;) {
            uint8_t chunk[64];
            r = io_retry(b, AVR_IOCTL_USB_READ, 0x80, chunk, sizeof chunk);
            if (r < 0) {
                return r;
            }
            for (int i = 0; i < r && total < s->w_length; i++) {
                buf[total++] = chunk[i];
            }
            if (r < 64 || total >= s->w_length) {
                break;
            }
        }
        /* status stage: zero-length OUT */
        uint8_t none[1];
        r = io_retry(b, AVR_IOCTL_USB_WRITE, 0, none, 0);
        sim_run_us(b, 5);
        return r < 0 ? r : total;
    }
    /* no data stage: the status stage is a zero-length IN */
    uint8_t zlp[64];
    r = io_retry(b, AVR_IOCTL_USB_READ, 0x80, zlp, sizeof zlp);
    sim_run_us(b, 5);
    return r < 0 ? r : 0;
}

int usb_host_bulk_out(sim_board *b, uint8_t ep, const uint8_t *data, uint8_t len)
{
    return io_retry(b, AVR_IOCTL_USB_WRITE, ep, (uint8_t *)data, len);
}

int usb_host_bulk_out_once(sim_board *b, uint8_t ep, const uint8_t *data, uint8_t len)
{
    return io(b, AVR_IOCTL_USB_WRITE, ep, (uint8_t *)data, len);
}

int usb_host_bulk_in(sim_board *b, uint8_t ep, uint8_t *buf64)
{
    /* simavr answers an empty bulk IN with a zero-length packet, not a NAK */
    int r = io(b, AVR_IOCTL_USB_READ, (uint8_t)(0x80u | ep), buf64, 64);
    return r == AVR_IOCTL_USB_NAK ? 0 : r;
}
