/* The simavr suite's framework: the shared board (suite.c), the runner and
 * its assertions, and the protocol helpers (suite_helpers.c).  The tests live
 * in the *_tests.c files, each declaring its runners below; main.c runs them
 * in order.  Nothing here includes a test file. */
#ifndef SUITE_H
#define SUITE_H

#include <stdbool.h>
#include <stdint.h>

#include "drv_model.h"
#include "link.h"
#include "sim_board.h"

#include "hapbridge/queue.h"

/* The AVR build takes queue.h's capacity as it is: its HELLO_REPLY must say so. */
#define EXPECTED_QUEUE_CAPACITY HB_QUEUE_CAPACITY

/* Stamps later than this fail, as in timing.c: about one I2C byte at 400 kHz. */
#define MAX_STAMP_ERROR_US 20.0
/* How early a command may latch (the STOP of its carrying write) before its
 * stamp: the board aims the STOP at the stamp to within its timer's 0.5 us
 * tick and the TWI's polling (README, "Measured"). */
#define LATCH_EARLY_US 1.5

/* ---- the board every test shares (suite.c) ---------------------------------- */

extern sim_board board;
extern drv_model chip;
/* The accelerometer on the bus (addr 0: none): a peer the host answers for
 * (usb_serve.c --accel).  fit_accel before boot_board* attaches it there. */
extern drv_model accel;
void fit_accel(uint8_t addr, const drv_host *host);
/* The board's whole EEPROM from byte 0 (n bytes, at most the part's 1 KiB) for the
 * next boot, over what --serial preloads: what a bootloader wrote (sim-harness
 * --usb --eeprom).  NULL: none. */
void fit_eeprom(const uint8_t *bytes, uint16_t n);
extern link host;
/* What the main suite's board finds at boot: a serial in EEPROM and a
 * Caterina image in its boot section. */
extern const char suite_serial[];
extern const uint8_t caterina_image[];
extern const uint32_t caterina_image_len;

/* A boot reads the board's identity first (~15 ms with the whole boot
 * section scanned): this bounds it. */
#define BOOT_MAX_US 100000u
/* Loads the ELF with these memories (sim_board_set_memories), paints the
 * stack and boots. */
bool boot_board(const char *elf_path, const char *eeprom_serial, const uint8_t *boot_image,
                uint32_t boot_image_len);
/* The same with the chip answered by a host (drv_model.h; NULL: the register file). */
bool boot_board_with_chip(const char *elf_path, const char *eeprom_serial, const uint8_t *boot_image,
                          uint32_t boot_image_len, const drv_host *chip_host);
/* The same with the application section replaced by `application` (what a
 * bootloader wrote: flash from 0x0000, the rest of the section erased): the
 * ELF still gives the MCU, clock and symbols.  NULL: the ELF's own image. */
bool boot_board_with_application(const char *elf_path, const char *eeprom_serial, const uint8_t *boot_image,
                                 uint32_t boot_image_len, const drv_host *chip_host, const uint8_t *application,
                                 uint32_t application_len);

/* ---- runner and assertions (suite.c) ---------------------------------------- */

/* Why the running test failed, printed after its name. */
extern char why[256];
bool fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            return fail(__VA_ARGS__);                                                             \
        }                                                                                         \
    } while (0)

/* Runs one test and prints its TAP-like line; a reboot or a stopped CPU
 * during it fails it. */
void run_test(const char *name, bool (*fn)(void));
/* Prints "N passed, N failed"; the process exit status. */
int suite_summary(void);

/* ---- protocol helpers (suite_helpers.c) ------------------------------------- */

double board_now(void);
uint32_t stamp_in(uint32_t us);
bool send_rtp(uint32_t at, uint8_t amplitude);
bool hello_minor(uint8_t minor, uint16_t keepalive_ms, uint16_t max_drive_ms, link_frame *reply);
bool hello(uint16_t keepalive_ms, uint16_t max_drive_ms, link_frame *reply);
/* A 1.1 session; fails unless the 1.1 reply comes back. */
bool hello_1_1(link_frame *r);
bool expect_nak(uint8_t reason, uint8_t *expected_seq);
/* True when some logged write since `from` put `value` into `reg`. */
bool wrote(uint32_t from, uint8_t reg, uint8_t value);
bool chip_stopped(void);
/* Sends an untimed I2C request and waits for its I2C_RESULT. */
bool i2c(uint8_t type, const uint8_t *payload, uint8_t len, link_frame *result);
/* START of the write that put `value` into RTP_INPUT, on the board clock. */
bool rtp_latch(uint32_t from, uint8_t value, double *latch);
/* A 1.1 session, then n RTP amplitudes 1, 2, .. stamped `step` apart from
 * `ahead` us on (*t0); *mark is where the chip log stood before them. */
bool open_and_stream(uint32_t ahead, uint32_t n, uint32_t step, uint32_t *mark, uint32_t *t0);

/* ---- the tests, in the files named for what they test ----------------------- */

void run_usb_device_tests(void);                  /* usb_device_tests.c */
void run_session_tests(void);                     /* session_tests.c */
void run_stamp_timing_tests(void);                /* stamp_timing_tests.c */
void run_batch_tests(void);
void run_frame_rejection_tests(void);             /* frame_rejection_tests.c */
void run_safety_stop_tests(void);                 /* safety_stop_tests.c */
void run_watchdog_tests(void);
void run_identity_tests(void);                    /* identity_tests.c */
void run_identity_boot_tests(void);
void run_untimed_i2c_tests(void);                 /* untimed_i2c_tests.c */
void run_untimed_i2c_next_to_stream_tests(void);
void run_i2c_bus_timing_tests(void);              /* i2c_bus_timing_tests.c */
void run_replace_from_tests(void);                /* replace_from_tests.c */
void run_stack_margin_tests(void);                /* stack_margin_tests.c */
void run_bootloader_tests(void);                  /* bootloader_tests.c */

#endif
