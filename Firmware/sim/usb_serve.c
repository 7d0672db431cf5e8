/*
 * sim-harness --usb FIRMWARE.elf [--serial S] [--poll-us N] [--fifo-priority N] [--chip host]
 *             [--accel ADDR] [--application FLASH.bin] [--eeprom EEPROM.bin]
 *
 * The firmware ELF under simavr as a USB device on a real-time bus: simulated
 * time is paced to the host's monotonic clock (the simulation runs ahead in
 * slices of SLICE_US and waits for the wall clock to catch up), and the host on
 * the other end of stdin/stdout is the emulated host controller of
 * `hapbridge emulate bridge --firmware elf` (Sources/USBEmulation,
 * ELFBridgeBoard).  Nothing here interprets the hapbridge protocol: control
 * transfers, bulk packets and resets go to the firmware's own USB stack, and
 * its answers come back as they are.  What the kernel does at enumeration
 * (SET_ADDRESS, GET_DESCRIPTOR, SET_CONFIGURATION) the host sends as control
 * transfers.
 *
 * --application FLASH.bin: the application section is these bytes (flash from
 * 0x0000, at most 28 KiB; the rest erased) instead of the ELF's image: what a
 * bootloader wrote, so the emulation boots what `hapbridge flash` flashed.  The
 * ELF still gives the MCU and clock.
 *
 * --eeprom EEPROM.bin: the board's EEPROM from byte 0 (at most its 1 KiB), over
 * the --serial record: what a bootloader left there (`hapbridge flash --serial`),
 * so the firmware reads its serial from it as the board would.
 *
 * --fifo-priority N asks SCHED_FIFO at N for the harness (where permitted; normal
 * priority otherwise): the simulation needs about half a core to keep the wall
 * clock, and at normal priority any busy process on the machine makes it lag.
 *
 * The board is the suite's (suite.h, boot_board): the serial number in the
 * EEPROM record the firmware reads its identity from (board_identity.h), a
 * Caterina image in its boot section.
 *
 * One command per line on stdin; every reply and event is one line on stdout,
 * flushed at once.  IDs are the host's, echoed back.  Times: SIM_US simulated
 * µs, BOARD_US the firmware's own clock (Timer1 since its boot), HOST_US the
 * host's CLOCK_MONOTONIC in µs.
 *
 *   control ID SETUP [DATA]   control transfer: 8-byte setup packet, OUT data stage
 *                             -> control ID ok [IN DATA] | control ID stall | control ID gone
 *   out ID EP HEX             bulk OUT transfer, sent in 64-byte packets; NAKed packets
 *                             are retried every slice  -> out ID ok BOARD_US HOST_US | out ID stall | out ID gone
 *   poll EP on|off            whether the host polls bulk IN endpoint EP (it does while
 *                             it has a transfer queued there)
 *   busreset ID               USB bus reset                -> busreset ID ok
 *   quit                                                   -> bye
 *
 * Any of these may come as "@HOST_US LINE": sent at HOST_US on the host's clock.
 * It is then carried out when simulated time reaches HOST_US under the pacing, not
 * before (below, "lines stamped with the host's clock"): what a board that keeps
 * real time would see, when the simulation has fallen behind the wall clock.
 *
 * Events:
 *   ready SIM_US EPOCH_US     booted and bus-reset: waiting at address 0 to be enumerated
 *   in EP HEX                 one bulk IN packet, read at a poll (every --poll-us of
 *                             simulated time while polling); "in EP stall" for a STALL
 *   i2c BOARD_US STOP_BOARD_US HOST_US w|r ADDR HEX
 *                             one transaction at the DRV2605 model (HEX: register
 *                             pointer, then data); HOST_US is when its START was due
 *                             on the host's clock under the pacing, plus how far the
 *                             simulation was behind the clock when it was reported
 *                             (0 while it keeps up, which it does at ~2x real time)
 *   detach SIM_US             the firmware left the bus (UDCON.DETACH: bootloader jump)
 *   reboot SIM_US EPOCH_US    the firmware restarted (watchdog) and is on the bus again,
 *                             bus-reset, waiting to be enumerated
 *   err MESSAGE               a command could not be carried out
 *
 * --chip host: the DRV2605 is the host's (drv_model.h, drv_host), not the
 * harness's register file:
 *   chip w SIM_US HEX         a write reached the chip at its STOP: HEX = register
 *                             pointer, then data.  No reply.
 *   chip r SIM_US RR          the firmware clocks one byte of register RR; the host
 *                             answers "chip VV" and the simulation waits for it
 *   chip t SIM_US             every CHIP_TICK_US of simulated time: the host brings
 *                             its chip (and the actuator's physics) to SIM_US, so a
 *                             read waits only for its answer, not for the physics
 *                             of the time since the last transaction (a STATUS poll
 *                             20 ms after the last one stalled the board ~50 us)
 *                             (commands that come meanwhile wait their turn).
 *
 * --accel ADDR (hex, e.g. 18): an accelerometer on the bus at ADDR, the host's
 * (its LIS3DH model, on the same physics as the chip): "accel w SIM_US HEX",
 * "accel r SIM_US SS N" -> "accel VV" (SS the sub-address written, N the
 * byte's index since it: the sensor moves its own pointer), as the chip's; its transactions are "i2c"
 * events at ADDR.  "chip t" ticks run with it too (the host brings both along).
 */
#include "usb_serve.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avr_usb.h>
#include <sim_io.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"
#include "line_io.h"
#include "realtime_io.h"
#include "suite.h"
#include "usb_host.h"

#define CHIP_TICK_US 1000u  /* "chip t": how often the host's chip is brought along */
#define BOOT_MAX_US 100000u /* identity read, clock, USB attach, chip probe */
#define SLICE_US 100u  /* simulated time run between two looks at the host */
#define BULK_PACKET 64u
#define MAX_OUT 16u     /* bulk OUT transfers in flight */
#define MAX_BYTES 4096u /* largest transfer accepted */
#define MAX_PACKETS_PER_POLL 4 /* the port's ring holds 2 packets: a bound only */
#define HOST_ENDPOINTS 16u

/* The board and its DRV2605 are the suite's (suite.h: board, chip). */
static avr_cycle_count_t slice_cycles, poll_cycles, next_poll;
static avr_cycle_count_t epoch;     /* Timer1 start of the boot the host knows */
static avr_cycle_count_t anchor_cycle;
static uint64_t anchor_host_us;     /* wall clock at anchor_cycle: the pacing */
static uint32_t seen_boots;
static bool detached;
static bool polling[HOST_ENDPOINTS];

typedef struct out_transfer {
    char id[32];
    uint8_t ep;
    uint8_t bytes[MAX_BYTES];
    uint32_t len, sent;
} out_transfer;

/* Bulk OUT transfers in submission order: one goes out only after the one
 * before it, as on the wire. */
static out_transfer outs[MAX_OUT];
static unsigned outs_head, outs_count;

static double us(avr_cycle_count_t c) { return (double)c / SIM_CYCLES_PER_US; }

/* The host clock at a simulated cycle: when the pacing has it due, plus the
 * simulation's current lag behind the wall clock.  Monotonic in the cycle. */
static uint64_t host_at(avr_cycle_count_t c)
{
    double due = (double)anchor_host_us + ((double)c - (double)anchor_cycle) / SIM_CYCLES_PER_US;
    double due_now = (double)anchor_host_us + us(board.avr->cycle - anchor_cycle);
    double t = (double)rt_host_us();
    double at = due + (t > due_now ? t - due_now : 0.0);
    return at > 0 ? (uint64_t)at : 0u;
}
static double now(void) { return us(board.avr->cycle); }

static double board_us_at(avr_cycle_count_t c) { return sim_board_us_at_logged(&board, c, epoch); }

/* ---- the host's chip (--chip host) ---------------------------------------- */

/* How long a read waits for the host's answer before the harness gives up. */
#define CHIP_REPLY_TIMEOUT_MS 10000u

/* ctx is the peer's name, its lines' first word ("chip", "accel"). */
static void host_peer_wrote(void *ctx, avr_cycle_count_t stop, uint8_t reg, const uint8_t *bytes, uint8_t n)
{
    line_out_peer_write(ctx, us(stop), reg, bytes, n);
}

static bool host_peer_read(void *ctx, avr_cycle_count_t cycle, uint8_t reg, uint8_t sub, uint8_t index, uint8_t *value)
{
    const char *peer = ctx;
    static char line[RT_MAX_LINE + 1];
    char prefix[8];
    snprintf(prefix, sizeof prefix, "%s ", peer);
    if (strcmp(peer, "chip") == 0) {
        line_out("chip r %.4f %02x", us(cycle), reg);
    } else {
        line_out("%s r %.4f %02x %u", peer, us(cycle), sub, index); /* the host moves its own pointer */
    }
    if (rt_wait_reply(prefix, line, CHIP_REPLY_TIMEOUT_MS) && hex_decode(line + strlen(prefix), value, 1) == 1) {
        return true;
    }
    line_out("err --%s host: no \"%s VV\" for register %02x within %u ms", peer, peer, reg, CHIP_REPLY_TIMEOUT_MS);
    return false;
}

static const drv_host host_chip = {host_peer_wrote, host_peer_read, (void *)"chip"};
static const drv_host host_accel = {host_peer_wrote, host_peer_read, (void *)"accel"};

/* ---- what the host learns ------------------------------------------------ */

static void emit_i2c(void)
{
    uint32_t ia = 0, ib = 0;
    uint8_t addr;
    const drv_txn *t;
    while ((t = drv_model_next_logged(&chip, accel.addr ? &accel : NULL, &ia, &ib, &addr))) {
        char text[2 * (1 + DRV_TXN_MAX_BYTES) + 1];
        hex_encode_register_access(text, t->reg, t->bytes, t->n);
        line_out("i2c %.4f %.4f %llu %c %02x %s", board_us_at(t->start_cycle), board_us_at(t->stop_cycle),
             (unsigned long long)host_at(t->start_cycle), t->is_read ? 'r' : 'w', addr, text);
    }
    drv_model_clear_log(&chip);
    drv_model_clear_log(&accel);
}

/* A detached device answers nothing: transfers in flight fail, polling stops. */
static void drop_transfers(void)
{
    for (; outs_count; outs_count--, outs_head = (outs_head + 1) % MAX_OUT) {
        line_out("out %s gone", outs[outs_head].id);
    }
    memset(polling, 0, sizeof polling);
}

/* Detach (bootloader jump) and reboots (watchdog), as a host sees them: the
 * device goes, then a new one is on the bus, reset, at address 0. */
static bool check_link(void)
{
    if (!detached && board.usb_detached) {
        detached = true;
        drop_transfers();
        line_out("detach %.4f", us(board.detach_cycle));
    }
    if (board.boots == seen_boots) {
        return true;
    }
    seen_boots = board.boots;
    if (!detached) { /* detached and re-attached within one slice: still a detach */
        drop_transfers();
        line_out("detach %.4f", us(board.detach_cycle > epoch ? board.detach_cycle : board.timer1_start));
    }
    bool ran = sim_board_boot(&board, BOOT_MAX_US);
    emit_i2c();
    epoch = board.timer1_start;
    if (!ran) {
        return false;
    }
    usb_host_bus_reset(&board);
    detached = false;
    line_out("reboot %.4f %.4f", now(), us(epoch));
    return true;
}

/* ---- commands -------------------------------------------------------------------- */

/* A control transfer with an OUT data stage: SETUP, the data in packets of the
 * control endpoint's size, then the status stage (an empty IN).  NAKs are
 * retried while the CPU runs, as usb_host does for the other directions. */
static int control_out(const uint8_t *setup, const uint8_t *data, uint16_t len)
{
    usb_setup s = {setup[0], setup[1], hb_get_u16(&setup[2]), hb_get_u16(&setup[4]), hb_get_u16(&setup[6])};
    if (len == 0) {
        uint8_t none[1];
        return usb_host_control(&board, &s, none);
    }
    struct avr_io_usb req = {.pipe = 0, .sz = 8, .buf = (uint8_t *)setup};
    if (board.usb_detached) {
        return USB_HOST_DETACHED;
    }
    int r = avr_ioctl(board.avr, AVR_IOCTL_USB_SETUP, &req);
    if (r < 0) {
        return r;
    }
    for (uint16_t off = 0; off < len;) {
        uint16_t left = (uint16_t)(len - off);
        uint8_t n = (uint8_t)(left > BULK_PACKET ? BULK_PACKET : left);
        for (unsigned tries = 0;; tries++) {
            req = (struct avr_io_usb){.pipe = 0, .sz = n, .buf = (uint8_t *)&data[off]};
            r = avr_ioctl(board.avr, AVR_IOCTL_USB_WRITE, &req);
            if (r != AVR_IOCTL_USB_NAK) {
                break;
            }
            if (tries == 20000u || !sim_run_us(&board, 5)) {
                return USB_HOST_TIMEOUT;
            }
        }
        if (r < 0) {
            return r;
        }
        off = (uint16_t)(off + n);
    }
    for (unsigned tries = 0;; tries++) {
        uint8_t zlp[BULK_PACKET];
        req = (struct avr_io_usb){.pipe = 0x80, .sz = sizeof zlp, .buf = zlp};
        r = avr_ioctl(board.avr, AVR_IOCTL_USB_READ, &req);
        if (r != AVR_IOCTL_USB_NAK) {
            return r < 0 ? r : 0;
        }
        if (tries == 20000u || !sim_run_us(&board, 5)) {
            return USB_HOST_TIMEOUT;
        }
    }
}

static void cmd_control(char *args)
{
    char *id = strtok(args, " ");
    char *setup_hex = strtok(NULL, " ");
    char *data_hex = strtok(NULL, " ");
    uint8_t setup[8];
    static uint8_t data[MAX_BYTES];
    int data_len = data_hex ? hex_decode(data_hex, data, sizeof data) : 0;
    if (!id || !setup_hex || hex_decode(setup_hex, setup, sizeof setup) != 8 || data_len < 0) {
        line_out("err control: expected ID, an 8-byte setup packet and optional data, as hex");
        return;
    }
    if (detached || board.usb_detached) {
        line_out("control %s gone", id);
        return;
    }
    uint16_t w_length = hb_get_u16(&setup[6]);
    int r;
    static uint8_t in[MAX_BYTES + BULK_PACKET];
    if (setup[0] & 0x80u) {
        usb_setup s = {setup[0], setup[1], hb_get_u16(&setup[2]), hb_get_u16(&setup[4]),
                       w_length > MAX_BYTES ? (uint16_t)MAX_BYTES : w_length};
        r = usb_host_control(&board, &s, in);
    } else {
        r = control_out(setup, data, (uint16_t)(data_len < w_length ? data_len : w_length));
    }
    emit_i2c();
    if (r == USB_HOST_STALL) {
        line_out("control %s stall", id);
    } else if (r == USB_HOST_DETACHED || board.usb_detached) {
        line_out("control %s gone", id);
    } else if (r < 0) {
        line_out("control %s gone", id); /* the device stopped answering: as good as gone */
        line_out("err control %s: no answer (%d)", id, r);
    } else if (setup[0] & 0x80u) {
        static char text[2 * sizeof in + 1];
        hex_encode(text, in, (size_t)r);
        line_out("control %s ok %s", id, text);
    } else {
        line_out("control %s ok", id);
    }
}

/* Offers the oldest bulk OUT transfer's next packet; a full bank NAKs it and it
 * is offered again next slice, as a host controller retries. */
static void service_outs(void)
{
    while (outs_count) {
        out_transfer *o = &outs[outs_head];
        uint8_t n = (uint8_t)(o->len - o->sent > BULK_PACKET ? BULK_PACKET : o->len - o->sent);
        int r = usb_host_bulk_out_once(&board, o->ep, &o->bytes[o->sent], n);
        if (r == AVR_IOCTL_USB_NAK || r == -1) { /* bank busy, or not configured yet */
            return;
        }
        if (r >= 0) {
            o->sent += n;
            if (o->sent < o->len) {
                continue;
            }
            line_out("out %s ok %.4f %llu", o->id, board_us_at(board.avr->cycle), (unsigned long long)host_at(board.avr->cycle));
        } else {
            line_out("out %s %s", o->id, r == USB_HOST_STALL ? "stall" : "gone");
        }
        outs_head = (outs_head + 1) % MAX_OUT;
        outs_count--;
    }
}

static void cmd_out(char *args)
{
    char *id = strtok(args, " ");
    char *ep = strtok(NULL, " ");
    char *data = strtok(NULL, " ");
    out_transfer *o = outs_count < MAX_OUT ? &outs[(outs_head + outs_count) % MAX_OUT] : NULL;
    int n = data && o ? hex_decode(data, o->bytes, MAX_BYTES) : -1;
    if (!id || !ep || !o || strlen(id) >= sizeof o->id || n <= 0) {
        line_out("err out: expected ID EP and 1..%u bytes as hex, at most %u transfers in flight", MAX_BYTES, MAX_OUT);
        if (id && strlen(id) < 32) {
            line_out("out %s gone", id);
        }
        return;
    }
    if (detached || board.usb_detached) {
        line_out("out %s gone", id);
        return;
    }
    snprintf(o->id, sizeof o->id, "%s", id);
    o->ep = (uint8_t)(strtoul(ep, NULL, 0) & 0x0Fu);
    o->len = (uint32_t)n;
    o->sent = 0;
    outs_count++;
    service_outs();
    emit_i2c();
}

/* One host poll of each polled bulk IN endpoint. */
static void poll_in(void)
{
    for (uint8_t ep = 1; ep < HOST_ENDPOINTS; ep++) {
        for (int p = 0; polling[ep] && p < MAX_PACKETS_PER_POLL; p++) {
            uint8_t buf[BULK_PACKET];
            int n = usb_host_bulk_in(&board, ep, buf);
            if (n == USB_HOST_STALL) {
                line_out("in %u stall", 0x80u | ep);
                break;
            }
            if (n <= 0) {
                break; /* nothing (simavr answers an empty bulk IN with a ZLP, the port never sends one) */
            }
            char text[2 * BULK_PACKET + 1];
            hex_encode(text, buf, (size_t)n);
            line_out("in %u %s", 0x80u | ep, text);
            if (n < (int)BULK_PACKET) {
                break;
            }
        }
    }
}

static void cmd_poll(char *args)
{
    char *ep = strtok(args, " ");
    char *state = strtok(NULL, " ");
    if (!ep || !state || (strcmp(state, "on") && strcmp(state, "off"))) {
        line_out("err poll: expected EP on|off");
        return;
    }
    uint8_t n = (uint8_t)(strtoul(ep, NULL, 0) & 0x0Fu);
    bool on = strcmp(state, "on") == 0;
    if (on && !polling[n]) {
        next_poll = board.avr->cycle; /* the first poll at once, then on the grid */
    }
    polling[n] = on;
}

static bool handle(char *cmd)
{
    if (strncmp(cmd, "control ", 8) == 0) {
        cmd_control(cmd + 8);
    } else if (strncmp(cmd, "out ", 4) == 0) {
        cmd_out(cmd + 4);
    } else if (strncmp(cmd, "poll ", 5) == 0) {
        cmd_poll(cmd + 5);
    } else if (strncmp(cmd, "busreset ", 9) == 0) {
        usb_host_bus_reset(&board);
        emit_i2c();
        line_out("busreset %s ok", cmd + 9);
    } else if (strcmp(cmd, "quit") == 0) {
        line_out("bye");
        return false;
    } else if (cmd[0]) {
        line_out("err unknown command: %.40s", cmd);
    }
    return true;
}

/* The wall clock (host µs) the pacing has simulated time at. */
static uint64_t due_host_us(void) { return anchor_host_us + (uint64_t)us(board.avr->cycle - anchor_cycle); }

/* Sleeps until the wall clock reaches simulated time (or the host writes). */
static void pace(void) { rt_wait_until(due_host_us()); }

/* ---- lines stamped with the host's clock ("@HOST_US LINE") ---------------------
 *
 * A board that keeps real time sees a packet when the wire brings it.  This one
 * falls behind the wall clock whenever the host starves it of CPU (it catches up at
 * ~2x real time), and a packet handed in at once would then reach the firmware early
 * by the lag, in its own clock: a SYNC read the board's clock that much low, the
 * host's fit took the lag for the clocks' offset, and once the simulation had caught
 * up the commands stamped from that fit reached the board after their stamps
 * (underruns that were the emulation's).  So a stamped line waits until simulated
 * time reaches the moment it was sent; while one waits, every later line waits
 * behind it (order is the wire's).  Ahead of the wall clock (the simulation runs a
 * slice ahead), a line is due at once, as before. */
#define HELD_MAX 32u
typedef struct held_line {
    uint64_t host_us;
    char text[RT_MAX_LINE + 1];
} held_line;
static held_line held[HELD_MAX];
static unsigned held_head, held_count;

/* Takes the line from handle_stamped: runs it now or queues it. */
static bool handle(char *cmd);
static bool handle_held(void);

static bool handle_stamped(char *line)
{
    uint64_t at = 0;
    char *cmd = line;
    if (line[0] == '@') {
        char *end = NULL;
        at = strtoull(line + 1, &end, 10);
        cmd = end && *end == ' ' ? end + 1 : end ? end : line;
    }
    if (!held_count && at <= due_host_us()) {
        return handle(cmd);
    }
    if (held_count == HELD_MAX) {
        /* More lines in flight than a host sends (16 bulk OUT transfers at most, a
         * control transfer, polls): the oldest goes now, early, rather than none. */
        if (!handle_held()) {
            return false;
        }
    }
    held_line *h = &held[(held_head + held_count) % HELD_MAX];
    h->host_us = at;
    snprintf(h->text, sizeof h->text, "%s", cmd);
    held_count++;
    return true;
}

/* Runs the oldest held line. */
static bool handle_held(void)
{
    static char text[RT_MAX_LINE + 1];
    memcpy(text, held[held_head].text, sizeof text);
    held_head = (held_head + 1) % HELD_MAX;
    held_count--;
    return handle(text);
}

/* Runs the held lines simulated time has reached; false on "quit". */
static bool release_held(void)
{
    while (held_count && held[held_head].host_us <= due_host_us()) {
        if (!handle_held()) {
            return false;
        }
    }
    return true;
}

/* The cycle the oldest held line is due at (simulated time reaches its host µs). */
static avr_cycle_count_t held_due_cycle(void)
{
    uint64_t at = held[held_head].host_us;
    return anchor_cycle + (avr_cycle_count_t)((at > anchor_host_us ? at - anchor_host_us : 0u) * SIM_CYCLES_PER_US);
}

/* Reads the --eeprom file: at most the ATmega32U4's 1 KiB (E2END + 1). */
static uint8_t eeprom_bytes[1024];

static long read_eeprom(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return -1;
    }
    size_t n = fread(eeprom_bytes, 1, sizeof eeprom_bytes, f);
    int more = fgetc(f);
    bool failed = ferror(f) != 0;
    fclose(f);
    return failed || more != EOF ? -2 : (long)n;
}

/* Reads the --application file: at most the application section. */
static uint8_t application_bytes[SIM_BOOT_SECTION_START];

static long read_application(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return -1;
    }
    size_t n = fread(application_bytes, 1, sizeof application_bytes, f);
    int more = fgetc(f);
    bool failed = ferror(f) != 0;
    fclose(f);
    return failed || more != EOF ? -2 : (long)n;
}

static int usb_serve(const char *elf_path, const char *serial, uint32_t poll_us, int fifo_priority, bool chip_on_host,
                     uint8_t accel_addr, const char *application_path)
{
    if (serial && (strlen(serial) < 1 || strlen(serial) > HB_SERIAL_MAX_LEN)) {
        line_out("err --serial takes 1..%u characters", HB_SERIAL_MAX_LEN);
        return 2;
    }
    long application_len = 0;
    if (application_path) {
        application_len = read_application(application_path);
        if (application_len < 0) {
            line_out("err --application %.200s: %s", application_path,
                     application_len == -1 ? "cannot open it" : "unreadable or larger than the 28 KiB application section");
            return 2;
        }
    }
    /* The chip answers from the host from the first transaction of the boot on
     * (boot_board attaches the register file, then boots); so does the
     * accelerometer, which the firmware looks for at start-up. */
    fit_accel(accel_addr, &host_accel);
    if (!boot_board_with_application(elf_path, serial, caterina_image, caterina_image_len, chip_on_host ? &host_chip : NULL,
                                     application_path ? application_bytes : NULL, (uint32_t)application_len)) {
        line_out("err cannot boot firmware %s", elf_path);
        return 1;
    }
    if (fifo_priority > 0) {
        rt_request_fifo(fifo_priority);
    }
    rt_stdin_nonblocking();
    slice_cycles = (avr_cycle_count_t)SLICE_US * SIM_CYCLES_PER_US;
    poll_cycles = (avr_cycle_count_t)(poll_us ? poll_us : 1u) * SIM_CYCLES_PER_US;
    usb_host_bus_reset(&board);
    seen_boots = board.boots;
    epoch = board.timer1_start;
    anchor_cycle = board.avr->cycle;
    anchor_host_us = rt_host_us();
    emit_i2c(); /* the boot's transactions, due before the anchor */
    next_poll = anchor_cycle;
    line_out("ready %.4f %.4f", now(), us(epoch));

    avr_cycle_count_t next_chip_tick = board.avr->cycle;
    while (rt_read_lines(handle_stamped) && release_held()) {
        service_outs();
        bool any_polling = false;
        for (unsigned i = 0; i < HOST_ENDPOINTS; i++) {
            any_polling |= polling[i];
        }
        avr_cycle_count_t end = board.avr->cycle + slice_cycles;
        if (any_polling && next_poll < end) {
            end = next_poll > board.avr->cycle ? next_poll : board.avr->cycle;
        }
        if (held_count && held_due_cycle() < end) {
            end = held_due_cycle() > board.avr->cycle ? held_due_cycle() : board.avr->cycle;
        }
        if (end > board.avr->cycle && !sim_run_cycles(&board, end - board.avr->cycle)) {
            emit_i2c();
            line_out("err simulated CPU stopped at %.4f (pc 0x%04x)", now(), board.avr->pc);
            return 1;
        }
        emit_i2c();
        if ((chip_on_host || accel_addr) && board.avr->cycle >= next_chip_tick) {
            line_out("chip t %.4f", us(board.avr->cycle));
            next_chip_tick = board.avr->cycle + (avr_cycle_count_t)CHIP_TICK_US * SIM_CYCLES_PER_US;
        }
        if (any_polling && board.avr->cycle >= next_poll && !detached) {
            poll_in();
            while (next_poll <= board.avr->cycle) {
                next_poll += poll_cycles;
            }
        }
        if (!check_link()) {
            line_out("err simulated CPU stopped at %.4f (pc 0x%04x)", now(), board.avr->pc);
            return 1;
        }
        pace();
    }
    return 0;
}

int usb_serve_command(int argc, char **argv)
{
    const char *serial = NULL;
    uint32_t poll_us = USB_SERVE_DEFAULT_POLL_US;
    int fifo_priority = 0;
    bool chip_on_host = false;
    int accel = 0;
    const char *application = NULL;
    const char *eeprom = NULL;
    for (int i = 3; i < argc; i += 2) {
        if (i + 1 < argc && strcmp(argv[i], "--serial") == 0) {
            serial = argv[i + 1];
        } else if (i + 1 < argc && strcmp(argv[i], "--poll-us") == 0) {
            poll_us = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        } else if (i + 1 < argc && strcmp(argv[i], "--fifo-priority") == 0) {
            fifo_priority = atoi(argv[i + 1]);
        } else if (i + 1 < argc && strcmp(argv[i], "--chip") == 0 && strcmp(argv[i + 1], "host") == 0) {
            chip_on_host = true;
        } else if (i + 1 < argc && strcmp(argv[i], "--accel") == 0 && (accel = parse_i2c_address(argv[i + 1])) > 0) {
            /* an accelerometer the host answers for */
        } else if (i + 1 < argc && strcmp(argv[i], "--application") == 0) {
            application = argv[i + 1];
        } else if (i + 1 < argc && strcmp(argv[i], "--eeprom") == 0) {
            eeprom = argv[i + 1];
        } else {
            argc = 0; /* usage */
        }
    }
    if (argc < 3) {
        fprintf(stderr, "usage: %s --usb FIRMWARE.elf [--serial S] [--poll-us N] [--fifo-priority N] [--chip host] [--accel ADDR] [--application FLASH.bin] [--eeprom EEPROM.bin]\n", argv[0]);
        return 2;
    }
    if (eeprom) {
        long n = read_eeprom(eeprom);
        if (n < 0) {
            line_out("err --eeprom %.200s: %s", eeprom, n == -1 ? "cannot open it" : "unreadable or larger than the 1 KiB EEPROM");
            return 1;
        }
        fit_eeprom(eeprom_bytes, (uint16_t)n);
    }
    return usb_serve(argv[2], serial, poll_us, fifo_priority, chip_on_host, (uint8_t)accel, application);
}
