/* The host end of the hapbridge protocol over the simulated USB link:
 * frames out through bulk OUT, board frames collected from bulk IN. */
#ifndef LINK_H
#define LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "hapbridge/frame.h"
#include "sim_board.h"

#define LINK_RX_MAX 256

typedef struct link_frame {
    uint8_t seq, type, len;
    uint8_t payload[HB_FRAME_MAX_PAYLOAD];
    double at_us; /* simulated time it reached the host */
} link_frame;

typedef struct link {
    sim_board *board;
    uint8_t tx_seq;
    hb_decoder dec;
    link_frame rx[LINK_RX_MAX];
    uint32_t rx_count;      /* frames received and not yet taken */
    uint32_t rx_total;
    uint8_t next_board_seq;
    uint32_t board_seq_gaps;
    uint32_t corrupt_from_board;
    /* While a send waits on the board's flow control, bulk IN is read at most this
     * often (0: at every retry); a real host controller reads it about once a 1 ms
     * frame. */
    uint32_t read_every_us;
    double last_read_us;
} link;

void link_init(link *l, sim_board *b);
/* Encodes with the next sequence number and sends. */
bool link_send(link *l, uint8_t type, const uint8_t *payload, uint8_t len);
/* Sends raw bytes (for malformed frames). */
bool link_send_raw(link *l, const uint8_t *bytes, uint8_t len);
/* After a CRC or LENGTH NAK: HB_FRAME_MAX_LEN zero bytes complete any false
 * frame the decoder may have started on a 0xA5 inside the bad bytes, and
 * are then skipped while it hunts for the next magic (PROTOCOL.md). */
bool link_resync(link *l);
/* Runs the board for us microseconds, collecting board frames every 10 us. */
void link_pump(link *l, uint32_t us);
/* The same with a slower host: bulk IN read only every step_us. */
void link_pump_every(link *l, uint32_t us, uint32_t step_us);
/* Pumps until a frame of this type arrives (or timeout); removes and returns it. */
bool link_wait(link *l, uint8_t type, uint32_t timeout_us, link_frame *out);
/* Removes a frame of this type if one was already received. */
bool link_take(link *l, uint8_t type, link_frame *out);

#endif
