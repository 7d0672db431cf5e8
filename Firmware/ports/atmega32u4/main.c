/*
 * ATmega32U4 port: wires the portable core to Timer1, the TWI master and the
 * USB device, and runs the main loop under the watchdog.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/power.h>
#include <avr/wdt.h>

#include "hapbridge/core.h"
#include "identity.h"
#include "timebase.h"
#include "twi.h"
#include "usb.h"
#include "usb_descriptors.h"

/* Time from the end of the core's spin to the TWI START of the write it
 * then makes: a fixed instruction path (the same call for every kind of
 * command, core/exec.c), measured cycle-accurately under simavr.  Set so the
 * carrying write's STOP lands on the stamp: 8 latched every kind 0.25 to
 * 1.38 us early, 7 puts them around it (`sim-harness ELF 10000 | grep
 * '^# latch'`; Firmware/README.md "Latch timing").  Re-measure after changing
 * that path; Firmware/sim fails any command that latches early. */
#ifndef EXEC_LEAD_US
#define EXEC_LEAD_US 7u
#endif
/* A register write's START to STOP at 400 kHz (twi.c): 28.5 SCL periods on
 * the bus (71.25 us) and ~10.5 us the driver holds SCL low handling its four
 * TWINTs, 81.75 us measured under simavr (sim/twi_bus.c, README "Measured").
 * The core starts the write that carries a command this much (plus
 * EXEC_LEAD_US) before its stamp, so the chip takes the value on the stamp.
 * Only EXEC_LEAD_US + WRITE_US matters for that write's STOP; WRITE_US also
 * times the writes made ahead of it (a MODE change). */
#ifndef WRITE_US
#define WRITE_US 82u
#endif
/* Covers the longest masked section seen in front of the compare interrupt
 * (~15 us under simavr) at the cost of that much busy-wait per command. */
#ifndef SPIN_US
#define SPIN_US 60u
#endif
/* The board's intake, stated in HELLO_REPLY: the least board time between two
 * stamped chip writes it keeps up with.  Frame intake, each command's spin and
 * 82 us write at 400 kHz, and the 20 ms STATUS poll share one core and one
 * bus; at 400 us the poll fits between two commands and a dense stream runs
 * with no underrun (measured: Firmware/README.md, "Intake"). */
#ifndef WRITE_SPACING_US
#define WRITE_SPACING_US 400u
#endif

/* Caterina (Leonardo / Pro Micro bootloader) stays in the bootloader after a
 * watchdog reset when it finds this key at this RAM address. */
#define CATERINA_BOOT_KEY 0x7777u
#define CATERINA_BOOT_KEY_ADDR ((volatile uint16_t *)0x0800u)

static hb_core board;
static uint8_t saved_sreg;

/* A watchdog reset leaves the watchdog running at its shortest period; turn
 * it off before the C runtime's setup time can trip it again. */
void early_wdt_off(void) __attribute__((naked, used, section(".init3")));
void early_wdt_off(void)
{
    MCUSR = 0;
    wdt_disable();
}

static hb_i2c_result hook_i2c_write(void *ctx, uint8_t addr7, const uint8_t *bytes, uint8_t len)
{
    (void)ctx;
    return twi_write(addr7, bytes, len) ? HB_I2C_ACK : HB_I2C_NACK;
}

static hb_i2c_result hook_i2c_read(void *ctx, uint8_t addr7, uint8_t reg, uint8_t *bytes,
                                   uint8_t len)
{
    (void)ctx;
    return twi_read_reg(addr7, reg, bytes, len) ? HB_I2C_ACK : HB_I2C_NACK;
}

static uint32_t hook_now_us(void *ctx)
{
    (void)ctx;
    return timebase_now_us();
}

static void hook_arm_timer(void *ctx, uint32_t at_us)
{
    (void)ctx;
    timebase_arm(at_us);
}

static void hook_spin_until(void *ctx, uint32_t at_us)
{
    (void)ctx;
    timebase_spin_until(at_us);
}

static void hook_disarm_timer(void *ctx)
{
    (void)ctx;
    timebase_disarm();
}

static void hook_send_frame(void *ctx, const uint8_t *frame, uint8_t len)
{
    (void)ctx;
    (void)usb_send(frame, len); /* a dropped frame shows as a board sequence gap */
}

static uint8_t hook_send_room(void *ctx)
{
    (void)ctx;
    return usb_send_room();
}

static void hook_enter_bootloader(void *ctx)
{
    (void)ctx;
    usb_flush(); /* let the ACK leave before the device disappears from the bus */
    cli();
    usb_detach();
    *CATERINA_BOOT_KEY_ADDR = CATERINA_BOOT_KEY;
    wdt_enable(WDTO_15MS);
    for (;;) {
    }
}

/* The core never nests its lock, so one saved SREG is enough. */
static void hook_lock(void *ctx)
{
    (void)ctx;
    uint8_t s = SREG;
    cli();
    saved_sreg = s;
}

static void hook_unlock(void *ctx)
{
    (void)ctx;
    SREG = saved_sreg;
}

ISR(TIMER1_COMPA_vect) { hb_core_timer_fired(&board); }

static void on_usb_rx(const uint8_t *bytes, uint8_t len) { hb_core_receive(&board, bytes, len); }

int main(void)
{
    clock_prescale_set(clock_div_1);

    /* On main's stack, not in .data: hb_core_init copies it, and .data + .bss
     * must end below 0x0800, where the Caterina key goes (a static copy took
     * them past it; the simavr suite's bootloader test checks the key). */
    const hb_hooks hooks = {
        .context = 0,
        .i2c_write = hook_i2c_write,
        .i2c_read = hook_i2c_read,
        .now_us = hook_now_us,
        .arm_timer = hook_arm_timer,
        .spin_until = hook_spin_until,
        .disarm_timer = hook_disarm_timer,
        .send_frame = hook_send_frame,
        .send_room = hook_send_room,
        .enter_bootloader = hook_enter_bootloader,
        .lock = hook_lock,
        .unlock = hook_unlock,
    };
    hb_core_config config = {
        .exec_lead_us = EXEC_LEAD_US,
        .write_us = WRITE_US,
        .spin_us = SPIN_US,
        .tick_ns = TIMEBASE_TICK_NS,
        .write_spacing_us = WRITE_SPACING_US,
    };
    identity_read(&config);
    hb_core_init(&board, &hooks, &config);
    /* One copy of the serial: the core's, which lives as long as the board. */
    usb_descriptors_set_serial(board.config.serial, board.config.serial_len);

    timebase_init();
    twi_init();
    usb_init(on_usb_rx);
    sei();

    /* DRV2605: 250 us from power-up to the first transaction. */
    for (uint32_t t0 = timebase_now_us(); (uint32_t)(timebase_now_us() - t0) < 250u;) {
    }
    hb_core_start(&board);

    /* The loop runs in microseconds; 120 ms only trips on a real hang (a
     * stuck bus is already bounded by the TWI driver's spin limit). */
    wdt_enable(WDTO_120MS);
    for (;;) {
        wdt_reset();
        usb_poll();
        hb_core_poll(&board);
    }
}
