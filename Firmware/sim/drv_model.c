#include "drv_model.h"

#include <string.h>

#include <avr_twi.h>
#include <sim_io.h>

#include "hapbridge/drv2605_regs.h"
#include "twi_bus.h"

/* The DRV2605L's power-up values (TI SLOS854, 7.6 register map); the Swift
 * model keeps the same table (RegisterAddress.resetValue). */
static const uint8_t reset_values[DRV_REGISTERS] = {
    [DRV2605_REG_STATUS] = (uint8_t)(DRV2605_DEVICE_ID_DRV2605L << DRV2605_STATUS_DEVICE_ID_SHIFT),
    [DRV2605_REG_MODE] = DRV2605_MODE_STANDBY,
    [DRV2605_REG_LIBRARY_SEL] = 0x01,
    [DRV2605_REG_WAV_FRM_SEQ1] = 0x01,
    [DRV2605_REG_A2V_CTRL] = 0x05,
    [DRV2605_REG_A2V_CTRL + 1] = 0x19, /* A2V min input */
    [DRV2605_REG_A2V_CTRL + 2] = 0xFF, /* max input */
    [DRV2605_REG_A2V_CTRL + 3] = 0x19, /* min output */
    [DRV2605_REG_A2V_CTRL + 4] = 0xFF, /* max output */
    [DRV2605_REG_RATED_VOLTAGE] = 0x3E,
    [DRV2605_REG_OD_CLAMP] = 0x8C,
    [DRV2605_REG_A_CAL_COMP] = 0x0C,
    [DRV2605_REG_A_CAL_BEMF] = 0x6C,
    [DRV2605_REG_FEEDBACK_CONTROL] = 0x36,
    [DRV2605_REG_CONTROL1] = 0x93,
    [DRV2605_REG_CONTROL2] = 0xF5,
    [DRV2605_REG_CONTROL3] = 0xA0,
    [DRV2605_REG_CONTROL4] = 0x20,
    [DRV2605_REG_CONTROL5] = 0x80,
    [DRV2605_REG_OL_LRA_PERIOD] = 0x33,
};

void drv_model_reset_registers(drv_model *m) { memcpy(m->regs, reset_values, sizeof m->regs); }

void drv_model_use_host(drv_model *m, const drv_host *host) { m->host = host; }

/* The write in progress reaches the host's chip (at its STOP, or a repeated
 * START that turns it into a read). */
static void flush_to_host(drv_model *m, avr_cycle_count_t at)
{
    if (m->host && m->n_written) {
        m->host->wrote(m->host->ctx, at, m->cur.reg, m->written, m->n_written);
    }
    m->n_written = 0;
}

static void log_current(drv_model *m)
{
    if (m->count < DRV_LOG_MAX) {
        m->log[m->count++] = m->cur;
    } else {
        m->log_full = true;
    }
}

static void ack(drv_model *m, uint8_t addr)
{
    avr_raise_irq(m->twi_in, avr_twi_irq_msg(TWI_COND_ACK, addr, 1));
}

static void on_output(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    drv_model *m = param;
    avr_twi_msg_irq_t msg = {.u.v = value};
    uint8_t addr = msg.u.twi.addr;

    if (msg.u.twi.msg & TWI_COND_STOP) {
        if (m->addressed) {
            m->cur.stop_cycle = twi_bus_stop_cycle(); /* when SDA rises, not when it was asked */
            m->cur.held_cycles = twi_bus_held_cycles();
            flush_to_host(m, m->cur.stop_cycle);
            log_current(m);
        }
        m->addressed = false;
        return;
    }
    if (msg.u.twi.msg & TWI_COND_START) {
        bool ours = (addr >> 1) == m->addr;
        bool repeated = m->addressed;
        m->addressed = ours;
        if (!ours) {
            return; /* no ACK: the master sees a NACK */
        }
        m->reading = addr & 1u;
        m->n_read = 0;
        if (repeated) {
            flush_to_host(m, m->avr->cycle);
        } else {
            memset(&m->cur, 0, sizeof m->cur);
            m->cur.start_cycle = twi_bus_start_cycle(); /* SDA fell before the address */
            m->have_reg = false;
            m->n_written = 0;
        }
        m->cur.is_read = m->reading;
        ack(m, addr);
        return;
    }
    if (!m->addressed) {
        return;
    }
    if (msg.u.twi.msg & TWI_COND_WRITE) {
        uint8_t v = msg.u.twi.data;
        if (!m->have_reg) {
            m->have_reg = true;
            m->ptr = v;
            m->cur.reg = v;
        } else {
            if (m->host) {
                if (m->n_written < sizeof m->written) {
                    m->written[m->n_written++] = v; /* for the host at the STOP */
                }
            } else if (m->ptr < sizeof m->regs && m->ptr != DRV2605_REG_STATUS) {
                /* DEV_RESET completes instantly in this model */
                m->regs[m->ptr] = (m->ptr == DRV2605_REG_MODE) ? (uint8_t)(v & ~DRV2605_MODE_DEV_RESET) : v;
            }
            m->ptr++;
            if (m->cur.n < DRV_TXN_MAX_BYTES) {
                m->cur.bytes[m->cur.n++] = v;
            }
        }
        ack(m, addr);
        return;
    }
    if (msg.u.twi.msg & TWI_COND_READ) {
        uint8_t v = 0;
        if (m->host) {
            if (!m->host->read(m->host->ctx, m->avr->cycle, m->ptr, m->cur.reg, m->n_read, &v)) {
                v = 0xFF; /* no answer (the harness said why): an undriven bus reads high */
            }
        } else if (m->ptr < sizeof m->regs) {
            v = m->regs[m->ptr];
        }
        m->ptr++;
        m->n_read++;
        if (m->cur.n < DRV_TXN_MAX_BYTES) {
            m->cur.bytes[m->cur.n++] = v;
        }
        avr_raise_irq(m->twi_in, avr_twi_irq_msg(TWI_COND_READ, addr, v));
    }
}

void drv_model_attach(drv_model *m, avr_t *avr) { drv_model_attach_at(m, avr, DRV2605_I2C_ADDR, NULL); }

void drv_model_attach_at(drv_model *m, avr_t *avr, uint8_t addr, const drv_host *host)
{
    memset(m, 0, sizeof *m);
    m->avr = avr;
    m->addr = addr;
    m->host = host;
    drv_model_reset_registers(m);
    m->twi_in = avr_io_getirq(avr, AVR_IOCTL_TWI_GETIRQ(0), TWI_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_TWI_GETIRQ(0), TWI_IRQ_OUTPUT), on_output, m);
}

const drv_txn *drv_model_next_logged(const drv_model *a, const drv_model *b, uint32_t *ia, uint32_t *ib, uint8_t *addr)
{
    const drv_txn *x = *ia < a->count ? &a->log[*ia] : NULL;
    const drv_txn *y = b && *ib < b->count ? &b->log[*ib] : NULL;
    if (x && (!y || x->start_cycle <= y->start_cycle)) {
        ++*ia;
        *addr = a->addr;
        return x;
    }
    if (y) {
        ++*ib;
        *addr = b->addr;
    }
    return y;
}

void drv_model_clear_log(drv_model *m)
{
    m->count = 0;
    m->log_full = false;
}
