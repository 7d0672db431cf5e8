#include "link.h"

#include <string.h>

#include "usb_host.h"

#define EP_IN 1u
#define EP_OUT 2u
#define PUMP_STEP_US 10u

static void collect(link *l);

static void collect_while_waiting(void *ctx)
{
    link *l = ctx;
    double now = sim_now_us(l->board);
    if (l->read_every_us && now - l->last_read_us < l->read_every_us) {
        return;
    }
    l->last_read_us = now;
    collect(l);
}

void link_init(link *l, sim_board *b)
{
    memset(l, 0, sizeof *l);
    l->board = b;
    hb_decoder_init(&l->dec);
    /* Bulk IN read while a send waits on the board's flow control. */
    usb_host_set_wait_hook(collect_while_waiting, l);
}

bool link_send_raw(link *l, const uint8_t *bytes, uint8_t len)
{
    while (len) {
        uint8_t n = len > 64 ? 64 : len;
        if (usb_host_bulk_out(l->board, EP_OUT, bytes, n) < 0) {
            return false;
        }
        bytes += n;
        len = (uint8_t)(len - n);
    }
    return true;
}

bool link_resync(link *l)
{
    uint8_t zeros[HB_FRAME_MAX_LEN] = {0};
    return link_send_raw(l, zeros, sizeof zeros);
}

bool link_send(link *l, uint8_t type, const uint8_t *payload, uint8_t len)
{
    uint8_t frame[HB_FRAME_MAX_LEN];
    uint8_t n = hb_frame_encode(frame, l->tx_seq++, type, payload, len);
    return n && link_send_raw(l, frame, n);
}

static void collect(link *l)
{
    uint8_t buf[64];
    for (;;) {
        int n = usb_host_bulk_in(l->board, EP_IN, buf);
        if (n <= 0) {
            return;
        }
        for (int i = 0; i < n; i++) {
            hb_decode_result r = hb_decoder_push(&l->dec, buf[i]);
            if (r == HB_DECODE_BAD_CRC || r == HB_DECODE_BAD_LENGTH) {
                l->corrupt_from_board++;
            }
            if (r != HB_DECODE_FRAME) {
                continue;
            }
            if (!hb_board_payload_len_ok(hb_decoder_type(&l->dec), hb_decoder_len(&l->dec))) {
                l->corrupt_from_board++;
                continue;
            }
            uint8_t seq = hb_decoder_seq(&l->dec);
            if (l->rx_total && seq != l->next_board_seq) {
                l->board_seq_gaps++;
            }
            l->next_board_seq = (uint8_t)(seq + 1u);
            l->rx_total++;
            if (l->rx_count < LINK_RX_MAX) {
                link_frame *f = &l->rx[l->rx_count++];
                f->seq = seq;
                f->type = hb_decoder_type(&l->dec);
                f->len = hb_decoder_len(&l->dec);
                memcpy(f->payload, hb_decoder_payload(&l->dec), f->len);
                f->at_us = sim_now_us(l->board);
            }
        }
    }
}

void link_pump(link *l, uint32_t us) { link_pump_every(l, us, PUMP_STEP_US); }

void link_pump_every(link *l, uint32_t us, uint32_t step_us)
{
    while (us) {
        uint32_t step = us < step_us ? us : step_us;
        if (!sim_run_us(l->board, step)) {
            return;
        }
        collect(l);
        us -= step;
    }
}

bool link_take(link *l, uint8_t type, link_frame *out)
{
    for (uint32_t i = 0; i < l->rx_count; i++) {
        if (l->rx[i].type == type) {
            if (out) {
                *out = l->rx[i];
            }
            memmove(&l->rx[i], &l->rx[i + 1], (l->rx_count - i - 1) * sizeof l->rx[0]);
            l->rx_count--;
            return true;
        }
    }
    return false;
}

bool link_wait(link *l, uint8_t type, uint32_t timeout_us, link_frame *out)
{
    collect(l);
    for (uint32_t waited = 0; waited <= timeout_us; waited += PUMP_STEP_US) {
        if (link_take(l, type, out)) {
            return true;
        }
        link_pump(l, PUMP_STEP_US);
    }
    return false;
}
