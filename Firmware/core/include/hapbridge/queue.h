/*
 * Timed command queue: a ring of commands in non-decreasing stamp order
 * (the host streams in order; out-of-order stamps are refused at the door,
 * which keeps "next due" O(1) for the timer callback).  No locking here: the
 * core brackets every call with its lock hooks.
 */
#ifndef HAPBRIDGE_QUEUE_H
#define HAPBRIDGE_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#ifndef HB_QUEUE_CAPACITY
/* The ATmega32U4 board's: as many as its RAM allows with the stack margin the
 * simavr suite checks (14 bytes each; Firmware/README.md). The host's twin of the
 * board (SimulatedBoard) gets the same, so it streams as deep as the real one.
 * Ports may set their own, 1..128. */
#define HB_QUEUE_CAPACITY 96u
#endif

#define HB_CMD_DATA_MAX 8u

typedef enum hb_cmd_kind {
    HB_CMD_RTP = 1,
    HB_CMD_REG_WRITE = 2,
    HB_CMD_ROM_SEQ = 3,
    HB_CMD_STOP = 4,
} hb_cmd_kind;

typedef struct hb_cmd {
    uint32_t at_us;
    uint8_t kind; /* hb_cmd_kind */
    uint8_t len;  /* bytes used in data */
    uint8_t data[HB_CMD_DATA_MAX];
} hb_cmd;

typedef struct hb_queue {
    hb_cmd slots[HB_QUEUE_CAPACITY];
    uint8_t head; /* next to execute */
    uint8_t count;
} hb_queue;

void hb_queue_init(hb_queue *q);
static inline uint8_t hb_queue_count(const hb_queue *q) { return q->count; }
static inline uint8_t hb_queue_free(const hb_queue *q)
{
    return (uint8_t)(HB_QUEUE_CAPACITY - q->count);
}
/* false when full */
bool hb_queue_push(hb_queue *q, const hb_cmd *cmd);
/* NULL when empty */
const hb_cmd *hb_queue_peek(const hb_queue *q);
const hb_cmd *hb_queue_peek_last(const hb_queue *q);
void hb_queue_drop_head(hb_queue *q);
/* Returns how many were discarded. */
uint8_t hb_queue_flush(hb_queue *q);
/* Discards the commands stamped at or after at_us (wrap-safe): a tail of
 * the queue, which is in stamp order.  Returns how many. */
uint8_t hb_queue_drop_from(hb_queue *q, uint32_t at_us);

#endif /* HAPBRIDGE_QUEUE_H */
