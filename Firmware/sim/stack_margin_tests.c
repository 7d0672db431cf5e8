/* The RAM budget: the queue takes what the stack leaves, so the deepest
 * stack of the suite so far must leave a margin above .bss. */
#include <stdio.h>
#include <string.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"
#include "suite.h"

/* The queue takes what RAM the stack leaves: what the deepest stack of the
 * whole suite so far left unused above .bss must stay this large. */
#define STACK_MARGIN_MIN 256u

static bool stack_keeps_its_margin(void)
{
    uint32_t data_bytes, free = sim_board_stack_free(&board, &data_bytes);
    uint32_t ram = board.avr->ramend - board.avr->ioend;
    printf("# RAM: %u bytes data+bss (queue of %u), stack at most %u bytes deep, %u bytes never touched\n",
           data_bytes, EXPECTED_QUEUE_CAPACITY, ram - data_bytes - free, free);
    CHECK(free >= STACK_MARGIN_MIN, "only %u bytes between .bss and the deepest stack", free);
    return true;
}

void run_stack_margin_tests(void)
{
    run_test("the stack keeps its margin above the data (queue sized by it)", stack_keeps_its_margin);
}
