/* The simavr suite's shared state and helpers (main.c), for the test files
 * that add to it. */
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


extern sim_board board;
extern drv_model chip;
extern link host;
extern char why[256];
extern const char suite_serial[];
extern const uint8_t caterina_image[];
extern const uint32_t caterina_image_len;

bool fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            return fail(__VA_ARGS__);                                                             \
        }                                                                                         \
    } while (0)

void run_test(const char *name, bool (*fn)(void));
/* Loads the ELF with these memories (sim_board_set_memories), paints the
 * stack and boots. */
bool boot_board(const char *elf_path, const char *eeprom_serial, const uint8_t *boot_image,
                uint32_t boot_image_len);

double board_now(void);
uint32_t stamp_in(uint32_t us);
bool send_rtp(uint32_t at, uint8_t amplitude);
bool hello_minor(uint8_t minor, uint16_t keepalive_ms, uint16_t max_drive_ms, link_frame *reply);
bool expect_nak(uint8_t reason, uint8_t *expected_seq);
bool wrote(uint32_t from, uint8_t reg, uint8_t value);
bool chip_stopped(void);

/* protocol_1_1_tests.c */
void run_protocol_1_1_tests(void);
bool stack_keeps_its_margin(void);
void run_identity_boot_tests(void);

#endif
