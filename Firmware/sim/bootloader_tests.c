/* ENTER_BOOTLOADER: its magic, the Caterina key and the watchdog reset, and
 * an ACK that reaches a host polling once per frame before the detach. */
#include <stdio.h>
#include <string.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"
#include "suite.h"
#include "enumerate.h"

static bool bootloader_request_needs_magic(void)
{
    uint8_t p[HB_ENTER_BOOTLOADER_LEN];
    hb_put_u32(p, 0xDEADBEEFu);
    CHECK(link_send(&host, HB_T_ENTER_BOOTLOADER, p, sizeof p), "send failed");
    return expect_nak(HB_NAK_BAD_ARG, NULL);
}

static bool bootloader_entry_leaves_key_and_resets(void)
{
    uint8_t p[HB_ENTER_BOOTLOADER_LEN];
    hb_put_u32(p, HB_BOOT_MAGIC);
    uint32_t boots = board.boots;
    CHECK(link_send(&host, HB_T_ENTER_BOOTLOADER, p, sizeof p), "send failed");
    link_frame r;
    CHECK(link_wait(&host, HB_T_ACK, 5000, &r), "no ACK");
    CHECK(chip_stopped(), "actuator not stopped before the jump");
    /* simavr 1.6 keeps a running watchdog's old period (120 ms) until it next
     * expires, ignoring the switch to 15 ms: allow for that. */
    for (int i = 0; i < 300 && board.boots == boots; i++) {
        sim_run_us(&board, 1000);
    }
    CHECK(board.boots == boots + 1, "no watchdog reset (pc 0x%04x WDTCSR 0x%02x state %d)", board.avr->pc,
          board.avr->data[0x60], board.avr->state);
    CHECK(board.avr->data[0x800] == 0x77 && board.avr->data[0x801] == 0x77,
          "Caterina key not at 0x0800");
    board.boots = boots; /* expected */
    return true;
}

/* The ACK must reach a host that polls bulk IN only once per 1 ms frame:
 * the firmware detaches right after it, and a detached device answers
 * nothing (sim_board.c), so the firmware has to wait until the host has
 * taken the packet.  Runs after a reboot, so it enumerates again first. */
static bool bootloader_ack_reaches_a_slow_host(void)
{
    if (!usb_enumerate(&board, 7, why, sizeof why)) {
        return false;
    }
    link_take(&host, HB_T_ACK, NULL);
    uint8_t p[HB_ENTER_BOOTLOADER_LEN];
    hb_put_u32(p, HB_BOOT_MAGIC);
    uint32_t boots = board.boots;
    CHECK(link_send(&host, HB_T_ENTER_BOOTLOADER, p, sizeof p), "send failed");
    link_frame r;
    bool acked = false;
    for (int ms = 0; ms < 20 && !acked; ms++) {
        link_pump_every(&host, 1000, 1000);
        acked = link_take(&host, HB_T_ACK, &r);
    }
    CHECK(acked, "no ACK before the device left the bus (detached: %s)", board.usb_detached ? "yes" : "no");
    CHECK(r.payload[HB_ACK_OFF_TYPE] == HB_T_ENTER_BOOTLOADER, "ACK for type 0x%02x", r.payload[HB_ACK_OFF_TYPE]);
    for (int i = 0; i < 300 && board.boots == boots; i++) {
        sim_run_us(&board, 1000);
    }
    CHECK(board.boots == boots + 1, "no watchdog reset after the ACK");
    board.boots = boots; /* expected */
    return true;
}

void run_bootloader_tests(void)
{
    run_test("bootloader request needs its magic", bootloader_request_needs_magic);
    run_test("bootloader entry leaves the key and resets", bootloader_entry_leaves_key_and_resets);
    run_test("bootloader ACK reaches a host polling every 1 ms", bootloader_ack_reaches_a_slow_host);
}
