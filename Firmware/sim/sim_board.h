/* The real firmware ELF on simavr's ATmega32U4, with simavr 1.6's TWI bugs
 * corrected from outside so the firmware keeps strict datasheet checks, and
 * its TWI run at the SCL rate the firmware sets (twi_bus.h). */
#ifndef SIM_BOARD_H
#define SIM_BOARD_H

#include <stdbool.h>
#include <stdint.h>

#include <sim_avr.h>

#define SIM_F_CPU 16000000u
#define SIM_CYCLES_PER_US (SIM_F_CPU / 1000000u)

typedef struct sim_board {
    avr_t *avr;
    avr_cycle_count_t timer1_start; /* cycle Timer1 got its clock: board time 0 */
    bool timer1_started;
    uint32_t boots;                 /* firmware starts seen (watchdog resets add one) */
    bool sla_w_pending;             /* an SLA+W went out; its status is due */
    bool usb_detached;              /* UDCON.DETACH: the pull-up is off, the host sees no device */
    bool usb_attached;              /* UDCON written without DETACH since the last boot */
    avr_cycle_count_t detach_cycle;
    bool crashed;
    avr_symbol_t **symbols;         /* the ELF's symbol table, for measurements */
    uint32_t symbol_count;
    uint16_t heap_start;            /* first RAM byte above .bss (__bss_end), once painted */
} sim_board;

bool sim_board_load(sim_board *b, const char *elf_path);
/* Between load and the first run: what the firmware finds at boot in its
 * EEPROM, and in flash outside its image (the boot section). */
void sim_board_preload_eeprom(sim_board *b, uint16_t addr, const uint8_t *bytes, uint16_t n);
void sim_board_preload_flash(sim_board *b, uint32_t addr, const uint8_t *bytes, uint32_t n);
/* The ATmega32U4 port's boot section scan (ports/atmega32u4/identity.h). */
#define SIM_BOOT_SECTION_START 0x7000u
#define SIM_BOOT_SECTION_SIZE 0x1000u

/* What the firmware finds at its next boot (before the first run, or before
 * sim_board_reset): a serial-number record in EEPROM (board_identity.h; NULL:
 * erased) and the boot section (NULL: blank, else this image, the rest 0xFF). */
void sim_board_set_memories(sim_board *b, const char *eeprom_serial, const uint8_t *boot_image,
                            uint32_t boot_image_len);
/* Between load and the first run: fills the RAM above .bss with a pattern, so
 * sim_board_stack_free can tell how deep the stack has ever reached. */
bool sim_board_paint_stack(sim_board *b);
/* Bytes between the end of .bss and the deepest the stack reached; the RAM
 * the data takes (data + bss) in *data_bytes. */
uint32_t sim_board_stack_free(const sim_board *b, uint32_t *data_bytes);
/* A power-on reset: the firmware boots again from the memories it has
 * (sim_board_boot runs it). */
void sim_board_reset(sim_board *b);
/* Runs until the firmware has booted: Timer1 started, USB attached, and the
 * chip probed (the 250 us DRV2605 power-up wait after attach).  The start-up
 * reads the board's identity first, ~15 ms when the whole boot section is
 * scanned.  False when that does not happen within max_us. */
bool sim_board_boot(sim_board *b, uint32_t max_us);
/* Runs the simulated CPU for us microseconds (false when it stopped). */
bool sim_run_us(sim_board *b, uint32_t us);
bool sim_run_cycles(sim_board *b, avr_cycle_count_t cycles);
double sim_now_us(const sim_board *b);
/* Board time (the firmware's now_us) at a simulated cycle. */
double sim_board_us_at(const sim_board *b, avr_cycle_count_t cycle);
/* The same for a logged cycle: a reboot moves Timer1's start, and a cycle from
 * before it (logged in the same step) keeps the epoch it ran under. */
double sim_board_us_at_logged(const sim_board *b, avr_cycle_count_t cycle, avr_cycle_count_t previous_epoch);
/* Flash byte address of a function in the ELF, or 0 when it has none (inlined). */
uint32_t sim_board_symbol(const sim_board *b, const char *name);
/* Runs one instruction at a time until the CPU is about to execute `pc` (a
 * function's entry: the cycle the call lands), at most max_cycles; false when
 * it did not get there. */
bool sim_run_until_pc(sim_board *b, uint32_t pc, avr_cycle_count_t max_cycles);

#endif
