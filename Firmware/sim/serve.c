/*
 * sim-harness --serve FIRMWARE.elf [--poll-us N] [--chip host] [--accel ADDR]
 *
 * The firmware ELF under simavr as a USB device that another program drives:
 * the Swift SimavrBridgeDevice, so the HapticEngine itself can stream to the
 * real firmware.  Time is simulated and moves only when asked ("run"), so a
 * host on the other end sees virtual time, like the in-process simulated board.
 *
 * One command per line on stdin; every reply and event is one line on stdout,
 * flushed at once.  Times are µs with 4 decimals (one cycle is 1/16 µs).
 *
 *   send HEX   bytes to bulk OUT in 64-byte packets (whole frames)  -> ok SIM_US
 *   run T      simulate until simulated time T µs                  -> done SIM_US
 *   now                                                            -> done SIM_US
 *   stack      RAM the stack never reached above .bss, and .data+.bss bytes
 *                                                      -> stack FREE DATA
 *   quit                                                           -> bye
 *
 * Events, printed as they happen, before the reply of the command they
 * happened in:
 *   ready SIM_US EPOCH_US   booted and enumerated; board time = SIM_US - EPOCH_US
 *   frame SIM_US HEX        one board frame, read from bulk IN at that poll
 *   i2c START_BOARD_US START_SIM_US STOP_BOARD_US w|r ADDR HEX
 *                           one transaction at the DRV2605 model (or at the
 *                           accelerometer, ADDR its address): board clock
 *                           (the firmware's now_us) at START and STOP, simulated
 *                           time at START; HEX = register pointer, then data
 *   detach SIM_US           the firmware left the bus (bootloader jump)
 *   reset SIM_US EPOCH_US   the firmware rebooted; enumerated again, new epoch
 *   err MESSAGE             a command failed; fatal ones end the process (exit 1)
 *
 * --chip host: the DRV2605 is the host's (drv_model.h, drv_host), not the
 * harness's register file.  While a command runs:
 *   chip w SIM_US HEX       a write reached the chip at its STOP (SIM_US): HEX =
 *                           register pointer, then data.  No reply.
 *   chip r SIM_US RR        the firmware clocks one byte of register RR at SIM_US;
 *                           the host answers with the line "chip VV" and the
 *                           simulation waits for it.
 *
 * --accel ADDR (hex, e.g. 18): an accelerometer answers at ADDR, the host's (its
 * LIS3DH model, reading the same actuator physics): the same exchanges as the
 * chip's, named "accel": "accel w SIM_US HEX", "accel r SIM_US SS N" -> "accel VV" (SS the
 * transaction's sub-address, N the byte's index since it: the sensor moves its
 * own pointer).
 * The bus timing (twi_bus.h) is the same for every address: a FIFO read of 36
 * bytes holds the bus its real time.
 */
#include "serve.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drv_model.h"
#include "enumerate.h"
#include "hapbridge/drv2605_regs.h"
#include "hapbridge/frame.h"
#include "hapbridge/protocol.h"
#include "line_io.h"
#include "sim_board.h"
#include "usb_host.h"

#define EP_IN 1u
#define EP_OUT 2u
#define USB_ADDRESS 7u
#define BOOT_MAX_US 100000u  /* identity read, clock, USB attach, chip probe */
#define MAX_SEND 4096u
#define MAX_PACKETS_PER_POLL 4 /* the 128-byte ring is at most 2 packets: a bound only */

static sim_board board;
static drv_model chip;
static drv_model accel; /* --accel: attached when addr != 0 */
static hb_decoder from_board;
static avr_cycle_count_t poll_cycles, next_poll;
static avr_cycle_count_t epoch; /* timer1_start as last reported */
static uint32_t seen_boots;
static bool detached;

static double us(avr_cycle_count_t c) { return (double)c / SIM_CYCLES_PER_US; }
static double now(void) { return us(board.avr->cycle); }

static double board_us_at(avr_cycle_count_t c) { return sim_board_us_at_logged(&board, c, epoch); }

/* --chip host, --accel: the host's peers, over stdin/stdout (the host writes
 * nothing else while a command of its runs, so the next line is the answer).
 * ctx is the peer's name, the first word of its lines. */
static void host_peer_wrote(void *ctx, avr_cycle_count_t stop, uint8_t reg, const uint8_t *bytes, uint8_t n)
{
    line_out_peer_write(ctx, us(stop), reg, bytes, n);
}

static bool host_peer_read(void *ctx, avr_cycle_count_t cycle, uint8_t reg, uint8_t sub, uint8_t index, uint8_t *value)
{
    const char *peer = ctx;
    size_t plen = strlen(peer);
    if (strcmp(peer, "chip") == 0) {
        line_out("chip r %.4f %02x", us(cycle), reg);
    } else {
        line_out("%s r %.4f %02x %u", peer, us(cycle), sub, index); /* the host moves its own pointer */
    }
    char *line = NULL;
    size_t cap = 0;
    bool ok = getline(&line, &cap, stdin) > 0;
    if (ok) {
        line[strcspn(line, "\r\n")] = 0;
        ok = strncmp(line, peer, plen) == 0 && line[plen] == ' ' && hex_decode(line + plen + 1, value, 1) == 1;
    }
    if (!ok) {
        line_out("err --%s host: expected \"%s VV\" for register %02x, got %.40s", peer, peer, reg,
                 line ? line : "end of input");
    }
    free(line);
    return ok;
}

static const drv_host host_chip = {host_peer_wrote, host_peer_read, (void *)"chip"};
static const drv_host host_accel = {host_peer_wrote, host_peer_read, (void *)"accel"};

/* Prints and forgets the transactions logged since the last call, so the
 * model's log never fills however long the host runs. */
static void emit_i2c(void)
{
    uint32_t ia = 0, ib = 0;
    uint8_t addr;
    const drv_txn *t;
    while ((t = drv_model_next_logged(&chip, accel.addr ? &accel : NULL, &ia, &ib, &addr))) {
        char text[2 * (1 + DRV_TXN_MAX_BYTES) + 1];
        hex_encode_register_access(text, t->reg, t->bytes, t->n);
        line_out("i2c %.4f %.4f %.4f %c %02x %s", board_us_at(t->start_cycle), us(t->start_cycle),
             board_us_at(t->stop_cycle), t->is_read ? 'r' : 'w', addr, text);
    }
    drv_model_clear_log(&chip);
    drv_model_clear_log(&accel);
}

/* One host poll of bulk IN.  Frames are printed whole: re-encoding a frame the
 * decoder accepted gives back exactly its bytes (the fuzzer checks this), and
 * a corrupt run from the board is dropped as a USB host's CRC would drop it
 * (the engine then sees a board sequence gap). */
static void poll_in(void)
{
    uint8_t buf[64];
    for (int p = 0; p < MAX_PACKETS_PER_POLL; p++) {
        int n = usb_host_bulk_in(&board, EP_IN, buf);
        if (n <= 0) {
            return;
        }
        for (int i = 0; i < n; i++) {
            if (hb_decoder_push(&from_board, buf[i]) != HB_DECODE_FRAME) {
                continue;
            }
            uint8_t frame[HB_FRAME_MAX_LEN];
            char text[2 * HB_FRAME_MAX_LEN + 1];
            uint8_t len = hb_frame_encode(frame, hb_decoder_seq(&from_board), hb_decoder_type(&from_board),
                                          hb_decoder_payload(&from_board), hb_decoder_len(&from_board));
            hex_encode(text, frame, len);
            line_out("frame %.4f %s", now(), text);
        }
    }
}

/* While a send waits on the board's flow control, bulk IN is read as a host
 * controller reads it (usb_host_set_wait_hook). */
static void poll_in_while_waiting(void *ctx)
{
    (void)ctx;
    if (!detached && !board.usb_detached) {
        poll_in();
    }
}

/* Detach (bootloader jump) and reboots (watchdog) as a USB host sees them:
 * the device goes, then a new one enumerates. */
static bool check_link(void)
{
    if (!detached && board.usb_detached) {
        detached = true; /* from this cycle on usb_host.c gets no answer */
        line_out("detach %.4f", us(board.detach_cycle));
    }
    if (board.boots == seen_boots) {
        return true;
    }
    seen_boots = board.boots;
    if (!detached) { /* detached and re-attached within one step: still a detach */
        line_out("detach %.4f", us(board.detach_cycle > epoch ? board.detach_cycle : board.timer1_start));
    }
    bool ran = sim_board_boot(&board, BOOT_MAX_US);
    emit_i2c(); /* under both epochs: board_us_at tells them apart */
    epoch = board.timer1_start;
    if (!ran) {
        return false;
    }
    hb_decoder_init(&from_board);
    char why[160];
    if (!usb_enumerate(&board, USB_ADDRESS, why, sizeof why)) {
        line_out("err enumeration after reset failed: %s", why);
        return false;
    }
    emit_i2c();
    detached = false;
    line_out("reset %.4f %.4f", now(), us(epoch));
    return true;
}

/* Runs to `end`, stopping at every poll instant.  Polls sit on a fixed grid
 * of simulated time, so how the host splits its "run"s changes nothing. */
static bool run_to(avr_cycle_count_t end)
{
    while (board.avr->cycle < end) {
        avr_cycle_count_t stop = end < next_poll ? end : next_poll;
        if (stop > board.avr->cycle && !sim_run_cycles(&board, stop - board.avr->cycle)) {
            emit_i2c();
            return false;
        }
        emit_i2c();
        if (board.avr->cycle >= next_poll) {
            if (!detached) {
                poll_in();
            }
            while (next_poll <= board.avr->cycle) {
                next_poll += poll_cycles;
            }
        }
        if (!check_link()) {
            return false;
        }
    }
    return true;
}

static void cmd_send(const char *text)
{
    static uint8_t bytes[MAX_SEND];
    int decoded = hex_decode(text, bytes, MAX_SEND);
    size_t n = decoded > 0 ? (size_t)decoded : 0;
    if (decoded <= 0) {
        line_out("err send: expected 1..%u bytes as hex", MAX_SEND);
        return;
    }
    if (detached || board.usb_detached) {
        line_out("err send: detached");
        return;
    }
    for (size_t off = 0; off < n; off += 64) {
        uint8_t chunk = (uint8_t)(n - off > 64 ? 64 : n - off);
        /* a full OUT bank is NAKed: usb_host retries, running the CPU meanwhile */
        if (usb_host_bulk_out(&board, EP_OUT, &bytes[off], chunk) < 0) {
            emit_i2c();
            line_out("err send: bulk OUT not accepted after %zu of %zu bytes", off, n);
            return;
        }
    }
    emit_i2c();
    line_out("ok %.4f", now());
}

int serve_main(const char *elf_path, uint32_t poll_us, bool chip_on_host, uint8_t accel_addr)
{
    if (!sim_board_load(&board, elf_path)) {
        line_out("err cannot load firmware %s", elf_path);
        return 1;
    }
    /* "stack" reports how deep the stack has reached since boot. */
    if (!sim_board_paint_stack(&board)) {
        line_out("err no __bss_end in %s", elf_path);
        return 1;
    }
    drv_model_attach(&chip, board.avr);
    usb_host_set_wait_hook(poll_in_while_waiting, NULL);
    if (chip_on_host) {
        drv_model_use_host(&chip, &host_chip);
    }
    if (accel_addr) {
        drv_model_attach_at(&accel, board.avr, accel_addr, &host_accel);
    }
    hb_decoder_init(&from_board);
    poll_cycles = (avr_cycle_count_t)(poll_us ? poll_us : 1u) * SIM_CYCLES_PER_US;
    if (!sim_board_boot(&board, BOOT_MAX_US)) {
        line_out("err firmware did not boot");
        return 1;
    }
    char why[160];
    if (!usb_enumerate(&board, USB_ADDRESS, why, sizeof why)) {
        line_out("err enumeration failed: %s", why);
        return 1;
    }
    seen_boots = board.boots;
    epoch = board.timer1_start;
    next_poll = board.avr->cycle + poll_cycles;
    emit_i2c();
    line_out("ready %.4f %.4f", now(), us(epoch));

    char *cmd = NULL;
    size_t cap = 0;
    ssize_t got;
    while ((got = getline(&cmd, &cap, stdin)) > 0) {
        cmd[strcspn(cmd, "\r\n")] = 0;
        if (strncmp(cmd, "send ", 5) == 0) {
            cmd_send(cmd + 5);
        } else if (strncmp(cmd, "run ", 4) == 0) {
            double t = strtod(cmd + 4, NULL);
            avr_cycle_count_t end = t > 0 ? (avr_cycle_count_t)(t * SIM_CYCLES_PER_US) : 0;
            if (!run_to(end)) {
                line_out("err simulated CPU stopped at %.4f (pc 0x%04x)", now(), board.avr->pc);
                free(cmd);
                return 1;
            }
            line_out("done %.4f", now());
        } else if (strcmp(cmd, "now") == 0) {
            line_out("done %.4f", now());
        } else if (strcmp(cmd, "stack") == 0) {
            uint32_t data_bytes, free_bytes = sim_board_stack_free(&board, &data_bytes);
            line_out("stack %u %u", free_bytes, data_bytes);
        } else if (strcmp(cmd, "quit") == 0) {
            line_out("bye");
            break;
        } else {
            line_out("err unknown command: %.40s", cmd);
        }
    }
    free(cmd);
    return 0;
}
