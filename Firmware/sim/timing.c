#include "timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"

#define LOOKAHEAD_US 8000u   /* the host stays this far ahead of the board */
#define FIRST_STAMP_US 5000u
/* A command's time is when the chip takes it: the STOP of the write that
 * carries it (PROTOCOL.md).  Later than this fails, and so does earlier than
 * LATCH_EARLY_US before the stamp; the goal is within 1 us (README,
 * "Measured"). */
#define MAX_LATCH_ERROR_US 2.0
#define LATCH_EARLY_US 1.5
#define MAX_CMDS 20000u

typedef struct planned {
    uint32_t at;
    uint8_t type;
    uint8_t a, b; /* RTP: amplitude; REG: reg, value; ROM: effect */
} planned;

static uint32_t command_count = 600;


void timing_set_commands(uint32_t n) { command_count = n > MAX_CMDS ? MAX_CMDS : n; }
uint32_t timing_commands(void) { return command_count; }

/* Deterministic mix: mostly RTP samples, some register writes and ROM
 * sequences (which switch MODE and so cost extra bus writes), and stops (the
 * chip in standby) each followed by an RTP: a start from standby, whose MODE
 * write must go ahead of the stamp. */
static void plan(planned *p, uint32_t n, uint32_t first)
{
    uint32_t lcg = 12345u, at = first;
    for (uint32_t i = 0; i < n; i++) {
        lcg = lcg * 1103515245u + 12345u;
        at += 400u + (lcg >> 16) % 2600u; /* 0.4 .. 3 ms apart */
        p[i].at = at;
        if (i % 50 == 25) {
            p[i].type = HB_T_CMD_ROM_SEQ;
            p[i].a = (uint8_t)(1u + i % DRV2605_EFFECT_ID_MAX);
        } else if (i % 20 == 12) {
            p[i].type = HB_T_CMD_STOP;
        } else if (i % 10 == 7) {
            p[i].type = HB_T_CMD_REG_WRITE;
            p[i].a = DRV2605_REG_RATED_VOLTAGE;
            p[i].b = (uint8_t)i;
        } else {
            p[i].type = HB_T_CMD_RTP;
            p[i].a = (i % 20 == 19) ? 0 : (uint8_t)(((i * 37u) & 0x7Fu) | 1u);
        }
    }
}

static bool send_planned(link *host, const planned *c)
{
    uint8_t p[HB_FRAME_MAX_PAYLOAD];
    hb_put_u32(&p[HB_CMD_OFF_AT_US], c->at);
    switch (c->type) {
    case HB_T_CMD_RTP:
        p[HB_CMD_RTP_OFF_AMPLITUDE] = c->a;
        return link_send(host, c->type, p, HB_CMD_RTP_LEN);
    case HB_T_CMD_REG_WRITE:
        p[HB_CMD_REG_OFF_REG] = c->a;
        p[HB_CMD_REG_OFF_VALUE] = c->b;
        return link_send(host, c->type, p, HB_CMD_REG_WRITE_LEN);
    case HB_T_CMD_STOP:
        return link_send(host, c->type, p, HB_CMD_STOP_LEN);
    default:
        p[HB_CMD_ROM_OFF_ENTRIES] = c->a;
        return link_send(host, c->type, p, HB_CMD_ROM_MIN_LEN);
    }
}

/* Board time estimated the way a real host does: one SYNC exchange,
 * board = host + (rx - midpoint). */
static bool sync_offset(sim_board *b, link *host, double *offset)
{
    uint8_t p[HB_SYNC_LEN] = {0};
    double t0 = sim_now_us(b);
    if (!link_send(host, HB_T_SYNC, p, sizeof p)) {
        return false;
    }
    link_frame r;
    if (!link_wait(host, HB_T_SYNC_REPLY, 5000, &r)) {
        return false;
    }
    double mid = (t0 + r.at_us) / 2.0;
    *offset = (double)hb_get_u32(&r.payload[HB_SYNC_REPLY_OFF_RX_US]) - mid;
    return true;
}

typedef struct expect_write {
    uint8_t reg, value;
} expect_write;

/* What the driver must put on the bus for one command, given MODE so far;
 * *carrier: the index of the write that carries it (the chip takes the
 * command at its STOP). */
static uint8_t expected_writes(const planned *c, uint8_t *mode, expect_write *w, uint8_t *carrier)
{
    uint8_t n = 0;
    *carrier = 0;
    switch (c->type) {
    case HB_T_CMD_STOP:
        w[n++] = (expect_write){DRV2605_REG_RTP_INPUT, 0};
        w[n++] = (expect_write){DRV2605_REG_GO, 0};
        *mode = DRV2605_MODE_STANDBY | DRV2605_MODE_INTERNAL_TRIGGER;
        w[n++] = (expect_write){DRV2605_REG_MODE, *mode};
        return n;
    case HB_T_CMD_RTP:
        if (*mode != DRV2605_MODE_RTP) {
            w[n++] = (expect_write){DRV2605_REG_MODE, DRV2605_MODE_RTP};
            *mode = DRV2605_MODE_RTP;
        }
        w[n++] = (expect_write){DRV2605_REG_RTP_INPUT, c->a};
        break;
    case HB_T_CMD_REG_WRITE:
        w[n++] = (expect_write){c->a, c->b};
        break;
    default:
        if (*mode != DRV2605_MODE_INTERNAL_TRIGGER) {
            w[n++] = (expect_write){DRV2605_REG_MODE, DRV2605_MODE_INTERNAL_TRIGGER};
            *mode = DRV2605_MODE_INTERNAL_TRIGGER;
        }
        w[n++] = (expect_write){DRV2605_REG_WAV_FRM_SEQ1, c->a};
        w[n++] = (expect_write){DRV2605_REG_GO, DRV2605_GO_GO};
        break;
    }
    *carrier = (uint8_t)(n - 1u);
    return n;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double pct(const double *sorted, uint32_t n, double q)
{
    uint32_t i = (uint32_t)ceil(q * n);
    return sorted[(i ? i : 1) - 1];
}

static void report(const char *what, double *v, uint32_t n)
{
    qsort(v, n, sizeof v[0], cmp_double);
    printf("# %s over %u commands (us): min %.2f p50 %.2f p99 %.2f p99.9 %.2f max %.2f\n", what, n,
           v[0], pct(v, n, 0.50), pct(v, n, 0.99), pct(v, n, 0.999), v[n - 1]);
}

/* |latch - stamp| (sorted in place: call after any use of the order), with
 * the START-based figure the benchmarks gave before beside it. */
static void report_latch(const char *which, double *latch, double *start, uint32_t n)
{
    if (!n) {
        return;
    }
    qsort(latch, n, sizeof latch[0], cmp_double);
    double lo = latch[0], hi = latch[n - 1];
    for (uint32_t i = 0; i < n; i++) {
        latch[i] = fabs(latch[i]);
        start[i] = fabs(start[i]);
    }
    qsort(latch, n, sizeof latch[0], cmp_double);
    qsort(start, n, sizeof start[0], cmp_double);
    printf("# latch%s: |STOP of the carrying write - stamp| over %u commands (us): p50 %.2f p99 %.2f p99.9 %.2f "
           "max %.2f (signed %+.2f .. %+.2f); |START - stamp| p50 %.2f p99.9 %.2f max %.2f\n",
           which, n, pct(latch, n, 0.50), pct(latch, n, 0.99), pct(latch, n, 0.999), latch[n - 1], lo, hi,
           pct(start, n, 0.50), pct(start, n, 0.999), start[n - 1]);
}

bool timing_stream(sim_board *b, drv_model *chip, link *host, char *why, size_t why_len)
{
    uint32_t n = command_count;
    planned *cmds = calloc(n, sizeof *cmds);
    double *start_err = calloc(n, sizeof *start_err);
    double *done_err = calloc(n, sizeof *done_err);
    double *latch_err = calloc(n, sizeof *latch_err);
    double *standby_latch = calloc(n, sizeof *standby_latch);
    double *standby_start = calloc(n, sizeof *standby_start);
    bool ok = false;
    double offset;
    if (!cmds || !start_err || !done_err || !latch_err || !standby_latch || !standby_start ||
        !sync_offset(b, host, &offset)) {
        snprintf(why, why_len, "setup or SYNC failed");
        goto out;
    }
    uint32_t first_txn = chip->count;
    uint8_t mode = chip->regs[DRV2605_REG_MODE];
    plan(cmds, n, (uint32_t)(sim_now_us(b) + offset) + FIRST_STAMP_US);

    for (uint32_t sent = 0; sent < n;) {
        double est_board = sim_now_us(b) + offset;
        if (est_board + LOOKAHEAD_US >= cmds[sent].at) {
            if (!send_planned(host, &cmds[sent])) {
                snprintf(why, why_len, "send %u failed", sent);
                goto out;
            }
            sent++;
        } else {
            link_pump(host, 100);
        }
    }
    link_pump(host, LOOKAHEAD_US + 5000);
    if (link_take(host, HB_T_NAK, NULL) || link_take(host, HB_T_EVENT_STOPPED, NULL)) {
        snprintf(why, why_len, "board refused or stopped part of the stream");
        goto out;
    }

    if (chip->log_full) {
        snprintf(why, why_len, "transaction log full: raise DRV_LOG_MAX");
        goto out;
    }
    uint32_t t = first_txn, standby = 0;
    double worst_err = -1e9;
    uint32_t worst_cmd = 0, worst_txn = first_txn;
    for (uint32_t i = 0; i < n; i++) {
        expect_write w[3];
        bool from_standby = cmds[i].type == HB_T_CMD_RTP && (mode & DRV2605_MODE_STANDBY);
        uint8_t carrier;
        uint8_t k = expected_writes(&cmds[i], &mode, w, &carrier);
        const drv_txn *first = NULL, *last = NULL, *carrying = NULL;
        for (uint8_t j = 0; j < k; j++) {
            while (t < chip->count && chip->log[t].is_read) {
                t++; /* status and GO polls */
            }
            if (t >= chip->count) {
                snprintf(why, why_len, "command %u: write %u never happened", i, j);
                goto out;
            }
            const drv_txn *x = &chip->log[t++];
            if (x->reg != w[j].reg || x->n < 1 || x->bytes[0] != w[j].value) {
                snprintf(why, why_len, "command %u: wrote reg 0x%02x=0x%02x, wanted 0x%02x=0x%02x", i,
                         x->reg, x->n ? x->bytes[0] : 0, w[j].reg, w[j].value);
                goto out;
            }
            if (!first) {
                first = x;
            }
            if (j == carrier) {
                carrying = x;
            }
            last = x;
        }
        start_err[i] = sim_board_us_at(b, first->start_cycle) - cmds[i].at;
        latch_err[i] = sim_board_us_at(b, carrying->stop_cycle) - cmds[i].at;
        if (latch_err[i] > worst_err) {
            worst_err = latch_err[i];
            worst_cmd = i;
            worst_txn = (uint32_t)(carrying - chip->log);
        }
        done_err[i] = sim_board_us_at(b, last->stop_cycle) - cmds[i].at;
        if (from_standby) {
            standby_latch[standby] = latch_err[i];
            standby_start[standby++] = start_err[i];
        }
    }

    double earliest = 0;
    for (uint32_t i = 0; i < n; i++) {
        earliest = latch_err[i] < earliest ? latch_err[i] : earliest;
    }
    /* What held the latest command back: the bus transaction before it. */
    if (worst_txn > first_txn) {
        const drv_txn *prev = &chip->log[worst_txn - 1u];
        double at = cmds[worst_cmd].at;
        printf("# latest latch: command %u (type 0x%02x) %.2f us after its stamp; before its write on the bus: %s of "
               "reg 0x%02x from %.2f to %.2f us around the stamp\n",
               worst_cmd, cmds[worst_cmd].type, worst_err, prev->is_read ? "read" : "write", prev->reg,
               sim_board_us_at(b, prev->start_cycle) - at, sim_board_us_at(b, prev->stop_cycle) - at);
        if (worst_txn > first_txn + 1u) {
            const drv_txn *pp = &chip->log[worst_txn - 2u];
            printf("# and before that: %s of reg 0x%02x from %.2f to %.2f us; the command before stamped %.2f us "
                   "earlier\n",
                   pp->is_read ? "read" : "write", pp->reg, sim_board_us_at(b, pp->start_cycle) - at,
                   sim_board_us_at(b, pp->stop_cycle) - at, worst_cmd ? at - cmds[worst_cmd - 1u].at : 0.0);
        }
    }
    report("stamp -> I2C START error", start_err, n);
    report("stamp -> last STOP of the command", done_err, n);
    report_latch("", latch_err, start_err, n);
    report_latch(" from standby (RTP after a stop: MODE write ahead)", standby_latch, standby_start, standby);
    if (earliest < -LATCH_EARLY_US) {
        snprintf(why, why_len, "a command latched %.2f us before its stamp", -earliest);
        goto out;
    }
    if (worst_err > MAX_LATCH_ERROR_US) {
        snprintf(why, why_len, "worst latch error %.2f us exceeds %.2f us", worst_err, MAX_LATCH_ERROR_US);
        goto out;
    }
    if (!standby) {
        snprintf(why, why_len, "no start from standby in the stream");
        goto out;
    }
    ok = true;
out:
    free(cmds);
    free(start_err);
    free(done_err);
    free(latch_err);
    free(standby_latch);
    free(standby_start);
    return ok;
}
