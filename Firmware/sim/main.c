/*
 * Runs the real firmware ELF under simavr as a USB host and a DRV2605, and
 * checks enumeration, the protocol, stamp timing, bad-frame rejection and the
 * safety stops, all in simulated (cycle-accurate) time.
 *
 * usage: sim-harness FIRMWARE.elf [STREAM_COMMANDS]
 * Prints one "ok"/"not ok" line per test, the timing percentiles, and a last
 * line "N passed, N failed".
 *
 *        sim-harness --serve FIRMWARE.elf [--poll-us N] [--chip host] [--accel ADDR]
 * Serves the booted, enumerated firmware to another program over stdin/stdout
 * (serve.c): the Swift SimavrBridgeDevice drives the engine through it.
 *
 * The framework is suite.h (suite.c, suite_helpers.c); the tests are in the
 * *_tests.c files, named for what they test.  This file holds the order they
 * run in: each group leaves the board as the next one expects it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "line_io.h"
#include "serve.h"
#include "suite.h"
#include "timing.h"
#include "usb_serve.h"

static int serve_command(int argc, char **argv)
{
    uint32_t poll_us = SERVE_DEFAULT_POLL_US;
    bool chip_on_host = false;
    int accel = 0;
    for (int i = 3; i < argc; i += 2) {
        if (i + 1 < argc && strcmp(argv[i], "--poll-us") == 0) {
            poll_us = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        } else if (i + 1 < argc && strcmp(argv[i], "--chip") == 0 && strcmp(argv[i + 1], "host") == 0) {
            chip_on_host = true;
        } else if (i + 1 < argc && strcmp(argv[i], "--accel") == 0 && (accel = parse_i2c_address(argv[i + 1])) > 0) {
            /* an accelerometer the host answers for */
        } else {
            argc = 0; /* usage */
        }
    }
    if (argc < 3) {
        fprintf(stderr, "usage: %s --serve FIRMWARE.elf [--poll-us N] [--chip host] [--accel ADDR]\n", argv[0]);
        return 2;
    }
    return serve_main(argv[2], poll_us, chip_on_host, (uint8_t)accel);
}

static int suite_command(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FIRMWARE.elf [STREAM_COMMANDS]\n       %s --serve FIRMWARE.elf [--poll-us N]\n",
                argv[0], argv[0]);
        return 2;
    }
    if (argc > 2) {
        timing_set_commands((uint32_t)strtoul(argv[2], NULL, 10));
    }
    const char *elf = argv[1];
    if (!boot_board(elf, suite_serial, caterina_image, caterina_image_len)) {
        printf("not ok - sim: firmware loads\n0 passed, 1 failed\n");
        return 1;
    }

    run_usb_device_tests();
    run_session_tests();
    run_stamp_timing_tests();
    run_frame_rejection_tests(); /* its QUEUE_STATUS counts the stream above */
    run_batch_tests();
    run_safety_stop_tests();
    run_identity_tests();
    run_untimed_i2c_tests();
    run_i2c_bus_timing_tests();
    run_replace_from_tests();
    run_untimed_i2c_next_to_stream_tests();
    run_watchdog_tests();
    /* Before the bootloader tests: their key at 0x0800 lands in the RAM
     * between .bss and the stack and would read as stack use. */
    run_stack_margin_tests();
    run_bootloader_tests();
    run_identity_boot_tests(); /* each powers the board up with other memories */
    return suite_summary();
}

/* sim-harness MODE ...: one entry per mode; the suite runs without one. */
static const struct {
    const char *flag;
    int (*run)(int argc, char **argv);
} modes[] = {
    {"--serve", serve_command},
    {"--usb", usb_serve_command},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (argc >= 2 && strcmp(argv[1], modes[i].flag) == 0) {
            return modes[i].run(argc, argv);
        }
    }
    return suite_command(argc, argv);
}
