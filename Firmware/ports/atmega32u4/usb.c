#include "usb.h"

#include <avr/io.h>
#include <avr/pgmspace.h>

#include "usb_descriptors.h"
#include "usb_ids.h"
#include "hapbridge/protocol.h"

/* Standard requests (USB 2.0 table 9-4) */
#define REQ_GET_STATUS 0x00u
#define REQ_CLEAR_FEATURE 0x01u
#define REQ_SET_FEATURE 0x03u
#define REQ_SET_ADDRESS 0x05u
#define REQ_GET_DESCRIPTOR 0x06u
#define REQ_GET_CONFIGURATION 0x08u
#define REQ_SET_CONFIGURATION 0x09u
#define REQ_GET_INTERFACE 0x0Au
#define REQ_SET_INTERFACE 0x0Bu
#define FEATURE_ENDPOINT_HALT 0u
#define RECIPIENT_MASK 0x1Fu
#define RECIPIENT_DEVICE 0x00u
#define RECIPIENT_INTERFACE 0x01u
#define RECIPIENT_ENDPOINT 0x02u
#define TYPE_MASK 0x60u
#define TYPE_STANDARD 0x00u

/* UECFG0X / UECFG1X values */
#define EPTYPE_CONTROL 0u
#define EPTYPE_BULK (1u << EPTYPE1)
#define EPDIR_IN (1u << EPDIR)
#define EPSIZE_64 ((1u << EPSIZE1) | (1u << EPSIZE0))

#define TX_RING HB_USB_IN_RING_BYTES
_Static_assert((TX_RING & (TX_RING - 1u)) == 0 && TX_RING <= 128u, "the ring's indices are uint8_t, masked");
/* usb_flush's bound: ~6 us per round under simavr, so ~25 ms (25 USB frames,
 * each of which a reading host polls in), well inside the 120 ms watchdog. */
#define FLUSH_ROUNDS 4000u
/* ~4 ms of polling at 16 MHz: far longer than a host takes to fetch the
 * next packet of a control read (one per 1 ms frame at most). */
#define EP0_SPIN_LIMIT 8000u

static usb_rx_handler rx_handler;
static uint8_t configuration;
static uint8_t pending_address; /* applied once the SET_ADDRESS status stage is sent */
static uint8_t tx_ring[TX_RING];
static uint8_t tx_head, tx_count;

static bool configure_ep(uint8_t ep, uint8_t cfg0, uint8_t cfg1)
{
    UENUM = ep;
    UECONX = (1 << EPEN);
    UECFG0X = cfg0;
    UECFG1X = cfg1 | (1 << ALLOC);
    return UESTA0X & (1 << CFGOK);
}

void usb_init(usb_rx_handler on_rx)
{
    rx_handler = on_rx;
    UHWCON = (1 << UVREGE);
    USBCON = (1 << USBE) | (1 << FRZCLK);
    /* 16 MHz crystal: PINDIV halves it to the PLL's 8 MHz input. */
    PLLCSR = (1 << PINDIV);
    PLLCSR = (1 << PINDIV) | (1 << PLLE);
    while (!(PLLCSR & (1 << PLOCK))) {
    }
    USBCON = (1 << USBE) | (1 << OTGPADE); /* clock running, VBUS pad on */
    UDCON = 0;                             /* attach: pull-up on D+ */
}

void usb_detach(void)
{
    UDCON = (1 << DETACH);
    USBCON = (1 << FRZCLK);
    PLLCSR = 0;
}

bool usb_configured(void) { return configuration != 0; }

static void stall_ep0(void) { UECONX = (1 << STALLRQ) | (1 << EPEN); }

/* Status stage of a no-data request: an empty IN packet. */
static void send_zlp(void) { UEINTX = (uint8_t)~(1 << TXINI); }

static uint8_t min8(uint16_t a, uint16_t b) { return (uint8_t)(a < b ? a : b); }

/* Control read: packets of 64 bytes, a terminating empty packet when the
 * reply is shorter than asked and a multiple of 64; the host may end the
 * data stage early by starting the status OUT. */
static void send_ep0(const usb_descriptor_ref *d, uint16_t w_length)
{
    const uint8_t *data = d->data;
    uint16_t len = d->len;
    uint16_t left = len < w_length ? len : w_length;
    bool zlp = left < w_length && (left % USB_EP0_SIZE) == 0;
    for (;;) {
        uint8_t s;
        uint16_t spins = 0;
        do {
            s = UEINTX;
            if (s & ((1 << RXSTPI) | (1 << RXOUTI))) {
                return; /* new SETUP, or the host ended the data stage */
            }
            /* A bus reset or a host that stopped asking must not leave us
             * here until the watchdog fires. */
            if ((UDINT & (1 << EORSTI)) || ++spins == EP0_SPIN_LIMIT) {
                return;
            }
        } while (!(s & (1 << TXINI)));
        uint8_t n = min8(left, USB_EP0_SIZE);
        for (uint8_t i = 0; i < n; i++) {
            UEDATX = d->in_flash ? pgm_read_byte(data) : *data;
            data++;
        }
        left -= n;
        UEINTX = (uint8_t)~(1 << TXINI);
        if (left == 0) {
            if (!(n == USB_EP0_SIZE && zlp)) {
                return; /* the status OUT is cleared in usb_poll */
            }
            zlp = false; /* one more round sends the terminating empty packet */
        }
    }
}

/* A reply of n (1 or 2) bytes from RAM, cut to wLength as every control read is:
 * an empty data packet when the host asked for none. */
static void send_ep0_ram(uint8_t a, uint8_t b, uint8_t n, uint16_t w_length)
{
    if (w_length < n) {
        n = (uint8_t)w_length;
    }
    if (n > 0) {
        UEDATX = a;
    }
    if (n > 1) {
        UEDATX = b;
    }
    UEINTX = (uint8_t)~(1 << TXINI);
}

/* The endpoint number (UENUM) of a bulk endpoint by its address as a request's
 * wIndex names it (direction bit included), or 0 when the configuration has no
 * such endpoint.  Before SET_CONFIGURATION only endpoint 0 exists (USB 2.0
 * 9.4.5: in the Address state any other endpoint is a Request Error). */
static uint8_t bulk_endpoint(uint16_t w_index)
{
    uint8_t addr = (uint8_t)w_index;
    if (!configuration || (addr != HB_USB_EP_BULK_IN && addr != HB_USB_EP_BULK_OUT)) {
        return 0;
    }
    return addr & 0x0Fu;
}

/* Whether wIndex names the configuration's interface (only once configured). */
static bool our_interface(uint16_t w_index) { return configuration && (uint8_t)w_index == HB_USB_INTERFACE_NUMBER; }

static bool endpoint_halt(uint16_t w_index, bool halt)
{
    uint8_t ep = bulk_endpoint(w_index);
    if (!ep) {
        return false; /* endpoint 0 does not halt: its STALL ends with the next SETUP */
    }
    UENUM = ep;
    if (halt) {
        UECONX = (1 << STALLRQ) | (1 << EPEN);
    } else {
        /* Clearing a halt also resets the data toggle (USB 2.0 9.4.5). */
        UECONX = (1 << STALLRQC) | (1 << RSTDT) | (1 << EPEN);
        UERST = (uint8_t)(1u << ep);
        UERST = 0;
    }
    UENUM = 0;
    return true;
}

static void handle_setup(void)
{
    uint8_t bm_request_type = UEDATX;
    uint8_t b_request = UEDATX;
    uint16_t w_value = UEDATX;
    w_value |= (uint16_t)UEDATX << 8;
    uint16_t w_index = UEDATX;
    w_index |= (uint16_t)UEDATX << 8;
    uint16_t w_length = UEDATX;
    w_length |= (uint16_t)UEDATX << 8;
    UEINTX = (uint8_t)~((1 << RXSTPI) | (1 << RXOUTI) | (1 << TXINI));

    if ((bm_request_type & TYPE_MASK) != TYPE_STANDARD) {
        stall_ep0(); /* no vendor requests: everything goes through bulk frames */
        return;
    }
    uint8_t recipient = bm_request_type & RECIPIENT_MASK;
    switch (b_request) {
    case REQ_GET_DESCRIPTOR: {
        if (recipient != RECIPIENT_DEVICE) {
            stall_ep0();
            return;
        }
        usb_descriptor_ref d;
        uint8_t scratch[USB_STRING_DESCRIPTOR_MAX];
        if (!usb_find_descriptor((uint8_t)(w_value >> 8), (uint8_t)w_value, &d, scratch)) {
            stall_ep0();
            return;
        }
        send_ep0(&d, w_length);
        return;
    }
    case REQ_SET_ADDRESS:
        if (recipient != RECIPIENT_DEVICE) {
            stall_ep0();
            return;
        }
        /* The new address takes effect after the status stage (USB 2.0 9.4.6). */
        pending_address = (uint8_t)(w_value & 0x7Fu);
        UDADDR = pending_address;
        send_zlp();
        return;
    case REQ_SET_CONFIGURATION:
        if (recipient != RECIPIENT_DEVICE || (w_value != 0 && w_value != HB_USB_CONFIGURATION_VALUE)) {
            stall_ep0();
            return;
        }
        configuration = (uint8_t)w_value;
        if (configuration) {
            configure_ep(USB_EP_BULK_IN, EPTYPE_BULK | EPDIR_IN, EPSIZE_64);
            configure_ep(USB_EP_BULK_OUT, EPTYPE_BULK, EPSIZE_64);
            UERST = (1u << USB_EP_BULK_IN) | (1u << USB_EP_BULK_OUT);
            UERST = 0;
            tx_head = tx_count = 0;
        }
        UENUM = 0;
        send_zlp();
        return;
    case REQ_GET_CONFIGURATION:
        if (recipient != RECIPIENT_DEVICE) {
            stall_ep0();
            return;
        }
        send_ep0_ram(configuration, 0, 1, w_length);
        return;
    case REQ_GET_STATUS: {
        /* USB 2.0 9.4.5: two bytes for the device (bus powered, no remote wakeup),
         * the interface and every endpoint the device has, endpoint 0 included;
         * a Request Error for anything it lacks. */
        uint8_t halted = 0;
        if (recipient == RECIPIENT_ENDPOINT) {
            uint8_t addr = (uint8_t)w_index;
            uint8_t ep = bulk_endpoint(w_index);
            if (ep) {
                UENUM = ep;
                halted = (UECONX & (1 << STALLRQ)) ? 1 : 0;
                UENUM = 0;
            } else if (addr != 0x00u && addr != 0x80u) {
                stall_ep0();
                return;
            }
        } else if (recipient == RECIPIENT_INTERFACE ? !our_interface(w_index) : recipient != RECIPIENT_DEVICE) {
            stall_ep0();
            return;
        }
        send_ep0_ram(halted, 0, 2, w_length);
        return;
    }
    case REQ_CLEAR_FEATURE:
    case REQ_SET_FEATURE:
        if (recipient == RECIPIENT_ENDPOINT && w_value == FEATURE_ENDPOINT_HALT &&
            endpoint_halt(w_index, b_request == REQ_SET_FEATURE)) {
            send_zlp();
        } else {
            stall_ep0();
        }
        return;
    case REQ_GET_INTERFACE:
        if (recipient != RECIPIENT_INTERFACE || !our_interface(w_index)) {
            stall_ep0();
            return;
        }
        send_ep0_ram(0, 0, 1, w_length);
        return;
    case REQ_SET_INTERFACE:
        if (recipient == RECIPIENT_INTERFACE && w_value == 0 && our_interface(w_index)) {
            send_zlp();
        } else {
            stall_ep0();
        }
        return;
    default:
        stall_ep0();
        return;
    }
}

static void poll_ep0(void)
{
    UENUM = 0;
    uint8_t s = UEINTX;
    if (s & (1 << RXSTPI)) {
        handle_setup();
        return;
    }
    if (s & (1 << RXOUTI)) {
        UEINTX = (uint8_t)~(1 << RXOUTI); /* status stage of a control read */
    }
    if (pending_address && (s & (1 << TXINI))) {
        UDADDR = pending_address | (1 << ADDEN);
        pending_address = 0;
    }
}

_Static_assert(HB_USB_OUT_REPLY_ROOM <= TX_RING, "a packet's refusals must fit the ring");
/* The most frames that can end in one bulk OUT packet, each the shortest that draws a
 * NAK of its own (a stamped STOP), times a NAK's length. */
_Static_assert(HB_USB_OUT_REPLY_ROOM == ((HB_USB_BULK_SIZE + HB_CMD_STOP_LEN + HB_FRAME_OVERHEAD - 1u) /
                                         (HB_CMD_STOP_LEN + HB_FRAME_OVERHEAD)) *
                                            (HB_NAK_LEN + HB_FRAME_OVERHEAD),
               "HB_USB_OUT_REPLY_ROOM is 7 NAKs");

static void poll_bulk_out(void)
{
    UENUM = USB_EP_BULK_OUT;
    if (!(UEINTX & (1 << RXOUTI))) {
        return;
    }
    /* Flow control: a packet waits in the bank (the host retries it) until its
     * refusals are sure to fit the ring (usb_identity.h). */
    if ((uint8_t)(TX_RING - tx_count) < HB_USB_OUT_REPLY_ROOM) {
        return;
    }
    uint8_t buf[USB_BULK_SIZE];
    UEINTX = (uint8_t)~(1 << RXOUTI);
    uint8_t n = UEBCLX;
    if (n > sizeof buf) {
        n = sizeof buf;
    }
    for (uint8_t i = 0; i < n; i++) {
        buf[i] = UEDATX;
    }
    UEINTX = (uint8_t)~(1 << FIFOCON); /* hand the bank back before parsing */
    rx_handler(buf, n);
}

static void poll_bulk_in(void)
{
    if (!tx_count) {
        return;
    }
    UENUM = USB_EP_BULK_IN;
    if (!(UEINTX & (1 << TXINI))) {
        return;
    }
    UEINTX = (uint8_t)~(1 << TXINI);
    uint8_t n = tx_count < USB_BULK_SIZE ? tx_count : USB_BULK_SIZE;
    for (uint8_t i = 0; i < n; i++) {
        UEDATX = tx_ring[tx_head];
        tx_head = (uint8_t)((tx_head + 1u) & (TX_RING - 1u));
    }
    tx_count = (uint8_t)(tx_count - n);
    UEINTX = (uint8_t)~(1 << FIFOCON);
}

void usb_poll(void)
{
    if (UDINT & (1 << EORSTI)) {
        UDINT &= (uint8_t)~(1 << EORSTI);
        configuration = 0;
        pending_address = 0;
        configure_ep(0, EPTYPE_CONTROL, EPSIZE_64);
    }
    poll_ep0();
    if (configuration) {
        poll_bulk_out();
        poll_bulk_in();
    }
}

/* The host has taken the last packet handed to the bulk IN bank. */
static bool bulk_in_bank_free(void)
{
    UENUM = USB_EP_BULK_IN;
    return UEINTX & (1 << TXINI);
}

void usb_flush(void)
{
    if (!configuration) {
        return;
    }
    /* Only endpoint 0 and bulk IN: not bulk OUT, whose handler would feed
     * the core again from inside the frame being handled.  Done only when the
     * ring is empty AND the host has taken the last packet: a caller about to
     * detach (bootloader entry) would otherwise pull the device off the bus
     * with its ACK still in the bank.  Bounded, for a host that stopped
     * reading. */
    for (uint16_t i = 0; i < FLUSH_ROUNDS; i++) {
        poll_ep0();
        poll_bulk_in();
        if (!tx_count && bulk_in_bank_free()) {
            return;
        }
    }
}

uint8_t usb_send_room(void)
{
    /* A frame sent into the room bulk OUT's flow control waits for would hold
     * the host's next packet of commands in the bank until the host had read
     * it: unprompted frames (ACCEL_SAMPLES) stay clear of that room. */
    uint8_t room = (uint8_t)(TX_RING - tx_count);
    return configuration && room > HB_USB_OUT_REPLY_ROOM ? (uint8_t)(room - HB_USB_OUT_REPLY_ROOM) : 0u;
}

bool usb_send(const uint8_t *bytes, uint8_t len)
{
    if (!configuration || len > TX_RING - tx_count) {
        return false;
    }
    for (uint8_t i = 0; i < len; i++) {
        tx_ring[(uint8_t)((tx_head + tx_count + i) & (TX_RING - 1u))] = bytes[i];
    }
    tx_count = (uint8_t)(tx_count + len);
    return true;
}
