/* Stamped commands on time: a host-like stream against the stamps (timing.c),
 * the cost of taking frames in, and how a batch of writes in one transfer
 * runs when already due and when due soon. */
#include <stdio.h>
#include <string.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"
#include "suite.h"
#include "timing.h"
#include "usb_host.h"

#include <avr_usb.h>

static bool stamped_commands_execute_at_their_stamp(void)
{
    return timing_stream(&board, &chip, &host, why, sizeof why);
}

/* Encodes the frames one after another into ONE transfer (link_send_raw cuts
 * it into 64-byte packets), as the engine sends a service pass's commands. */
typedef struct batch {
    uint8_t bytes[255];
    uint8_t len;
} batch;

static bool batch_add(batch *b, uint8_t type, const uint8_t *payload, uint8_t len)
{
    uint8_t frame[HB_FRAME_MAX_LEN];
    uint8_t n = hb_frame_encode(frame, host.tx_seq++, type, payload, len);
    if (!n || n > sizeof b->bytes - b->len) {
        return false;
    }
    memcpy(&b->bytes[b->len], frame, n);
    b->len = (uint8_t)(b->len + n);
    return true;
}

/* The engine's start-up set-up: 8 register writes and an RTP, one stamp. */
#define BATCH_WRITES 9u

static bool batch_setup(batch *b, uint32_t at)
{
    b->len = 0;
    for (uint8_t i = 0; i < BATCH_WRITES - 1u; i++) {
        uint8_t p[HB_CMD_REG_WRITE_LEN];
        hb_put_u32(&p[HB_CMD_OFF_AT_US], at);
        p[HB_CMD_REG_OFF_REG] = DRV2605_REG_RATED_VOLTAGE;
        p[HB_CMD_REG_OFF_VALUE] = (uint8_t)(0x40u + i);
        if (!batch_add(b, HB_T_CMD_REG_WRITE, p, sizeof p)) {
            return false;
        }
    }
    uint8_t p[HB_CMD_RTP_LEN];
    hb_put_u32(&p[HB_CMD_OFF_AT_US], at);
    p[HB_CMD_RTP_OFF_AMPLITUDE] = 0;
    return batch_add(b, HB_T_CMD_RTP, p, sizeof p);
}

/* Board-clock STARTs of the writes logged since `from` (reads skipped), and
 * each write's START->STOP time. */
static uint32_t write_starts(uint32_t from, double *starts, double *write_us, uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t i = from; i < chip.count && n < max; i++) {
        const drv_txn *t = &chip.log[i];
        if (!t->is_read) {
            write_us[n] = (double)(t->stop_cycle - t->start_cycle) / SIM_CYCLES_PER_US;
            starts[n++] = sim_board_us_at(&board, t->start_cycle);
        }
    }
    return n;
}

/* Sends the set-up batch stamped `ahead` us from now (negative: already due
 * when it arrives) and returns the STARTs of its writes. */
static bool run_batch(int32_t ahead, double *arrive, double *starts, double *write_us)
{
    link_frame r;
    CHECK(hello(1000, 0, &r), "no HELLO_REPLY");
    link_pump(&host, 2000);
    batch b;
    uint32_t at = (uint32_t)((int32_t)board_now() + ahead);
    CHECK(batch_setup(&b, at), "batch too long");
    uint32_t mark = chip.count;
    *arrive = board_now();
    CHECK(link_send_raw(&host, b.bytes, b.len), "send failed");
    link_pump(&host, 5000);
    CHECK(!link_take(&host, HB_T_NAK, &r), "NAK reason %u", r.payload[HB_NAK_OFF_REASON]);
    uint32_t n = write_starts(mark, starts, write_us, BATCH_WRITES + 4u);
    printf("# batch of %u, stamp %+d us, %u bytes: STARTs after arrival (us):", BATCH_WRITES, ahead, b.len);
    for (uint32_t i = 0; i < n; i++) {
        printf(" %.1f", starts[i] - *arrive);
    }
    printf("\n");
    CHECK(n == BATCH_WRITES, "%u writes, wanted %u", n, BATCH_WRITES);
    return true;
}

/* Each write of a batch that is already due runs as soon as its frame is
 * queued, and the next frame is taken in only after it (the timer interrupt
 * preempts the intake): the gap is one frame's intake (~95 us) plus one
 * command's execution (~130 us with an 82 us write at 400 kHz, twi_bus.h),
 * ~253 us; ~346 us where the second USB packet is fetched (main loop,
 * usb_poll).  The nine take ~2,320 us. */
#define LATE_BATCH_MAX_GAP_US 350.0
#define LATE_BATCH_MAX_SPAN_US 2400.0

static bool batch_already_due_runs_as_fast_as_it_is_taken_in(void)
{
    double arrive, starts[BATCH_WRITES + 4u], write_us[BATCH_WRITES + 4u];
    if (!run_batch(-200, &arrive, starts, write_us)) {
        return false;
    }
    CHECK(starts[0] - arrive < 250.0, "first write %.1f us after arrival", starts[0] - arrive);
    for (uint32_t i = 1; i < BATCH_WRITES; i++) {
        double gap = starts[i] - starts[i - 1];
        CHECK(gap < LATE_BATCH_MAX_GAP_US, "write %u started %.1f us after the previous one", i, gap);
    }
    double span = starts[BATCH_WRITES - 1u] - arrive;
    CHECK(span < LATE_BATCH_MAX_SPAN_US, "last write %.1f us after arrival", span);
    return true;
}

/* 500 us ahead, the frames taken in by the stamp (at ~95 us each, at least
 * four) run back to back on it: one bus write after another, no intake
 * between them (the gap is the previous write plus ~49 us of spin and
 * set-up, SPIN_US 60). */
#define BACK_TO_BACK_OVERHEAD_US 55.0

static bool batch_due_soon_starts_on_its_stamp_back_to_back(void)
{
    double arrive, starts[BATCH_WRITES + 4u], write_us[BATCH_WRITES + 4u];
    if (!run_batch(500, &arrive, starts, write_us)) {
        return false;
    }
    /* The first latches (its STOP) on the stamp. */
    double stamp = (double)(uint32_t)((int32_t)arrive + 500);
    double latch = starts[0] + write_us[0];
    CHECK(latch >= stamp - LATCH_EARLY_US && latch - stamp < 20.0, "first write latched %.1f us after its stamp",
          latch - stamp);
    /* The first starts a write's time before the stamp now (it latches on
     * it), so three frames are in by then, not four. */
    for (uint32_t i = 1; i < 3; i++) {
        double gap = starts[i] - starts[i - 1];
        CHECK(gap < write_us[i - 1] + BACK_TO_BACK_OVERHEAD_US,
              "write %u started %.1f us after the previous one, which took %.1f us", i, gap, write_us[i - 1]);
    }
    for (uint32_t i = 3; i < BATCH_WRITES; i++) {
        double gap = starts[i] - starts[i - 1];
        CHECK(gap < LATE_BATCH_MAX_GAP_US, "write %u started %.1f us after the previous one", i, gap);
    }
    return true;
}

/* Intake cost: cycles from a bulk OUT packet reaching the bank to the core
 * queueing each of its frames (the CPU arriving at hb_queue_push), stepped one
 * instruction at a time.  Stamps are 20 ms ahead so no command runs meanwhile.
 * Packets after the first are offered after every instruction, as a host
 * retrying a NAKed packet would (the bank frees as soon as the port has
 * copied the previous one out). */
#define INTAKE_MAX_CYCLES (16u * 20000u)

static bool intake_one_transfer(const batch *b, uint32_t frames, double *first_us, double *last_us)
{
    uint32_t push = sim_board_symbol(&board, "hb_queue_push");
    CHECK(push, "no hb_queue_push in the ELF's symbols");
    uint8_t off = 0;
    int r = usb_host_bulk_out_once(&board, 2, b->bytes, (uint8_t)(b->len < 64 ? b->len : 64));
    CHECK(r > 0, "bulk OUT bank busy (%d)", r);
    off = (uint8_t)r;
    avr_cycle_count_t t0 = board.avr->cycle, end = t0 + INTAKE_MAX_CYCLES;
    uint32_t queued = 0;
    while (queued < frames && board.avr->cycle < end) {
        if (!sim_run_until_pc(&board, push, 1)) {
            if (off < b->len) {
                uint8_t n = (uint8_t)(b->len - off > 64 ? 64 : b->len - off);
                r = usb_host_bulk_out_once(&board, 2, &b->bytes[off], n);
                if (r > 0) {
                    off = (uint8_t)(off + r);
                } else if (r != AVR_IOCTL_USB_NAK) {
                    return fail("bulk OUT failed (%d)", r);
                }
            }
            continue;
        }
        double us = (double)(board.avr->cycle - t0) / SIM_CYCLES_PER_US;
        if (queued == 0) {
            *first_us = us;
        }
        *last_us = us;
        queued++;
        sim_run_cycles(&board, 1); /* step off the entry */
    }
    CHECK(queued == frames, "%u of %u frames queued", queued, frames);
    return true;
}

static bool frame_intake_cost_is_measured(void)
{
    link_frame r;
    batch all, one;
    /* one frame per transfer */
    CHECK(hello(1000, 0, &r), "no HELLO_REPLY");
    CHECK(batch_setup(&all, stamp_in(20000)), "batch");
    double sum = 0, worst = 0;
    host.tx_seq = (uint8_t)(host.tx_seq - BATCH_WRITES); /* resend the same frames one by one */
    for (uint32_t i = 0; i < BATCH_WRITES; i++) {
        uint8_t len = i + 1u < BATCH_WRITES ? 12u : 11u;
        memcpy(one.bytes, &all.bytes[i * 12u], len);
        one.len = len;
        host.tx_seq++;
        double first, last;
        if (!intake_one_transfer(&one, 1, &first, &last)) {
            return false;
        }
        sum += first;
        worst = first > worst ? first : worst;
        link_pump(&host, 200);
    }
    CHECK(!link_take(&host, HB_T_NAK, &r), "NAK reason %u", r.payload[HB_NAK_OFF_REASON]);
    printf("# intake, one frame per transfer: packet in bank -> queued mean %.1f us, max %.1f us\n",
           sum / BATCH_WRITES, worst);
    /* all in one transfer */
    CHECK(hello(1000, 0, &r), "no HELLO_REPLY");
    link_pump(&host, 500);
    CHECK(batch_setup(&all, stamp_in(20000)), "batch");
    double first, last;
    if (!intake_one_transfer(&all, BATCH_WRITES, &first, &last)) {
        return false;
    }
    link_pump(&host, 200);
    CHECK(!link_take(&host, HB_T_NAK, &r), "NAK reason %u", r.payload[HB_NAK_OFF_REASON]);
    printf("# intake, %u frames in one %u-byte transfer: first queued %.1f us, last %.1f us, "
           "%.1f us per frame after the first\n",
           BATCH_WRITES, all.len, first, last, (last - first) / (BATCH_WRITES - 1u));
    /* ~160 us with a decoder call per byte; ~90 us taking a frame's header
     * and body in runs (frame.c hb_decoder_push_bytes). */
    double per_frame = (last - first) / (BATCH_WRITES - 1u);
    CHECK(per_frame < 110.0, "%.1f us per frame batched", per_frame);
    CHECK(hello(1000, 0, &r), "no HELLO_REPLY"); /* drops the far-stamped commands */
    return true;
}

void run_stamp_timing_tests(void)
{
    run_test("stamped commands execute at their stamp", stamped_commands_execute_at_their_stamp);
}

void run_batch_tests(void)
{
    run_test("frame intake cost is measured", frame_intake_cost_is_measured);
    run_test("a batch already due on arrival runs as fast as it is taken in",
             batch_already_due_runs_as_fast_as_it_is_taken_in);
    run_test("a batch due soon starts on its stamp, the frames taken in back to back",
             batch_due_soon_starts_on_its_stamp_back_to_back);
}
