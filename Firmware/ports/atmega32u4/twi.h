/* Polled TWI (I2C) master at 400 kHz with datasheet status checks. */
#ifndef TWI_H
#define TWI_H

#include <stdbool.h>
#include <stdint.h>

void twi_init(void);
bool twi_write(uint8_t addr7, const uint8_t *bytes, uint8_t len);
bool twi_read_reg(uint8_t addr7, uint8_t reg, uint8_t *bytes, uint8_t len);

#endif
