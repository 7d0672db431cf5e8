/* A DRV2605 on simavr's TWI bus: register file with auto-increment at 0x5A,
 * and a log of every transaction with its simulated START/STOP cycles. */
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

typedef struct drv_model {
    avr_t *avr;
    avr_irq_t *twi_in;
    uint8_t regs[0x23];
    uint8_t ptr;
    bool addressed, reading, have_reg;
    drv_txn cur;
    drv_txn log[DRV_LOG_MAX];
    uint32_t count;
    bool log_full; /* transactions were dropped: timing checks must not trust the log */
} drv_model;

void drv_model_attach(drv_model *m, avr_t *avr);
void drv_model_reset_registers(drv_model *m);

#endif
