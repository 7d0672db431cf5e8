/*
 * The only way the portable core reaches hardware.  A port (the ATmega32U4
 * firmware, the host unit tests, the simulated board in Swift) fills one of
 * these with plain C function pointers; every call passes `context` back, so
 * two boards can live in one process and Swift can pass @convention(c)
 * closures with an Unmanaged pointer as context.
 */
#ifndef HAPBRIDGE_HOOKS_H
#define HAPBRIDGE_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum hb_i2c_result {
    HB_I2C_ACK = 0,  /* every byte acknowledged */
    HB_I2C_NACK = 1, /* address or data not acknowledged, or bus error */
} hb_i2c_result;

typedef struct hb_hooks {
    void *context;

    /* START, addr7+W, bytes..., STOP.  Blocking; may be called from the timer
     * callback (hb_core_timer_fired), so it must not depend on interrupts. */
    hb_i2c_result (*i2c_write)(void *context, uint8_t addr7, const uint8_t *bytes, uint8_t len);

    /* START, addr7+W, reg, repeated START, addr7+R, len bytes (last NACKed), STOP. */
    hb_i2c_result (*i2c_read)(void *context, uint8_t addr7, uint8_t reg, uint8_t *bytes,
                              uint8_t len);

    /* Free-running board time in microseconds; wraps at 2^32. */
    uint32_t (*now_us)(void *context);

    /* Call hb_core_timer_fired once board time reaches at_us (or as soon as
     * possible when at_us is already past).  Replaces any earlier arming. */
    void (*arm_timer)(void *context, uint32_t at_us);

    /* Busy-wait until now_us reaches at_us (at most spin_us away).  Lets a
     * port spin on its raw counter, finer than a now_us round trip.  May be
     * NULL: the core then polls now_us. */
    void (*spin_until)(void *context, uint32_t at_us);

    /* Nothing is due any more; a port may leave the timer armed (a spurious
     * hb_core_timer_fired is harmless).  May be NULL. */
    void (*disarm_timer)(void *context);

    /* Queue one complete frame for the host.  Never called from the timer
     * callback.  A port that cannot send drops it: board sequence numbers let
     * the host see the loss. */
    void (*send_frame)(void *context, const uint8_t *frame, uint8_t len);

    /* How many bytes a frame the host did not ask for (ACCEL_SAMPLES) may take
     * in the port's transmit buffer now, leaving the room the port keeps for
     * replies.  The core sends such a frame only where it fits, so the port
     * never drops one: what does not fit waits where it is (the sensor's FIFO)
     * until the host has read.  Main context.  May be NULL: every frame fits. */
    uint8_t (*send_room)(void *context);

    /* Jump to the bootloader; called after the actuator has been stopped and
     * the ACK queued.  May return on ports that have none. */
    void (*enter_bootloader)(void *context);

    /* Mask/unmask the timer callback around state it shares with the main
     * context.  May be NULL where both run on one thread (the Swift simulated
     * board, the unit tests). */
    void (*lock)(void *context);
    void (*unlock)(void *context);

    /* The chip's STATUS for the core's periodic fault poll, from a reading
     * the port took itself within the last max_age_us (the hosted FT232H
     * reads it in the same USB transfer as each write, where a read of its
     * own would cost a round trip that no gap in a dense stream holds), with
     * every fault bit seen since the last call ORed in (they clear on read).
     * Returns false when it has none that fresh: the core then reads STATUS
     * over I2C.  May be NULL. */
    bool (*recent_status)(void *context, uint32_t max_age_us, uint8_t *status);
} hb_hooks;

#endif /* HAPBRIDGE_HOOKS_H */
