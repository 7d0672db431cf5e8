#include "hapbridge/queue.h"

_Static_assert(HB_QUEUE_CAPACITY >= 1u && HB_QUEUE_CAPACITY <= 128u,
               "indices and counts are uint8_t, and head + count stays below 256");

/* i < 2 * HB_QUEUE_CAPACITY: one compare instead of a mask, so the capacity
 * need not be a power of two (the AVR port takes what RAM allows). */
#define WRAP(i) ((uint8_t)((i) >= HB_QUEUE_CAPACITY ? (i) - HB_QUEUE_CAPACITY : (i)))

void hb_queue_init(hb_queue *q)
{
    q->head = 0;
    q->count = 0;
}

bool hb_queue_push(hb_queue *q, const hb_cmd *cmd)
{
    if (q->count >= HB_QUEUE_CAPACITY) {
        return false;
    }
    q->slots[WRAP(q->head + q->count)] = *cmd;
    q->count++;
    return true;
}

const hb_cmd *hb_queue_peek(const hb_queue *q)
{
    return q->count ? &q->slots[q->head] : 0;
}

const hb_cmd *hb_queue_peek_last(const hb_queue *q)
{
    return q->count ? &q->slots[WRAP(q->head + q->count - 1u)] : 0;
}

void hb_queue_drop_head(hb_queue *q)
{
    if (q->count) {
        q->head = WRAP(q->head + 1u);
        q->count--;
    }
}

uint8_t hb_queue_flush(hb_queue *q)
{
    uint8_t n = q->count;
    q->head = 0;
    q->count = 0;
    return n;
}

uint8_t hb_queue_drop_from(hb_queue *q, uint32_t at_us)
{
    uint8_t n = 0;
    const hb_cmd *last;
    while ((last = hb_queue_peek_last(q)) && (int32_t)(last->at_us - at_us) >= 0) {
        q->count--;
        n++;
    }
    return n;
}
