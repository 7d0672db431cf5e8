/*
 * simavr's ".mmcu" tags: lets `simavr fw.elf` pick the MCU and clock without
 * command-line flags.  Linked at 0x910000 (outside flash) and stripped from
 * the .hex, so real boards never see it.  Layout per simavr's documented
 * tag format: tag byte, length byte, value.
 */
#include <stdint.h>

#define MMCU_TAG_END 0u
#define MMCU_TAG_NAME 1u
#define MMCU_TAG_FREQUENCY 2u

struct mmcu_tags {
    uint8_t name_tag, name_len;
    char name[64];
    uint8_t freq_tag, freq_len;
    uint32_t freq;
    uint8_t end_tag, end_len;
} __attribute__((packed));

const struct mmcu_tags _mmcu __attribute__((section(".mmcu"), used)) = {
    MMCU_TAG_NAME, 64, "atmega32u4",
    MMCU_TAG_FREQUENCY, 4, F_CPU,
    MMCU_TAG_END, 0,
};
