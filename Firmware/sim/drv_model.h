/* A DRV2605 on simavr's TWI bus at 0x5A, and a log of every transaction with
 * its simulated START/STOP cycles.
 *
 * Who answers: by default a register file with auto-increment, holding the
 * datasheet's reset values (what the C-only suites check against); with a
 * drv_host, the host program's behavioural chip (the Swift DRV2605Chip with
 * its actuator, through sim-harness --serve/--usb --chip host): each write
 * goes to it at its STOP, and each byte read is asked of it at the moment the
 * firmware clocks it, while the simulation waits.  Either way the transaction
 * log and the bus timing (twi_bus.h) are this file's. */
#ifndef DRV_MODEL_H
#define DRV_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include <sim_avr.h>

#define DRV_LOG_MAX 65536
#define DRV_TXN_MAX_BYTES 12

typedef struct drv_txn {
    avr_cycle_count_t start_cycle; /* START condition on the bus (twi_bus.h) */
    avr_cycle_count_t stop_cycle;  /* STOP condition on the bus */
    avr_cycle_count_t held_cycles; /* of those, SCL held low by the firmware between bytes */
    bool is_read;
    uint8_t reg;                   /* register pointer written first */
    uint8_t n;                     /* data bytes (after reg) */
    uint8_t bytes[DRV_TXN_MAX_BYTES];
} drv_txn;

/* Registers 0x00..0x22 (DRV2605_REG_LAST). */
#define DRV_REGISTERS 0x23u

/* The host's chip.  `wrote` gets every write transaction with data at its STOP
 * (the register pointer, then all its data bytes: the chip latches them by
 * then); `read` answers one byte at `cycle` (false: the host is gone, which
 * ends the harness).  Both run inside the simulation, which waits. */
typedef struct drv_host {
    void (*wrote)(void *ctx, avr_cycle_count_t stop_cycle, uint8_t reg, const uint8_t *bytes, uint8_t n);
    bool (*read)(void *ctx, avr_cycle_count_t cycle, uint8_t reg, uint8_t *value);
    void *ctx;
} drv_host;

typedef struct drv_model {
    avr_t *avr;
    avr_irq_t *twi_in;
    uint8_t regs[DRV_REGISTERS];   /* the register file (unused with a host) */
    const drv_host *host;          /* NULL: the register file answers */
    uint8_t written[DRV_REGISTERS + 1]; /* data bytes of the write in progress, for the host */
    uint8_t n_written;
    uint8_t ptr;
    bool addressed, reading, have_reg;
    drv_txn cur;
    drv_txn log[DRV_LOG_MAX];
    uint32_t count;
    bool log_full; /* transactions were dropped: timing checks must not trust the log */
} drv_model;

void drv_model_attach(drv_model *m, avr_t *avr);
void drv_model_reset_registers(drv_model *m);
/* From now on the host's chip answers (NULL: the register file again). */
void drv_model_use_host(drv_model *m, const drv_host *host);

#endif
