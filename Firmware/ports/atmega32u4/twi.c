#include "twi.h"

#include <avr/io.h>
#include <util/twi.h>

#define TWI_HZ 400000UL
/* SCL = F_CPU / (16 + 2 * TWBR * prescaler); prescaler 1. */
#define TWI_TWBR ((F_CPU / TWI_HZ - 16UL) / 2UL)
_Static_assert(TWI_TWBR >= 10, "TWBR below 10 is out of spec for master mode");

/* One byte at 400 kHz takes 22.5 us; this bound (~1 ms of polling) turns a
 * stuck bus into a NACK instead of a hang the watchdog would have to catch. */
#define TWI_SPIN_LIMIT 4000u

void twi_init(void)
{
    TWSR = 0; /* prescaler 1 */
    TWBR = (uint8_t)TWI_TWBR;
    TWCR = (1 << TWEN);
}

static bool wait_twint(void)
{
    for (uint16_t i = 0; i < TWI_SPIN_LIMIT; i++) {
        if (TWCR & (1 << TWINT)) {
            return true;
        }
    }
    return false;
}

static bool step(uint8_t twcr, uint8_t expected_status)
{
    TWCR = twcr;
    return wait_twint() && TW_STATUS == expected_status;
}

static bool start(uint8_t expected)
{
    return step((1 << TWINT) | (1 << TWSTA) | (1 << TWEN), expected);
}

static bool send(uint8_t byte, uint8_t expected)
{
    TWDR = byte;
    return step((1 << TWINT) | (1 << TWEN), expected);
}

static void stop(void)
{
    TWCR = (1 << TWINT) | (1 << TWSTO) | (1 << TWEN);
    for (uint16_t i = 0; i < TWI_SPIN_LIMIT && (TWCR & (1 << TWSTO)); i++) {
    }
}

bool twi_write(uint8_t addr7, const uint8_t *bytes, uint8_t len)
{
    bool ok = start(TW_START) && send((uint8_t)(addr7 << 1) | TW_WRITE, TW_MT_SLA_ACK);
    for (uint8_t i = 0; ok && i < len; i++) {
        ok = send(bytes[i], TW_MT_DATA_ACK);
    }
    stop();
    return ok;
}

bool twi_read_reg(uint8_t addr7, uint8_t reg, uint8_t *bytes, uint8_t len)
{
    bool ok = start(TW_START) && send((uint8_t)(addr7 << 1) | TW_WRITE, TW_MT_SLA_ACK) &&
              send(reg, TW_MT_DATA_ACK) && start(TW_REP_START) &&
              send((uint8_t)(addr7 << 1) | TW_READ, TW_MR_SLA_ACK);
    for (uint8_t i = 0; ok && i < len; i++) {
        bool last = (uint8_t)(i + 1u) == len;
        /* ACK every byte but the last, which tells the slave to let go. */
        ok = step((1 << TWINT) | (1 << TWEN) | (last ? 0 : (1 << TWEA)),
                  last ? TW_MR_DATA_NACK : TW_MR_DATA_ACK);
        if (ok) {
            bytes[i] = TWDR;
        }
    }
    stop();
    return ok;
}
