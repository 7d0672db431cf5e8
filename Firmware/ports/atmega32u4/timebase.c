#include "timebase.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#if F_CPU != 16000000UL
#error "timebase assumes 16 MHz: Timer1 at clk/8 gives 0.5 us ticks"
#endif

/* Timer1 overflows every 65536 ticks = 32.768 ms; counting them extends the
 * 16-bit counter to a 32-bit microsecond clock that wraps every 71.6 min. */
static volatile uint32_t overflows;

ISR(TIMER1_OVF_vect) { overflows++; }

void timebase_init(void)
{
    TCCR1A = 0;                /* normal mode: the counter runs free, OCR1A only compares */
    TCCR1B = (1 << CS11);      /* clk/8 */
    TIFR1 = (1 << TOV1) | (1 << OCF1A);
    TIMSK1 = (1 << TOIE1);
}

/* Interrupts must be off. */
static uint32_t now_locked(void)
{
    uint16_t t = TCNT1;
    uint32_t ovf = overflows;
    /* An overflow that happened since the ISR last ran is still pending:
     * a small count means the wrap is behind us and not yet counted. */
    if ((TIFR1 & (1 << TOV1)) && t < 0x8000u) {
        ovf++;
    }
    /* (ovf:t) >> 1, built from whole bytes: avr-gcc turns a 32-bit "<< 15"
     * into a 15-round loop, and this runs on the path from the compare
     * match to the I2C START. */
    uint32_t us = (((uint32_t)(uint16_t)ovf << 16) | t) >> 1;
    if (ovf & 0x10000UL) {
        us |= 0x80000000UL;
    }
    return us;
}

uint32_t timebase_now_us(void)
{
    uint32_t now;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { now = now_locked(); }
    return now;
}

/* Compare fires at the low 16 bits of the target tick count: at most 32 ms
 * early for far targets, in which case the core re-arms.  A target this close
 * or already past could be overtaken by TCNT1 before OCR1A is written. */
#define ARM_MIN_AHEAD_US 4

void timebase_arm(uint32_t at_us)
{
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        int32_t ahead = (int32_t)(at_us - now_locked());
        uint16_t ocr;
        if (ahead < ARM_MIN_AHEAD_US) {
            ocr = (uint16_t)(TCNT1 + 2u * ARM_MIN_AHEAD_US);
        } else {
            ocr = (uint16_t)(at_us << 1);
        }
        OCR1A = ocr;
        TIFR1 = (1 << OCF1A); /* drop a match from the previous arming */
        TIMSK1 |= (1 << OCIE1A);
    }
}

void timebase_disarm(void)
{
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { TIMSK1 &= (uint8_t)~(1 << OCIE1A); }
}

void timebase_spin_until(uint32_t at_us)
{
    /* Only the low 16 bits of the tick count matter this close: a signed
     * 16-bit difference against TCNT1 is ~10 cycles a round, 0.5 us steps. */
    uint16_t target = (uint16_t)(at_us << 1);
    int16_t left;
    do {
        left = (int16_t)(target - TCNT1);
    } while (left > 0);
}
