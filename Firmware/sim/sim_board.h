/* The real firmware ELF on simavr's ATmega32U4, with simavr 1.6's TWI bugs
 * corrected from outside so the firmware keeps strict datasheet checks. */
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
    avr_cycle_count_t detach_cycle;
    bool crashed;
    avr_symbol_t **symbols;         /* the ELF's symbol table, for measurements */
    uint32_t symbol_count;
} sim_board;

bool sim_board_load(sim_board *b, const char *elf_path);
/* Runs the simulated CPU for us microseconds (false when it stopped). */
bool sim_run_us(sim_board *b, uint32_t us);
bool sim_run_cycles(sim_board *b, avr_cycle_count_t cycles);
double sim_now_us(const sim_board *b);
/* Board time (the firmware's now_us) at a simulated cycle. */
double sim_board_us_at(const sim_board *b, avr_cycle_count_t cycle);
/* Flash byte address of a function in the ELF, or 0 when it has none (inlined). */
uint32_t sim_board_symbol(const sim_board *b, const char *name);
/* Runs one instruction at a time until the CPU is about to execute `pc` (a
 * function's entry: the cycle the call lands), at most max_cycles; false when
 * it did not get there. */
bool sim_run_until_pc(sim_board *b, uint32_t pc, avr_cycle_count_t max_cycles);

#endif
