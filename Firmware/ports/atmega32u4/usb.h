/*
 * Minimal polled USB device on the ATmega32U4 controller: endpoint 0 for the
 * standard requests, one bulk IN and one bulk OUT endpoint for frames.
 * Polled from the main loop, so the Timer1 interrupt that executes stamped
 * commands is never delayed by USB interrupt handlers.
 */
#ifndef USB_H
#define USB_H

#include <stdbool.h>
#include <stdint.h>

typedef void (*usb_rx_handler)(const uint8_t *bytes, uint8_t len);

void usb_init(usb_rx_handler on_rx);
void usb_poll(void);
bool usb_configured(void);
/* Queues bytes for the bulk IN endpoint; false (nothing queued) when the
 * whole run does not fit. */
bool usb_send(const uint8_t *bytes, uint8_t len);
/* Room in the bulk IN ring for bytes nobody asked for, beyond what bulk OUT's
 * flow control keeps for a packet's refusals (0 when not configured). */
uint8_t usb_send_room(void);
/* Pushes queued bulk IN bytes out and waits until the host has taken the
 * last packet (bounded), without reading bulk OUT. */
void usb_flush(void);
void usb_detach(void);

#endif
