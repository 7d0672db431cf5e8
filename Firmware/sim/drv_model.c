#include "drv_model.h"

#include <string.h>

#include <avr_twi.h>
#include <sim_io.h>

#include "hapbridge/drv2605_regs.h"
#include "twi_bus.h"

void drv_model_reset_registers(drv_model *m)
{
    memset(m->regs, 0, sizeof m->regs);
    m->regs[DRV2605_REG_STATUS] = (uint8_t)(DRV2605_DEVICE_ID_DRV2605L << DRV2605_STATUS_DEVICE_ID_SHIFT);
    m->regs[DRV2605_REG_MODE] = DRV2605_MODE_STANDBY;
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
            log_current(m);
        }
        m->addressed = false;
        return;
    }
    if (msg.u.twi.msg & TWI_COND_START) {
        bool ours = (addr >> 1) == DRV2605_I2C_ADDR;
        bool repeated = m->addressed;
        m->addressed = ours;
        if (!ours) {
            return; /* no ACK: the master sees a NACK */
        }
        m->reading = addr & 1u;
        if (!repeated) {
            memset(&m->cur, 0, sizeof m->cur);
            m->cur.start_cycle = twi_bus_start_cycle(); /* SDA fell before the address */
            m->have_reg = false;
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
            if (m->ptr < sizeof m->regs && m->ptr != DRV2605_REG_STATUS) {
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
        uint8_t v = m->ptr < sizeof m->regs ? m->regs[m->ptr] : 0;
        m->ptr++;
        if (m->cur.n < DRV_TXN_MAX_BYTES) {
            m->cur.bytes[m->cur.n++] = v;
        }
        avr_raise_irq(m->twi_in, avr_twi_irq_msg(TWI_COND_READ, addr, v));
    }
}

void drv_model_attach(drv_model *m, avr_t *avr)
{
    memset(m, 0, sizeof *m);
    m->avr = avr;
    drv_model_reset_registers(m);
    m->twi_in = avr_io_getirq(avr, AVR_IOCTL_TWI_GETIRQ(0), TWI_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_TWI_GETIRQ(0), TWI_IRQ_OUTPUT), on_output, m);
}
