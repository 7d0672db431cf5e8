/*
 * hapbridge wire protocol: the single definition shared by the firmware and
 * the Swift host (imported through the SwiftPM C target at Firmware/protocol).
 * Byte-level documentation with a worked example: Firmware/PROTOCOL.md.
 *
 * Plain C11, fixed-width types, no platform headers: the host must be able to
 * import this file unchanged.  Multi-byte fields are little-endian; payloads
 * are read and written through the hb_get_/hb_put_ helpers and the offset
 * constants below, never by casting to packed structs (packing is not
 * portable and Swift does not import it).
 */
#ifndef HAPBRIDGE_PROTOCOL_H
#define HAPBRIDGE_PROTOCOL_H

#include <stdbool.h>
#include <stdint.h>

/* A board answers HELLO with min(host minor, board minor) and lays its reply
 * out for that minor, so a host of any earlier minor still reads it. */
#define HB_PROTO_VERSION_MAJOR 1
#define HB_PROTO_VERSION_MINOR 1

/* ---- Frame layout --------------------------------------------------------
 *   [0] magic 0xA5   [1] payload length   [2] sequence   [3] type
 *   [4 .. 4+len-1] payload
 *   [4+len .. 5+len] CRC-16/CCITT-FALSE over bytes [1 .. 3+len], little-endian
 * Frames are a byte stream: they may share or straddle USB packets.
 */
#define HB_FRAME_MAGIC 0xA5u
#define HB_FRAME_HEADER_LEN 4u
#define HB_FRAME_CRC_LEN 2u
#define HB_FRAME_MAX_PAYLOAD 48u
#define HB_FRAME_OVERHEAD (HB_FRAME_HEADER_LEN + HB_FRAME_CRC_LEN)
#define HB_FRAME_MAX_LEN (HB_FRAME_MAX_PAYLOAD + HB_FRAME_OVERHEAD)

#define HB_FRAME_OFFSET_MAGIC 0u
#define HB_FRAME_OFFSET_LEN 1u
#define HB_FRAME_OFFSET_SEQ 2u
#define HB_FRAME_OFFSET_TYPE 3u
#define HB_FRAME_OFFSET_PAYLOAD 4u

/* ---- Frame types: host -> board (replies are the request type | 0x80) ---- */
#define HB_T_HELLO 0x01u
#define HB_T_SYNC 0x02u
#define HB_T_KEEPALIVE 0x03u
#define HB_T_QUEUE_STATUS_REQ 0x04u
#define HB_T_CHIP_STATUS_REQ 0x05u
#define HB_T_STOP_ALL 0x06u
#define HB_T_CLEAR_FAULT 0x07u
#define HB_T_ENTER_BOOTLOADER 0x08u
#define HB_T_I2C_READ 0x09u  /* 1.1: untimed, works without a session */
#define HB_T_I2C_WRITE 0x0Au /* 1.1: untimed, needs a session */
#define HB_T_REPLACE_FROM 0x14u /* 1.1: immediate (not queued) despite its stamp */
#define HB_T_ACCEL_STREAM 0x15u /* 1.1 with HB_CAP_ACCEL: start/stop the accelerometer's samples */
/* Stamped commands: executed by the board's timer at payload[0..3] (board us) */
#define HB_T_CMD_RTP 0x10u
#define HB_T_CMD_REG_WRITE 0x11u
#define HB_T_CMD_ROM_SEQ 0x12u
#define HB_T_CMD_STOP 0x13u

/* ---- Frame types: board -> host ------------------------------------------ */
#define HB_T_HELLO_REPLY 0x81u
#define HB_T_SYNC_REPLY 0x82u
#define HB_T_QUEUE_STATUS 0x84u
#define HB_T_CHIP_STATUS 0x85u
#define HB_T_I2C_RESULT 0x89u
#define HB_T_REPLACED 0x94u
#define HB_T_ACCEL_SAMPLES 0x95u /* 1.1 with HB_CAP_ACCEL: unsolicited while streaming */
#define HB_T_ACK 0xA0u
#define HB_T_NAK 0xE0u
#define HB_T_EVENT_STOPPED 0xE1u

/* ---- Payloads (offsets in bytes from the start of the payload) ----------- */

/* HELLO: opens a session and resets the host sequence (any seq accepted). */
#define HB_HELLO_OFF_MAJOR 0u        /* u8  host's protocol major */
#define HB_HELLO_OFF_MINOR 1u        /* u8  host's protocol minor */
#define HB_HELLO_OFF_KEEPALIVE_MS 2u /* u16 host-silence timeout, 0 = default */
#define HB_HELLO_OFF_MAX_DRIVE_MS 4u /* u16 longest continuous drive, 0 = default */
#define HB_HELLO_LEN 6u

/* HELLO_REPLY */
#define HB_HELLO_REPLY_OFF_MAJOR 0u         /* u8  board's protocol major */
#define HB_HELLO_REPLY_OFF_MINOR 1u         /* u8  board's protocol minor */
#define HB_HELLO_REPLY_OFF_FW_MAJOR 2u      /* u8 */
#define HB_HELLO_REPLY_OFF_FW_MINOR 3u      /* u8 */
#define HB_HELLO_REPLY_OFF_CAPS 4u          /* u16 HB_CAP_* bits */
#define HB_HELLO_REPLY_OFF_QUEUE_CAP 6u     /* u8  timed queue capacity */
#define HB_HELLO_REPLY_OFF_DEVICE_ID 7u     /* u8  DRV2605 DEVICE_ID, 0xFF = no chip */
#define HB_HELLO_REPLY_OFF_BOARD_US 8u      /* u32 board time at reply */
#define HB_HELLO_REPLY_OFF_KEEPALIVE_MS 12u /* u16 timeout in force */
#define HB_HELLO_REPLY_OFF_MAX_DRIVE_MS 14u /* u16 limit in force */
#define HB_HELLO_REPLY_OFF_TICK_NS 16u      /* u16 timer resolution */
#define HB_HELLO_REPLY_LEN 18u              /* negotiated minor 0 */
/* Negotiated minor >= 1 appends the board's identity (later minors may
 * append more: hosts accept any length from HB_HELLO_REPLY_1_1_LEN on). */
#define HB_HELLO_REPLY_OFF_BOOTLOADER 18u   /* u8  HB_BOOTLOADER_* */
#define HB_HELLO_REPLY_OFF_SERIAL_LEN 19u   /* u8  0..HB_SERIAL_MAX_LEN */
#define HB_HELLO_REPLY_OFF_SERIAL 20u       /* ASCII, zero padded to HB_SERIAL_MAX_LEN */
#define HB_HELLO_REPLY_1_1_LEN 40u
/* Appended within 1.1 (firmware 0.2 on; a shorter 1.1 reply does not state it):
 * the board's intake, the least board time between two stamped chip writes it
 * keeps up with (taking frames in and running them on its one core); hosts pace
 * stamped writes to it.  0 = not stated. */
#define HB_HELLO_REPLY_OFF_WRITE_SPACING_US 40u /* u16 µs */
#define HB_HELLO_REPLY_INTAKE_LEN 42u
/* Appended within 1.1 (firmware 0.2 on; a shorter reply does not state it, 0
 * neither): the board's latch lead, how long before its stamp a command must be
 * in the board's queue for the chip to take it on the stamp (a stamp is the
 * STOP of the write that carries the command, PROTOCOL.md "Stamped commands"):
 * the timer's spin, the lead to the write's START, a MODE write ahead of it and
 * the write itself.  Hosts stamp "now" at least this much ahead.  0 where I2C
 * takes no board time. */
#define HB_HELLO_REPLY_OFF_LATCH_LEAD_US 42u /* u16 µs */
#define HB_HELLO_REPLY_LATCH_LEN 44u
/* What a host paces a board at that does not state its intake (a 1.0 board, an
 * older 1.1 one): the slowest port this project has, the ATmega32U4's figure. */
#define HB_UNSTATED_WRITE_SPACING_US 400u

/* What the board found in its boot section. */
#define HB_BOOTLOADER_NONE 0u      /* boot section blank */
#define HB_BOOTLOADER_CATERINA 1u  /* AVR109 over CDC (Leonardo, Pro Micro) */
#define HB_BOOTLOADER_ATMEL_DFU 2u /* Atmel's factory DFU bootloader (FLIP) */
#define HB_BOOTLOADER_UNKNOWN 0xFFu

/* The board's serial number: HELLO_REPLY and the USB iSerialNumber string. */
#define HB_SERIAL_MAX_LEN 20u
/* What a board reports when it has no serial (none written to its EEPROM,
 * no unique ID readable): it says so rather than inventing a number. */
#define HB_SERIAL_FALLBACK "UNSET"

/* ---- The serial record in the board's EEPROM ------------------------------
 * Where the ATmega32U4 firmware reads its serial first (board_identity.h's
 * hb_board_serial), and what `hapbridge flash --serial` writes through the
 * bootloader's EEPROM programming (AVR109 'B' .. 'E', FLIP's EEPROM memory):
 *   [0..3] 'H' 'B' 'S' 'N'   [4] n, 1..HB_SERIAL_MAX_LEN   [5..4+n] ASCII
 * No checksum: a record whose magic, length or characters break the rule is
 * no record, and the board falls back to its unique ID, then "UNSET".  The
 * bytes after the text (to HB_SERIAL_RECORD_LEN) are not read. */
#define HB_SERIAL_RECORD_MAGIC "HBSN"
#define HB_SERIAL_RECORD_OFF_MAGIC 0u
#define HB_SERIAL_RECORD_MAGIC_LEN 4u
#define HB_SERIAL_RECORD_OFF_LEN 4u
#define HB_SERIAL_RECORD_OFF_TEXT 5u
#define HB_SERIAL_RECORD_LEN (HB_SERIAL_RECORD_OFF_TEXT + HB_SERIAL_MAX_LEN)
#define HB_SERIAL_RECORD_EEPROM_ADDR 0u

#define HB_CAP_RTP (1u << 0)
#define HB_CAP_REG_WRITE (1u << 1)
#define HB_CAP_ROM_SEQ (1u << 2)
#define HB_CAP_STAMPED_STOP (1u << 3)
#define HB_CAP_CLOCK_SYNC (1u << 4)
#define HB_CAP_QUEUE_STATUS (1u << 5)
#define HB_CAP_CHIP_STATUS (1u << 6)
#define HB_CAP_BOOTLOADER (1u << 7)
#define HB_CAP_RAW_I2C (1u << 8)      /* I2C_READ / I2C_WRITE */
#define HB_CAP_REPLACE_FROM (1u << 9)
#define HB_CAP_IDENTITY (1u << 10)    /* serial and bootloader kind in HELLO_REPLY */
#define HB_CAP_ACCEL (1u << 11)       /* a LIS3DH answered WHO_AM_I: ACCEL_STREAM / ACCEL_SAMPLES */

/* SYNC: one NTP-style exchange; the host keeps its own send/receive times. */
#define HB_SYNC_OFF_TOKEN 0u /* u32 opaque, echoed */
#define HB_SYNC_LEN 4u
#define HB_SYNC_REPLY_OFF_TOKEN 0u /* u32 echoed token */
#define HB_SYNC_REPLY_OFF_RX_US 4u /* u32 board time when the request was decoded */
#define HB_SYNC_REPLY_OFF_TX_US 8u /* u32 board time when the reply was built */
#define HB_SYNC_REPLY_LEN 12u

#define HB_KEEPALIVE_LEN 0u
#define HB_QUEUE_STATUS_REQ_LEN 0u
#define HB_CHIP_STATUS_REQ_LEN 0u
#define HB_STOP_ALL_LEN 0u
#define HB_CLEAR_FAULT_LEN 0u

/* ENTER_BOOTLOADER carries a magic so a corrupted frame type cannot brick a run. */
#define HB_BOOT_OFF_MAGIC 0u /* u32 HB_BOOT_MAGIC */
#define HB_BOOT_MAGIC 0x544F4F42u /* "BOOT" little-endian */
#define HB_ENTER_BOOTLOADER_LEN 4u

/* QUEUE_STATUS */
#define HB_QSTAT_OFF_FREE 0u           /* u8  free slots */
#define HB_QSTAT_OFF_CAPACITY 1u       /* u8 */
#define HB_QSTAT_OFF_UNDERRUNS 2u      /* u16 commands started later than HB_LATE_TOLERANCE_US (after a shared stamp's first: when it was) */
#define HB_QSTAT_OFF_LAST_AT_US 4u     /* u32 stamp of the last executed command */
#define HB_QSTAT_OFF_LAST_RUN_US 8u    /* u32 board time the chip took it (the latch) */
#define HB_QSTAT_OFF_LAST_SEQ 12u      /* u8  last accepted host sequence */
#define HB_QSTAT_OFF_REJECTED 13u      /* u16 frames rejected since boot */
#define HB_QSTAT_OFF_EXECUTED 15u      /* u32 commands executed since boot */
#define HB_QUEUE_STATUS_LEN 19u

/* CHIP_STATUS */
#define HB_CSTAT_OFF_STATUS_REG 0u  /* u8 DRV2605 STATUS as just read, 0xFF if unreadable */
#define HB_CSTAT_OFF_FAULTS 1u      /* u8 HB_FAULT_* latched */
#define HB_CSTAT_OFF_STOP_REASON 2u /* u8 HB_STOP_* of the last stop, 0 = none */
#define HB_CSTAT_OFF_DRIVING 3u     /* u8 1 while the actuator is being driven */
#define HB_CSTAT_OFF_MODE_REG 4u    /* u8 last MODE written, 0xFF unknown */
#define HB_CSTAT_OFF_I2C_ERRORS 5u  /* u16 NACKed transactions since boot */
#define HB_CSTAT_OFF_BOARD_US 7u    /* u32 */
#define HB_CHIP_STATUS_LEN 11u

#define HB_FAULT_OVER_TEMP (1u << 0) /* STATUS.OVER_TEMP seen */
#define HB_FAULT_OVER_CURRENT (1u << 1) /* STATUS.OC_DETECT seen */
#define HB_FAULT_I2C (1u << 2)       /* the chip NACKed a command */

/* Stamped commands: common stamp, then the command's own fields. */
#define HB_CMD_OFF_AT_US 0u /* u32 board time to start at */
#define HB_CMD_RTP_OFF_AMPLITUDE 4u /* u8 RTP_INPUT value */
#define HB_CMD_RTP_LEN 5u
#define HB_CMD_REG_OFF_REG 4u   /* u8 register address */
#define HB_CMD_REG_OFF_VALUE 5u /* u8 value */
#define HB_CMD_REG_WRITE_LEN 6u
#define HB_CMD_ROM_OFF_ENTRIES 4u /* 1..8 WAV_FRM_SEQ entries (WAIT bit allowed) */
#define HB_CMD_ROM_MIN_LEN 5u
#define HB_CMD_ROM_MAX_LEN 12u
#define HB_CMD_ROM_MAX_ENTRIES 8u
#define HB_CMD_STOP_LEN 4u

/* I2C_READ / I2C_WRITE: one transaction at any 7-bit address, run when
 * decoded (never inside a stamped command's transaction). */
#define HB_I2C_OFF_ADDR 0u         /* u8 7-bit address */
#define HB_I2C_OFF_REG 1u          /* u8 register (the first byte written) */
#define HB_I2C_READ_OFF_COUNT 2u   /* u8 bytes to read, 1..HB_I2C_MAX_DATA */
#define HB_I2C_READ_LEN 3u
#define HB_I2C_WRITE_OFF_DATA 2u   /* 1..HB_I2C_MAX_DATA bytes, auto-increment */
#define HB_I2C_WRITE_MIN_LEN 3u
#define HB_I2C_WRITE_MAX_LEN 34u
#define HB_I2C_MAX_DATA 32u

/* An untimed read (I2C_READ) waits for a gap in the stamped stream: it goes on
 * the bus only when no stamped command falls due before it ends plus
 * HB_UNTIMED_GUARD_US (an I2C_WRITE runs at once, as it arrives).  Its length: HB_UNTIMED_BYTE_US a byte on the
 * wire at 400 kHz (nine clocks and the port's own time between bytes, measured
 * under simavr: Firmware/README.md) and HB_UNTIMED_FIXED_US for START and STOP.
 * A stream that leaves no such gap for HB_UNTIMED_MAX_WAIT_US gets it run all
 * the same (one command then pays for it) rather than starve it. */
#define HB_UNTIMED_BYTE_US 26u
#define HB_UNTIMED_FIXED_US 10u
#define HB_UNTIMED_GUARD_US 100u
#define HB_UNTIMED_MAX_WAIT_US 50000u
#define HB_I2C_MAX_ADDR 0x7Fu

/* I2C_RESULT */
#define HB_I2C_RESULT_OFF_SEQ 0u    /* u8 host sequence of the request */
#define HB_I2C_RESULT_OFF_ADDR 1u   /* u8 */
#define HB_I2C_RESULT_OFF_REG 2u    /* u8 */
#define HB_I2C_RESULT_OFF_STATUS 3u /* u8 HB_I2C_STATUS_* */
#define HB_I2C_RESULT_OFF_COUNT 4u  /* u8 n bytes read (0 for a write or a failure) */
#define HB_I2C_RESULT_OFF_DATA 5u   /* n bytes */
#define HB_I2C_RESULT_MIN_LEN 5u
#define HB_I2C_STATUS_ACK 0u  /* every byte acknowledged */
#define HB_I2C_STATUS_NACK 1u /* not acknowledged, or a bus error */

/* REPLACE_FROM: discards the queued commands stamped at or after at_us. */
#define HB_REPLACE_OFF_AT_US 0u /* u32 */
#define HB_REPLACE_FROM_LEN 4u
#define HB_REPLACED_OFF_SEQ 0u       /* u8 host sequence of the REPLACE_FROM */
#define HB_REPLACED_OFF_DISCARDED 1u /* u8 commands discarded */
#define HB_REPLACED_OFF_FREE 2u      /* u8 free slots after */
#define HB_REPLACED_LEN 3u

/* ACCEL_STREAM (needs a session; HB_CAP_ACCEL): the board's LIS3DH at the
 * output data rate ODR (the code CTRL_REG1.ODR takes: 1..7 = 1, 10, 25, 50,
 * 100, 200, 400 Hz, 9 = 1344 Hz; 0 stops) and full scale FS (CTRL_REG4.FS:
 * 0..3 = +-2, 4, 8, 16 g), high-resolution (12-bit) mode.  ACK when taken;
 * NAK BAD_ARG for another code or when no sensor answered.  The stream stops
 * with the session (a new HELLO, host silence).  PROTOCOL.md, "Accelerometer". */
#define HB_ACCEL_STREAM_OFF_ODR 0u /* u8 CTRL_REG1.ODR code, 0 = stop */
#define HB_ACCEL_STREAM_OFF_FS 1u  /* u8 CTRL_REG4.FS code */
#define HB_ACCEL_STREAM_LEN 2u

/* ACCEL_SAMPLES: samples in FIFO order, the first at first_us (board time,
 * the board's estimate: PROTOCOL.md), then one every period_ns. */
#define HB_ACCEL_OFF_FIRST_US 0u  /* u32 board time of the first sample */
#define HB_ACCEL_OFF_PERIOD_NS 4u /* u32 nominal sample period, ns */
#define HB_ACCEL_OFF_FORMAT 8u    /* u8 bits 0-1 FS code, bits 2-3 HB_ACCEL_RES_*, bit 7 samples lost before these */
#define HB_ACCEL_OFF_COUNT 9u     /* u8 n, 1..HB_ACCEL_MAX_SAMPLES */
#define HB_ACCEL_OFF_DATA 10u     /* n x (X, Y, Z) i16 as the chip gives them (left-justified) */
#define HB_ACCEL_SAMPLE_LEN 6u
#define HB_ACCEL_MAX_SAMPLES 6u
#define HB_ACCEL_MIN_LEN (HB_ACCEL_OFF_DATA + HB_ACCEL_SAMPLE_LEN)
#define HB_ACCEL_MAX_LEN (HB_ACCEL_OFF_DATA + HB_ACCEL_MAX_SAMPLES * HB_ACCEL_SAMPLE_LEN)
#define HB_ACCEL_FORMAT_FS_MASK 0x03u
#define HB_ACCEL_FORMAT_RES_SHIFT 2u
#define HB_ACCEL_FORMAT_LOST 0x80u
#define HB_ACCEL_RES_HIGH 0u   /* 12-bit: the value is the i16 >> 4 */
#define HB_ACCEL_RES_NORMAL 1u /* 10-bit: >> 6 */
#define HB_ACCEL_RES_LOW 2u    /* 8-bit: >> 8 */

/* ACK for STOP_ALL, CLEAR_FAULT, ENTER_BOOTLOADER, ACCEL_STREAM */
#define HB_ACK_OFF_SEQ 0u  /* u8 acknowledged host sequence */
#define HB_ACK_OFF_TYPE 1u /* u8 acknowledged type */
#define HB_ACK_LEN 2u

/* NAK: a frame was rejected and NOT executed. */
#define HB_NAK_OFF_SEQ 0u      /* u8 sequence byte as received (meaningless for CRC errors) */
#define HB_NAK_OFF_REASON 1u   /* u8 HB_NAK_* */
#define HB_NAK_OFF_EXPECTED 2u /* u8 sequence the board expected next */
#define HB_NAK_OFF_TYPE 3u     /* u8 type byte as received */
#define HB_NAK_LEN 4u

#define HB_NAK_CRC 1u           /* CRC mismatch: nothing of the frame is trusted */
#define HB_NAK_LENGTH 2u        /* length above maximum or wrong for the type */
#define HB_NAK_SEQ_GAP 3u       /* frames were lost before this one */
#define HB_NAK_UNKNOWN_TYPE 4u
#define HB_NAK_BAD_ARG 5u       /* e.g. read-only register, effect id out of range */
#define HB_NAK_QUEUE_FULL 6u
#define HB_NAK_NOT_OPEN 7u      /* no session: send HELLO first (also after a safety stop) */
#define HB_NAK_FAULT 8u         /* a fault is latched: CLEAR_FAULT first */
#define HB_NAK_VERSION 9u       /* HELLO with a different protocol major */
#define HB_NAK_OUT_OF_ORDER 10u /* stamp earlier than the last queued stamp */

/* EVENT_STOPPED: the board stopped the actuator on its own (or on STOP_ALL). */
#define HB_STOPPED_OFF_REASON 0u  /* u8 HB_STOP_* */
#define HB_STOPPED_OFF_AT_US 1u   /* u32 board time of the stop */
#define HB_STOPPED_OFF_FLUSHED 5u /* u8 queued commands discarded */
#define HB_EVENT_STOPPED_LEN 6u

#define HB_STOP_HOST_SILENT 1u
#define HB_STOP_FAULT 2u
#define HB_STOP_MAX_DRIVE 3u
#define HB_STOP_HOST_REQUEST 4u
#define HB_STOP_BOOTLOADER 5u

/* Policy constants the host may rely on. */
#define HB_DEFAULT_KEEPALIVE_MS 500u
#define HB_DEFAULT_MAX_DRIVE_MS 5000u
#define HB_MAX_DRIVE_LIMIT_MS 30000u
#define HB_LATE_TOLERANCE_US 100u

/* ---- Helpers ------------------------------------------------------------- */

static inline uint16_t hb_get_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | ((uint16_t)p[1] << 8));
}

static inline uint32_t hb_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline void hb_put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void hb_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no xorout.
 * Byte at a time without a table (the shift-and-xor form of the polynomial):
 * 16-bit arithmetic only, so an 8-bit MCU takes a frame in far faster than a
 * bit loop (which spent ~100 us per frame on the AVR in 32-bit shifts), and
 * no 512-byte table to fit in flash. The host tests check it against the
 * bitwise definition. */
#define HB_CRC16_INIT 0xFFFFu

static inline uint16_t hb_crc16_update(uint16_t crc, uint8_t byte)
{
    uint8_t x = (uint8_t)((crc >> 8) ^ byte);
    x ^= (uint8_t)(x >> 4);
    /* (crc << 8) ^ (x << 12) ^ (x << 5) ^ x, built a byte at a time: avr-gcc
     * compiles a 16-bit "x << 5" as a five-round loop, these as swap/shift
     * instructions (~15 cycles a byte instead of ~45). */
    uint8_t hi = (uint8_t)((uint8_t)crc ^ (uint8_t)(x << 4) ^ (uint8_t)(x >> 3));
    uint8_t lo = (uint8_t)((uint8_t)(x << 5) ^ x);
    return (uint16_t)((uint16_t)hi << 8 | lo);
}

static inline uint16_t hb_crc16(const uint8_t *data, uint32_t len)
{
    /* A pointer walk, not a 32-bit index: on the AVR this runs on every
     * byte the host sends. */
    uint16_t crc = HB_CRC16_INIT;
    for (const uint8_t *end = data + len; data != end; data++) {
        crc = hb_crc16_update(crc, *data);
    }
    return crc;
}

/* Writes one complete frame into out (room for HB_FRAME_MAX_LEN bytes) and
 * returns its length, or 0 when the payload is too long. */
static inline uint8_t hb_frame_encode(uint8_t *out, uint8_t seq, uint8_t type,
                                      const uint8_t *payload, uint8_t len)
{
    if (len > HB_FRAME_MAX_PAYLOAD) {
        return 0;
    }
    out[HB_FRAME_OFFSET_MAGIC] = HB_FRAME_MAGIC;
    out[HB_FRAME_OFFSET_LEN] = len;
    out[HB_FRAME_OFFSET_SEQ] = seq;
    out[HB_FRAME_OFFSET_TYPE] = type;
    for (uint8_t i = 0; i < len; i++) {
        out[HB_FRAME_OFFSET_PAYLOAD + i] = payload[i];
    }
    uint16_t crc = hb_crc16(&out[HB_FRAME_OFFSET_LEN], (uint32_t)HB_FRAME_HEADER_LEN - 1u + len);
    hb_put_u16(&out[HB_FRAME_HEADER_LEN + len], crc);
    return (uint8_t)(len + HB_FRAME_OVERHEAD);
}

/* The only payload lengths a well-formed host frame of each type may carry.
 * Anything else is rejected with HB_NAK_LENGTH before the payload is read. */
static inline bool hb_host_payload_len_ok(uint8_t type, uint8_t len)
{
    switch (type) {
    case HB_T_HELLO: return len == HB_HELLO_LEN;
    case HB_T_SYNC: return len == HB_SYNC_LEN;
    case HB_T_KEEPALIVE: return len == HB_KEEPALIVE_LEN;
    case HB_T_QUEUE_STATUS_REQ: return len == HB_QUEUE_STATUS_REQ_LEN;
    case HB_T_CHIP_STATUS_REQ: return len == HB_CHIP_STATUS_REQ_LEN;
    case HB_T_STOP_ALL: return len == HB_STOP_ALL_LEN;
    case HB_T_CLEAR_FAULT: return len == HB_CLEAR_FAULT_LEN;
    case HB_T_ENTER_BOOTLOADER: return len == HB_ENTER_BOOTLOADER_LEN;
    case HB_T_I2C_READ: return len == HB_I2C_READ_LEN;
    case HB_T_I2C_WRITE: return len >= HB_I2C_WRITE_MIN_LEN && len <= HB_I2C_WRITE_MAX_LEN;
    case HB_T_REPLACE_FROM: return len == HB_REPLACE_FROM_LEN;
    case HB_T_ACCEL_STREAM: return len == HB_ACCEL_STREAM_LEN;
    case HB_T_CMD_RTP: return len == HB_CMD_RTP_LEN;
    case HB_T_CMD_REG_WRITE: return len == HB_CMD_REG_WRITE_LEN;
    case HB_T_CMD_ROM_SEQ: return len >= HB_CMD_ROM_MIN_LEN && len <= HB_CMD_ROM_MAX_LEN;
    case HB_T_CMD_STOP: return len == HB_CMD_STOP_LEN;
    default: return false;
    }
}

/* The same for frames from the board, so the host validates them from this
 * one table too. */
static inline bool hb_board_payload_len_ok(uint8_t type, uint8_t len)
{
    switch (type) {
    case HB_T_HELLO_REPLY: return len == HB_HELLO_REPLY_LEN || len >= HB_HELLO_REPLY_1_1_LEN;
    case HB_T_SYNC_REPLY: return len == HB_SYNC_REPLY_LEN;
    case HB_T_QUEUE_STATUS: return len == HB_QUEUE_STATUS_LEN;
    case HB_T_CHIP_STATUS: return len == HB_CHIP_STATUS_LEN;
    case HB_T_ACK: return len == HB_ACK_LEN;
    case HB_T_NAK: return len == HB_NAK_LEN;
    case HB_T_EVENT_STOPPED: return len == HB_EVENT_STOPPED_LEN;
    case HB_T_I2C_RESULT:
        return len >= HB_I2C_RESULT_MIN_LEN && len <= HB_I2C_RESULT_MIN_LEN + HB_I2C_MAX_DATA;
    case HB_T_REPLACED: return len == HB_REPLACED_LEN;
    case HB_T_ACCEL_SAMPLES:
        return len >= HB_ACCEL_MIN_LEN && len <= HB_ACCEL_MAX_LEN &&
               (len - HB_ACCEL_OFF_DATA) % HB_ACCEL_SAMPLE_LEN == 0u;
    default: return false;
    }
}

static inline bool hb_host_type_known(uint8_t type)
{
    switch (type) {
    case HB_T_HELLO: case HB_T_SYNC: case HB_T_KEEPALIVE: case HB_T_QUEUE_STATUS_REQ:
    case HB_T_CHIP_STATUS_REQ: case HB_T_STOP_ALL: case HB_T_CLEAR_FAULT:
    case HB_T_ENTER_BOOTLOADER: case HB_T_I2C_READ: case HB_T_I2C_WRITE: case HB_T_REPLACE_FROM: case HB_T_ACCEL_STREAM:
    case HB_T_CMD_RTP: case HB_T_CMD_REG_WRITE: case HB_T_CMD_ROM_SEQ: case HB_T_CMD_STOP:
        return true;
    default:
        return false;
    }
}

/* The characters a serial number may hold: [0-9A-Za-z._-]. */
static inline bool hb_serial_char_ok(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '.' ||
           c == '_' || c == '-';
}

#endif /* HAPBRIDGE_PROTOCOL_H */
