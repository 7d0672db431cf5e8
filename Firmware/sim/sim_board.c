#include "sim_board.h"
#include "twi_bus.h"

#include "hapbridge/board_identity.h"

#include <stdio.h>
#include <string.h>

#include <avr_eeprom.h>
#include <avr_timer.h>
#include <avr_twi.h>
#include <sim_elf.h>
#include <sim_io.h>

/* ATmega32U4 data-space addresses of the registers the harness watches. */
#define ADDR_TCCR1B 0x81u
#define ADDR_TWSR 0xB9u
#define ADDR_TIFR1 0x36u
#define ADDR_UDCON 0xE0u
#define UDCON_DETACH 0x01u
#define TWSR_STATUS_MASK 0xF8u
#define TW_MT_SLA_ACK 0x18u
#define TW_MT_SLA_NACK 0x20u
#define TW_MT_DATA_ACK 0x28u
#define TW_MT_DATA_NACK 0x30u
#define TCCR1B_CS_MASK 0x07u

static void no_sleep(avr_t *avr, avr_cycle_count_t how_long)
{
    (void)avr;
    (void)how_long; /* simulated time only: never wait on the wall clock */
}

static void on_tccr1b(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    (void)addr;
    sim_board *b = param;
    /* The firmware starts Timer1 once per boot (timebase_init); board time
     * restarts with it, so a watchdog reset shows up as a second start. */
    if (v & TCCR1B_CS_MASK) {
        b->timer1_started = true;
        b->timer1_start = avr->cycle;
        b->boots++;
        b->usb_attached = false;
    }
}

/* simavr's USB model ignores DETACH: a detached device still answers the
 * host.  A real host loses the device the moment the pull-up goes, so the
 * host side (usb_host.c) stops talking to it from this cycle on. */
static void on_udcon(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    (void)addr;
    sim_board *b = param;
    bool detach = v & UDCON_DETACH;
    if (detach && !b->usb_detached) {
        b->detach_cycle = avr->cycle;
    }
    b->usb_detached = detach;
    if (!detach) {
        b->usb_attached = true;
    }
}

/* simavr 1.6 reports SLA+W as 0x28/0x30 (data) instead of 0x18/0x20: it
 * decides by "TWDR was written", which is always true for an address.  The
 * address phase is the status right after the master's START message. */
static void on_twi_output(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    sim_board *b = param;
    avr_twi_msg_irq_t m = {.u.v = value};
    if ((m.u.twi.msg & TWI_COND_START) && !(m.u.twi.addr & 1u)) {
        b->sla_w_pending = true;
    }
}

static void on_twi_status(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    sim_board *b = param;
    if (!b->sla_w_pending || value == 0x08u || value == 0x10u) {
        return;
    }
    b->sla_w_pending = false;
    uint8_t fixed = (uint8_t)value;
    if (value == TW_MT_DATA_ACK) {
        fixed = TW_MT_SLA_ACK;
    } else if (value == TW_MT_DATA_NACK) {
        fixed = TW_MT_SLA_NACK;
    }
    uint8_t *twsr = &b->avr->data[ADDR_TWSR];
    *twsr = (uint8_t)((*twsr & ~TWSR_STATUS_MASK) | fixed);
}

/* simavr 1.6 marks the 32U4's TWI vector "sticky", so writing 1 to TWINT
 * never clears it and a polling master races ahead of the bus. */
static void unstick_twint(avr_t *avr)
{
    for (avr_io_t *io = avr->io_port; io; io = io->next) {
        if (io->kind && strcmp(io->kind, "twi") == 0) {
            ((avr_twi_t *)io)->twi.raise_sticky = 0;
        }
    }
}

/* simavr 1.6 clears *every* pending Timer1 flag on any TIFR1 write, so the
 * firmware's "TIFR1 = 1 << OCF1A" (write-one-to-clear, datasheet 14.10.7)
 * also drops a pending overflow and the board clock jumps back 32.768 ms.
 * Replace the handler with the datasheet's semantics: only flags written as
 * 1 are cleared. */
static avr_timer_t *timer1;

static void clear_if_written(avr_t *avr, avr_int_vector_t *vec, uint8_t v)
{
    if (vec->raised.reg == ADDR_TIFR1 && (v & (1u << vec->raised.bit)) &&
        avr_regbit_get(avr, vec->raised)) {
        avr_clear_interrupt(avr, vec);
    }
}

static void tifr1_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    (void)addr;
    (void)param;
    clear_if_written(avr, &timer1->overflow, v);
    clear_if_written(avr, &timer1->icr, v);
    for (int i = 0; i < AVR_TIMER_COMP_COUNT; i++) {
        clear_if_written(avr, &timer1->comp[i].interrupt, v);
    }
}

static bool fix_tifr1(avr_t *avr)
{
    for (avr_io_t *io = avr->io_port; io; io = io->next) {
        if (io->kind && strcmp(io->kind, "timer") == 0 && ((avr_timer_t *)io)->name == '1') {
            timer1 = (avr_timer_t *)io;
        }
    }
    if (!timer1 || timer1->overflow.raised.reg != ADDR_TIFR1) {
        return false;
    }
    avr->io[AVR_DATA_TO_IO(ADDR_TIFR1)].w.c = tifr1_write;
    avr->io[AVR_DATA_TO_IO(ADDR_TIFR1)].w.param = NULL;
    return true;
}

bool sim_board_load(sim_board *b, const char *elf_path)
{
    memset(b, 0, sizeof *b);
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf_path, &fw) != 0) {
        fprintf(stderr, "cannot read %s\n", elf_path);
        return false;
    }
    if (strcmp(fw.mmcu, "atmega32u4") != 0 || fw.frequency != SIM_F_CPU) {
        fprintf(stderr, ".mmcu section says '%s' at %u Hz\n", fw.mmcu, fw.frequency);
        return false;
    }
    b->avr = avr_make_mcu_by_name(fw.mmcu);
    if (!b->avr) {
        return false;
    }
    avr_init(b->avr);
    b->avr->frequency = fw.frequency;
    b->avr->log = LOG_NONE;
    avr_load_firmware(b->avr, &fw);
    b->symbols = fw.symbol;
    b->symbol_count = fw.symbolcount;
    b->avr->sleep = no_sleep;
    unstick_twint(b->avr);
    if (!twi_bus_attach(b->avr)) {
        fprintf(stderr, "TWI not found where expected\n");
        return false;
    }
    if (!fix_tifr1(b->avr)) {
        fprintf(stderr, "Timer1 not found where expected\n");
        return false;
    }
    avr_register_io_write(b->avr, ADDR_TCCR1B, on_tccr1b, b);
    avr_register_io_write(b->avr, ADDR_UDCON, on_udcon, b);
    avr_irq_register_notify(avr_io_getirq(b->avr, AVR_IOCTL_TWI_GETIRQ(0), TWI_IRQ_OUTPUT),
                            on_twi_output, b);
    avr_irq_register_notify(avr_io_getirq(b->avr, AVR_IOCTL_TWI_GETIRQ(0), TWI_IRQ_STATUS),
                            on_twi_status, b);
    return true;
}

bool sim_run_cycles(sim_board *b, avr_cycle_count_t cycles)
{
    avr_cycle_count_t end = b->avr->cycle + cycles;
    while (b->avr->cycle < end) {
        int state = avr_run(b->avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            b->crashed = true;
            return false;
        }
    }
    return true;
}

#define BOOT_STEP_US 100u
#define AFTER_ATTACH_US 1000u /* DRV2605 power-up wait (250 us) and hb_core_start */

bool sim_board_boot(sim_board *b, uint32_t max_us)
{
    for (uint32_t us = 0; us < max_us; us += BOOT_STEP_US) {
        if (b->timer1_started && b->usb_attached) {
            return sim_run_us(b, AFTER_ATTACH_US);
        }
        if (!sim_run_us(b, BOOT_STEP_US)) {
            return false;
        }
    }
    return false;
}

void sim_board_reset(sim_board *b)
{
    avr_reset(b->avr);
    twi_bus_reset();
    b->timer1_started = false;
    b->usb_attached = false;
}

bool sim_run_us(sim_board *b, uint32_t us)
{
    return sim_run_cycles(b, (avr_cycle_count_t)us * SIM_CYCLES_PER_US);
}

double sim_now_us(const sim_board *b) { return (double)b->avr->cycle / SIM_CYCLES_PER_US; }

double sim_board_us_at(const sim_board *b, avr_cycle_count_t cycle)
{
    return ((double)cycle - (double)b->timer1_start) / SIM_CYCLES_PER_US;
}

double sim_board_us_at_logged(const sim_board *b, avr_cycle_count_t cycle, avr_cycle_count_t previous_epoch)
{
    avr_cycle_count_t e = cycle >= b->timer1_start ? b->timer1_start : previous_epoch;
    return ((double)cycle - (double)e) / SIM_CYCLES_PER_US;
}

uint32_t sim_board_symbol(const sim_board *b, const char *name)
{
    for (uint32_t i = 0; i < b->symbol_count; i++) {
        if (b->symbols[i] && strcmp(b->symbols[i]->symbol, name) == 0 && b->symbols[i]->addr < 0x8000u) {
            return b->symbols[i]->addr;
        }
    }
    return 0;
}

bool sim_run_until_pc(sim_board *b, uint32_t pc, avr_cycle_count_t max_cycles)
{
    avr_cycle_count_t end = b->avr->cycle + max_cycles;
    while (b->avr->cycle < end) {
        int state = avr_run(b->avr); /* one instruction (or one interrupt entry) */
        if (state == cpu_Done || state == cpu_Crashed) {
            b->crashed = true;
            return false;
        }
        if (b->avr->pc == pc) {
            return true;
        }
    }
    return false;
}

void sim_board_preload_eeprom(sim_board *b, uint16_t addr, const uint8_t *bytes, uint16_t n)
{
    avr_eeprom_desc_t d = {.ee = (uint8_t *)bytes, .offset = addr, .size = n};
    avr_ioctl(b->avr, AVR_IOCTL_EEPROM_SET, &d);
}

void sim_board_preload_flash(sim_board *b, uint32_t addr, const uint8_t *bytes, uint32_t n)
{
    memcpy(&b->avr->flash[addr], bytes, n);
}

#define STACK_PAINT 0xC5u
#define ELF_DATA_OFFSET 0x800000u /* avr-gcc's address of data space in the ELF */

bool sim_board_paint_stack(sim_board *b)
{
    for (uint32_t i = 0; i < b->symbol_count; i++) {
        if (b->symbols[i] && strcmp(b->symbols[i]->symbol, "__bss_end") == 0) {
            b->heap_start = (uint16_t)(b->symbols[i]->addr - ELF_DATA_OFFSET);
        }
    }
    if (!b->heap_start || b->heap_start > b->avr->ramend) {
        return false;
    }
    memset(&b->avr->data[b->heap_start], STACK_PAINT, b->avr->ramend + 1u - b->heap_start);
    return true;
}

uint32_t sim_board_stack_free(const sim_board *b, uint32_t *data_bytes)
{
    uint32_t ram_start = (uint32_t)b->avr->ioend + 1u;
    *data_bytes = b->heap_start - ram_start;
    uint32_t free = 0;
    while (b->heap_start + free <= b->avr->ramend && b->avr->data[b->heap_start + free] == STACK_PAINT) {
        free++;
    }
    return free;
}

void sim_board_set_memories(sim_board *b, const char *eeprom_serial, const uint8_t *boot_image,
                            uint32_t boot_image_len)
{
    uint8_t record[HB_SERIAL_RECORD_LEN];
    memset(record, 0xFF, sizeof record);
    if (eeprom_serial) {
        memcpy(&record[HB_SERIAL_RECORD_OFF_MAGIC], HB_SERIAL_RECORD_MAGIC, HB_SERIAL_RECORD_MAGIC_LEN);
        record[HB_SERIAL_RECORD_OFF_LEN] = (uint8_t)strlen(eeprom_serial);
        memcpy(&record[HB_SERIAL_RECORD_OFF_TEXT], eeprom_serial, strlen(eeprom_serial));
    }
    sim_board_preload_eeprom(b, HB_SERIAL_RECORD_EEPROM_ADDR, record, sizeof record);
    uint8_t section[SIM_BOOT_SECTION_SIZE];
    memset(section, 0xFF, sizeof section);
    if (boot_image) {
        memcpy(section, boot_image, boot_image_len);
    }
    sim_board_preload_flash(b, SIM_BOOT_SECTION_START, section, sizeof section);
}
