/* The TWI bus at its real speed.  simavr 1.6 completes a START in 0 us and a
 * byte in 9 us whatever TWBR says (avr_twi.c: "one twi cycle == one usec"),
 * and a STOP at once.  This layer sits on TWCR writes and moves each of
 * simavr's completions (its TWINT timer) to the instant the ATmega32U4's TWI
 * would set TWINT at the SCL rate the firmware chose, and holds TWSTO until
 * the STOP condition is on the bus. */
#ifndef TWI_BUS_H
#define TWI_BUS_H

#include <stdbool.h>
#include <stdint.h>

#include <sim_avr.h>

/* Installs the timing on the board's TWI (after simavr's TWI is set up). */
bool twi_bus_attach(avr_t *avr);
/* Forgets any transaction in flight (a power-on or watchdog reset). */
void twi_bus_reset(void);

/* SCL period in CPU cycles: 16 + 2 * TWBR * 4^TWPS (ATmega32U4 datasheet
 * 20.5.2), from what the firmware has written. */
uint32_t twi_bus_scl_period_cycles(const avr_t *avr);

/* Cycle the current (or last) transaction's START condition appeared on the
 * bus: SDA falling while SCL is high. */
avr_cycle_count_t twi_bus_start_cycle(void);
/* Cycle the last STOP condition appeared on the bus: SDA rising while SCL is
 * high.  Known as soon as the firmware asks for the STOP. */
avr_cycle_count_t twi_bus_stop_cycle(void);
/* Cycles the master held SCL low in the current (or last) transaction between
 * TWINT and its next TWCR write: firmware time, not bus time.  Final as soon
 * as the STOP is asked for. */
avr_cycle_count_t twi_bus_held_cycles(void);

/* The bus phases, in SCL periods (x2, so half periods stay integers). */
#define TWI_HALF_PERIODS_START 1u        /* tHD;STA: SDA low to SCL low, then TWINT */
#define TWI_HALF_PERIODS_REP_START 3u    /* SCL low half, SCL high (tSU;STA), tHD;STA */
#define TWI_HALF_PERIODS_BYTE 18u        /* 8 data bits and the ACK bit */
#define TWI_HALF_PERIODS_STOP 2u         /* SCL low half, then tSU;STO before SDA rises */
/* Bus free time between a STOP and the next START (I2C spec tBUF): 1.3 us in
 * fast mode, 4.7 us in standard mode. */
#define TWI_TBUF_FAST_NS 1300u
#define TWI_TBUF_STANDARD_NS 4700u

#endif
