/*
 * The C side of the USB emulations: what Swift cannot reach in umockdev's
 * GObject API and the kernel's usbdevfs header.  GObject signals are connected
 * with a macro, the usbdevfs request numbers are function-like macros, and the
 * URB is a struct with a flexible array member; this file turns them into
 * plain functions and an enum.  It holds no emulation logic: the ioctl handler
 * (Sources/USBEmulation, USBDevFSHandler) decides every answer.
 */
#ifndef HB_USBDEVFS_PLUMBING_H
#define HB_USBDEVFS_PLUMBING_H

#include <stdbool.h>
#include <stdint.h>

#include <umockdev.h>

/* The usbdevfs requests a libusb (or any usbfs) client makes, decoded from the
 * ioctl request number.  Anything else is UNSUPPORTED (ENOTTY, as the kernel
 * answers an unknown request). */
typedef enum hb_usbdevfs_op {
    HB_USBDEVFS_UNSUPPORTED = 0,
    HB_USBDEVFS_GET_CAPABILITIES,
    HB_USBDEVFS_CLAIM_INTERFACE,
    HB_USBDEVFS_RELEASE_INTERFACE,
    HB_USBDEVFS_DISCONNECT_CLAIM,
    HB_USBDEVFS_SET_INTERFACE,
    HB_USBDEVFS_SET_CONFIGURATION,
    HB_USBDEVFS_CLEAR_HALT,
    HB_USBDEVFS_RESET_EP,
    HB_USBDEVFS_RESET,
    HB_USBDEVFS_GET_DRIVER,
    HB_USBDEVFS_DRIVER_IOCTL, /* USBDEVFS_IOCTL: connect / disconnect a kernel driver */
    HB_USBDEVFS_SUBMIT_URB,
    HB_USBDEVFS_DISCARD_URB,
    HB_USBDEVFS_REAP_URB,
    HB_USBDEVFS_REAP_URB_NDELAY,
    HB_USBDEVFS_CONTROL, /* synchronous control transfer */
    HB_USBDEVFS_BULK,    /* synchronous bulk transfer */
} hb_usbdevfs_op;

hb_usbdevfs_op hb_usbdevfs_op_of(unsigned long request);

/* usbdevfs constants the handler needs (<linux/usbdevice_fs.h>). */
uint32_t hb_usbdevfs_capabilities_no_packet_size_limit(void);
uint32_t hb_usbdevfs_capabilities_reap_after_disconnect(void);
uint8_t hb_usbdevfs_urb_type_control(void);
uint8_t hb_usbdevfs_urb_type_bulk(void);
uint8_t hb_usbdevfs_urb_type_interrupt(void);
uint32_t hb_usbdevfs_urb_flag_short_not_ok(void);

/* ---- the live ioctl handler ------------------------------------------ */

/* Called on umockdev's worker thread for every ioctl on a node the handler is
 * attached to; returns true when it took the call (it must then complete it,
 * now or later, with umockdev_ioctl_client_complete). */
typedef bool (*hb_ioctl_fn)(void *context, UMockdevIoctlClient *client);
/* A client (one open file of the node, with all its duplicated descriptors)
 * connected, or went away: its last descriptor was closed, or its process died,
 * even inside an ioctl (see "a client's end" in the .c file).  Reported once
 * each, on umockdev's worker thread. */
typedef void (*hb_client_fn)(void *context, UMockdevIoctlClient *client, bool connected);
/* The handler object is being finalized: release the context. */
typedef void (*hb_release_fn)(void *context);

/* A UMockdevIoctlBase whose "handle-ioctl" signal calls on_ioctl, and which
 * reports clients connecting and disconnecting.  Owned by the caller (unref). */
UMockdevIoctlBase *hb_ioctl_handler_new(hb_ioctl_fn on_ioctl, hb_client_fn on_client, void *context,
                                        hb_release_fn release);

/* How many clients could not be watched for their end (umockdev's IoctlClient
 * laid out otherwise than this file expects): they are never reported gone. */
int hb_client_watch_failures(void);

/* Runs fn(context) once on `main_context` (umockdev's worker thread for a
 * handler's clients), from any thread: how completions from a device's own
 * thread reach the handler. */
void hb_main_context_invoke(GMainContext *main_context, void (*fn)(void *), void *context,
                            void (*release)(void *));
/* Runs fn(context) once on `main_context` after `microseconds` (rounded up to
 * whole milliseconds: GLib's timeout sources count milliseconds). */
void hb_main_context_after(GMainContext *main_context, uint32_t microseconds, void (*fn)(void *),
                           void *context, void (*release)(void *));

/* ---- the ioctl's argument ------------------------------------------- */

/* The raw argument value (a pointer in the client, or a number). */
uint64_t hb_ioctl_raw_argument(UMockdevIoctlClient *client);
/* The unsigned int the argument points at (SETCONFIGURATION, CLAIMINTERFACE, ...). */
bool hb_ioctl_read_u32(UMockdevIoctlClient *client, uint32_t *out, GError **error);
/* Stores an unsigned int where the argument points (GET_CAPABILITIES). */
bool hb_ioctl_write_u32(UMockdevIoctlClient *client, uint32_t value, GError **error);
/* Two unsigned ints (SETINTERFACE: interface, alternate setting). */
bool hb_ioctl_read_u32_pair(UMockdevIoctlClient *client, uint32_t *first, uint32_t *second, GError **error);
/* DISCONNECT_CLAIM's argument: the interface, the flags, and the driver name they
 * compare with (copied NUL-terminated into `driver`, `HB_DRIVER_NAME_SIZE` bytes). */
#define HB_DRIVER_NAME_SIZE 256
bool hb_ioctl_read_disconnect_claim(UMockdevIoctlClient *client, uint32_t *interface, uint32_t *flags, char *driver,
                                    GError **error);
uint32_t hb_usbdevfs_disconnect_claim_if_driver(void);
uint32_t hb_usbdevfs_disconnect_claim_except_driver(void);
/* GETDRIVER: the interface asked about; then the name of the driver bound to it stored
 * into the argument. */
bool hb_ioctl_read_getdriver(UMockdevIoctlClient *client, uint32_t *interface, GError **error);
bool hb_ioctl_write_getdriver(UMockdevIoctlClient *client, const char *driver, GError **error);

/* ---- URBs ------------------------------------------------------------ */

typedef struct hb_urb_fields {
    uint8_t type;
    uint8_t endpoint;
    uint32_t flags;
    int32_t buffer_length;
    uint64_t client_address; /* the URB's address in the client: its identity */
} hb_urb_fields;

/* Resolves the URB a SUBMITURB points at, and its buffer (loaded from the
 * client).  Returns the URB's data with a reference the caller owns (NULL on
 * error); *buffer gets the buffer's data, also owned, or NULL when empty. */
UMockdevIoctlData *hb_urb_resolve(UMockdevIoctlClient *client, hb_urb_fields *fields, UMockdevIoctlData **buffer,
                                  GError **error);
/* Writes status and actual_length into a resolved URB (synced back to the
 * client when the reap that hands it back completes). */
void hb_urb_set_result(UMockdevIoctlData *urb, int32_t status, int32_t actual_length);
/* Points a REAPURB / REAPURBNDELAY argument (a `void **` in the client) at `urb`. */
bool hb_urb_hand_back(UMockdevIoctlClient *reap, UMockdevIoctlData *urb, GError **error);

/* ---- synchronous transfers (USBDEVFS_CONTROL, USBDEVFS_BULK) --------- */

typedef struct hb_sync_transfer {
    uint8_t setup[8];        /* CONTROL: the setup packet, as on the wire */
    uint32_t endpoint;       /* BULK: the endpoint address */
    uint32_t length;         /* CONTROL: wLength; BULK: len */
    uint32_t timeout_ms;
} hb_sync_transfer;

/* Resolves the argument and its data buffer; returns the argument's data
 * (owned) and *buffer (owned, NULL when length is 0). */
UMockdevIoctlData *hb_sync_transfer_resolve(UMockdevIoctlClient *client, hb_usbdevfs_op op, hb_sync_transfer *out,
                                            UMockdevIoctlData **buffer, GError **error);

#endif
