/* A DRV2605 on simavr's TWI bus at 0x5A, and a log of every transaction with
 * its simulated START/STOP cycles.  The same peer, attached at another address
 * with a host (drv_model_attach_at), is the bench accelerometer on the bus
 * (--accel ADDR: the host's LIS3DH model answers it): one instance per device,
 * each acknowledging only its own address, as two chips on one bus do.
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
/* A FIFO read of the accelerometer is 6 samples x 6 bytes (HB_ACCEL_MAX_SAMPLES):
 * logged whole, so its bus time can be checked against its length. */
#define DRV_TXN_MAX_BYTES 40

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
 * then); `read` answers one byte at `cycle`: of register `reg` (the pointer,
 * moved on by one a byte, as the DRV2605 moves it), the `index`th byte read
 * since the transaction's sub-address `sub` (for a chip whose pointer moves
 * otherwise: the LIS3DH's FIFO read rolls back from 0x2D to 0x28) (false: the host is gone, which
 * ends the harness).  Both run inside the simulation, which waits. */
typedef struct drv_host {
    void (*wrote)(void *ctx, avr_cycle_count_t stop_cycle, uint8_t reg, const uint8_t *bytes, uint8_t n);
    bool (*read)(void *ctx, avr_cycle_count_t cycle, uint8_t reg, uint8_t sub, uint8_t index, uint8_t *value);
    void *ctx;
} drv_host;

typedef struct drv_model {
    avr_t *avr;
    uint8_t addr;                  /* 7-bit address it acknowledges */
    avr_irq_t *twi_in;
    uint8_t regs[DRV_REGISTERS];   /* the register file (unused with a host) */
    const drv_host *host;          /* NULL: the register file answers */
    uint8_t written[DRV_REGISTERS + 1]; /* data bytes of the write in progress, for the host */
    uint8_t n_written;
    uint8_t ptr;
    uint8_t n_read;                /* bytes read since the last START */
    bool addressed, reading, have_reg;
    drv_txn cur;
    drv_txn log[DRV_LOG_MAX];
    uint32_t count;
    bool log_full; /* transactions were dropped: timing checks must not trust the log */
} drv_model;

void drv_model_attach(drv_model *m, avr_t *avr);
/* The same peer at another address, answered by `host` (the register file
 * is the DRV2605's and answers at 0x5A only). */
void drv_model_attach_at(drv_model *m, avr_t *avr, uint8_t addr, const drv_host *host);
/* The oldest logged transaction of two peers' logs (b may be NULL), by START,
 * with the address it was at; *ia and *ib start at 0.  NULL when both are
 * done.  For printing one bus's traffic in order. */
const drv_txn *drv_model_next_logged(const drv_model *a, const drv_model *b, uint32_t *ia, uint32_t *ib, uint8_t *addr);
/* Forgets what was logged (after printing). */
void drv_model_clear_log(drv_model *m);
void drv_model_reset_registers(drv_model *m);
/* From now on the host's chip answers (NULL: the register file again). */
void drv_model_use_host(drv_model *m, const drv_host *host);

#endif
