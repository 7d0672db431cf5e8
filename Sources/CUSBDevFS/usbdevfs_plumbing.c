#include "usbdevfs_plumbing.h"

#include <stddef.h>
#include <string.h>

#include <sys/ioctl.h>

#include <linux/usbdevice_fs.h>

hb_usbdevfs_op hb_usbdevfs_op_of(unsigned long request)
{
    switch (request) {
    case USBDEVFS_GET_CAPABILITIES: return HB_USBDEVFS_GET_CAPABILITIES;
    case USBDEVFS_CLAIMINTERFACE: return HB_USBDEVFS_CLAIM_INTERFACE;
    case USBDEVFS_RELEASEINTERFACE: return HB_USBDEVFS_RELEASE_INTERFACE;
    case USBDEVFS_DISCONNECT_CLAIM: return HB_USBDEVFS_DISCONNECT_CLAIM;
    case USBDEVFS_SETINTERFACE: return HB_USBDEVFS_SET_INTERFACE;
    case USBDEVFS_SETCONFIGURATION: return HB_USBDEVFS_SET_CONFIGURATION;
    case USBDEVFS_CLEAR_HALT: return HB_USBDEVFS_CLEAR_HALT;
    case USBDEVFS_RESETEP: return HB_USBDEVFS_RESET_EP;
    case USBDEVFS_RESET: return HB_USBDEVFS_RESET;
    case USBDEVFS_GETDRIVER: return HB_USBDEVFS_GET_DRIVER;
    case USBDEVFS_IOCTL: return HB_USBDEVFS_DRIVER_IOCTL;
    case USBDEVFS_SUBMITURB: return HB_USBDEVFS_SUBMIT_URB;
    case USBDEVFS_DISCARDURB: return HB_USBDEVFS_DISCARD_URB;
    case USBDEVFS_REAPURB: return HB_USBDEVFS_REAP_URB;
    case USBDEVFS_REAPURBNDELAY: return HB_USBDEVFS_REAP_URB_NDELAY;
    case USBDEVFS_CONTROL: return HB_USBDEVFS_CONTROL;
    case USBDEVFS_BULK: return HB_USBDEVFS_BULK;
    default: return HB_USBDEVFS_UNSUPPORTED;
    }
}

uint32_t hb_usbdevfs_capabilities_no_packet_size_limit(void) { return USBDEVFS_CAP_NO_PACKET_SIZE_LIM; }
uint32_t hb_usbdevfs_capabilities_reap_after_disconnect(void) { return USBDEVFS_CAP_REAP_AFTER_DISCONNECT; }
uint8_t hb_usbdevfs_urb_type_control(void) { return USBDEVFS_URB_TYPE_CONTROL; }
uint8_t hb_usbdevfs_urb_type_bulk(void) { return USBDEVFS_URB_TYPE_BULK; }
uint8_t hb_usbdevfs_urb_type_interrupt(void) { return USBDEVFS_URB_TYPE_INTERRUPT; }
uint32_t hb_usbdevfs_urb_flag_short_not_ok(void) { return USBDEVFS_URB_SHORT_NOT_OK; }

/* ---- handler ----------------------------------------------------------- */

typedef struct hb_handler_closure {
    hb_ioctl_fn on_ioctl;
    hb_client_fn on_client;
    void *context;
    hb_release_fn release;
} hb_handler_closure;

static gboolean on_handle_ioctl(UMockdevIoctlBase *handler, UMockdevIoctlClient *client, gpointer data)
{
    (void)handler;
    hb_handler_closure *c = data;
    return c->on_ioctl(c->context, client) ? TRUE : FALSE;
}

/* ---- a client's end ------------------------------------------------------
 *
 * umockdev reports a closed client through the stream's "notify::closed", which
 * GLib never emits (g_io_stream_close sets the flag without a notify), and it
 * only notices a closed connection at all while it waits for the client's next
 * request: a client killed inside an ioctl gets its answer written to a dead
 * socket, the write fails, umockdev drops the error and never reads that socket
 * again.  Its claims, URBs and parked reaps would stay forever.  The kernel
 * releases all of that when the file's last descriptor closes (usbdev_release),
 * so the handler watches each client's socket itself: a hang-up (the peer's last
 * descriptor closed) closes umockdev's end and reports the client gone, once.
 *
 * The socket is not in umockdev's API.  IoctlClient is a Vala class whose
 * private part starts with `IoctlBase handler; IOStream stream;` (0.16 to
 * 0.17.x); the layout is trusted only when the first field is the handler the
 * client came to, and the second a GSocketConnection.  Otherwise there is no
 * watch (a client that dies keeps what it held until the board is replugged),
 * and hb_client_watch_failures counts it. */

typedef struct hb_client_private_head {
    UMockdevIoctlBase *handler;
    GIOStream *stream;
} hb_client_private_head;

static GSocketConnection *client_connection(UMockdevIoctlBase *handler, UMockdevIoctlClient *client)
{
    const hb_client_private_head *head = (const hb_client_private_head *)client->priv;
    if (head == NULL || head->handler != handler || head->stream == NULL) {
        return NULL;
    }
    return G_IS_SOCKET_CONNECTION(head->stream) ? G_SOCKET_CONNECTION(head->stream) : NULL;
}

typedef struct hb_client_watch {
    hb_handler_closure *closure;
    UMockdevIoctlClient *client;   /* a reference: the address names one client until it is gone */
    GSocketConnection *connection; /* a reference */
    bool reported;
} hb_client_watch;

static gboolean on_client_socket(GSocket *socket, GIOCondition condition, gpointer data)
{
    (void)condition;
    hb_client_watch *w = data;
    /* Hang-up, error, or umockdev closed it after reading EOF: either way the
     * client is gone.  Closing a closed stream does nothing. */
    if (!g_socket_is_closed(socket)) {
        g_io_stream_close(G_IO_STREAM(w->connection), NULL, NULL);
    }
    if (!w->reported) {
        w->reported = true;
        w->closure->on_client(w->closure->context, w->client, false);
    }
    return G_SOURCE_REMOVE;
}

static void free_client_watch(gpointer data)
{
    hb_client_watch *w = data;
    g_object_unref(w->connection);
    g_object_unref(w->client);
    g_free(w);
}

static int watch_failures = 0;

int hb_client_watch_failures(void) { return g_atomic_int_get(&watch_failures); }

static void on_client_connected(UMockdevIoctlBase *handler, UMockdevIoctlClient *client, gpointer data)
{
    hb_handler_closure *c = data;
    /* The closure outlives every client: it is freed with the handler, which
     * each client (and so each watch, holding its client) keeps alive. */
    GSocketConnection *connection = client_connection(handler, client);
    if (connection == NULL) {
        g_atomic_int_inc(&watch_failures);
        c->on_client(c->context, client, true);
        return;
    }
    c->on_client(c->context, client, true);
    hb_client_watch *w = g_new0(hb_client_watch, 1);
    w->closure = c;
    w->client = g_object_ref(client);
    w->connection = g_object_ref(connection);
    /* Runs on umockdev's worker thread, whose context is the thread default
     * here: the same one that serves this client's ioctls. */
    GSource *source = g_socket_create_source(g_socket_connection_get_socket(connection), G_IO_HUP | G_IO_ERR, NULL);
    g_source_set_callback(source, G_SOURCE_FUNC(on_client_socket), w, free_client_watch);
    g_source_attach(source, g_main_context_get_thread_default());
    g_source_unref(source);
}

static void release_closure(gpointer data, GClosure *closure)
{
    (void)closure;
    hb_handler_closure *c = data;
    if (c->release) {
        c->release(c->context);
    }
    g_free(c);
}

UMockdevIoctlBase *hb_ioctl_handler_new(hb_ioctl_fn on_ioctl, hb_client_fn on_client, void *context,
                                        hb_release_fn release)
{
    UMockdevIoctlBase *handler = umockdev_ioctl_base_new();
    hb_handler_closure *c = g_new0(hb_handler_closure, 1);
    c->on_ioctl = on_ioctl;
    c->on_client = on_client;
    c->context = context;
    c->release = release;
    g_signal_connect(handler, "client-connected", G_CALLBACK(on_client_connected), c);
    /* The last connection owns the closure's release: it runs when the
     * handler is finalized and its signal handlers are destroyed. */
    g_signal_connect_data(handler, "handle-ioctl", G_CALLBACK(on_handle_ioctl), c, release_closure, 0);
    return handler;
}

typedef struct hb_call {
    void (*fn)(void *);
    void *context;
    void (*release)(void *);
} hb_call;

static gboolean run_call(gpointer data)
{
    hb_call *call = data;
    call->fn(call->context);
    return G_SOURCE_REMOVE;
}

static void free_call(gpointer data)
{
    hb_call *call = data;
    if (call->release) {
        call->release(call->context);
    }
    g_free(call);
}

static hb_call *new_call(void (*fn)(void *), void *context, void (*release)(void *))
{
    hb_call *call = g_new0(hb_call, 1);
    call->fn = fn;
    call->context = context;
    call->release = release;
    return call;
}

void hb_main_context_invoke(GMainContext *main_context, void (*fn)(void *), void *context,
                            void (*release)(void *))
{
    g_main_context_invoke_full(main_context, G_PRIORITY_DEFAULT, run_call, new_call(fn, context, release), free_call);
}

void hb_main_context_after(GMainContext *main_context, uint32_t microseconds, void (*fn)(void *),
                           void *context, void (*release)(void *))
{
    GSource *source = g_timeout_source_new((microseconds + 999u) / 1000u);
    g_source_set_callback(source, run_call, new_call(fn, context, release), free_call);
    g_source_attach(source, main_context);
    g_source_unref(source);
}

/* ---- arguments ------------------------------------------------------------ */

/* The error domain of what this file reports itself (umockdev's own errors keep theirs). */
#define HB_ERROR g_quark_from_static_string("hapbridge-usbdevfs")

uint64_t hb_ioctl_raw_argument(UMockdevIoctlClient *client)
{
    UMockdevIoctlData *arg = umockdev_ioctl_client_get_arg(client);
    uint64_t value = 0;
    if (arg && arg->data && (size_t)arg->data_len >= sizeof(unsigned long)) {
        unsigned long raw;
        memcpy(&raw, arg->data, sizeof raw);
        value = raw;
    }
    return value;
}

static UMockdevIoctlData *resolve_argument(UMockdevIoctlClient *client, size_t len, GError **error)
{
    UMockdevIoctlData *arg = umockdev_ioctl_client_get_arg(client);
    UMockdevIoctlData *data = umockdev_ioctl_data_resolve(arg, 0, len, error);
    if (!data && error && !*error) {
        g_set_error(error, HB_ERROR, 0, "null ioctl argument");
    }
    return data;
}

bool hb_ioctl_read_u32(UMockdevIoctlClient *client, uint32_t *out, GError **error)
{
    UMockdevIoctlData *data = resolve_argument(client, sizeof(uint32_t), error);
    if (!data) {
        return false;
    }
    memcpy(out, data->data, sizeof *out);
    g_object_unref(data);
    return true;
}

bool hb_ioctl_write_u32(UMockdevIoctlClient *client, uint32_t value, GError **error)
{
    UMockdevIoctlData *data = resolve_argument(client, sizeof(uint32_t), error);
    if (!data) {
        return false;
    }
    memcpy(data->data, &value, sizeof value);
    g_object_unref(data);
    return true;
}

bool hb_ioctl_read_u32_pair(UMockdevIoctlClient *client, uint32_t *first, uint32_t *second, GError **error)
{
    UMockdevIoctlData *data = resolve_argument(client, sizeof(struct usbdevfs_setinterface), error);
    if (!data) {
        return false;
    }
    struct usbdevfs_setinterface s;
    memcpy(&s, data->data, sizeof s);
    *first = s.interface;
    *second = s.altsetting;
    g_object_unref(data);
    return true;
}

bool hb_ioctl_read_disconnect_claim(UMockdevIoctlClient *client, uint32_t *interface, uint32_t *flags, char *driver,
                                    GError **error)
{
    UMockdevIoctlData *data = resolve_argument(client, sizeof(struct usbdevfs_disconnect_claim), error);
    if (!data) {
        return false;
    }
    struct usbdevfs_disconnect_claim dc;
    memcpy(&dc, data->data, sizeof dc);
    *interface = dc.interface;
    *flags = dc.flags;
    G_STATIC_ASSERT(sizeof dc.driver == HB_DRIVER_NAME_SIZE);
    memcpy(driver, dc.driver, sizeof dc.driver);
    driver[HB_DRIVER_NAME_SIZE - 1] = 0;
    g_object_unref(data);
    return true;
}

uint32_t hb_usbdevfs_disconnect_claim_if_driver(void) { return USBDEVFS_DISCONNECT_CLAIM_IF_DRIVER; }
uint32_t hb_usbdevfs_disconnect_claim_except_driver(void) { return USBDEVFS_DISCONNECT_CLAIM_EXCEPT_DRIVER; }

bool hb_ioctl_read_getdriver(UMockdevIoctlClient *client, uint32_t *interface, GError **error)
{
    UMockdevIoctlData *data = resolve_argument(client, sizeof(struct usbdevfs_getdriver), error);
    if (!data) {
        return false;
    }
    struct usbdevfs_getdriver gd;
    memcpy(&gd, data->data, sizeof gd);
    *interface = gd.interface;
    g_object_unref(data);
    return true;
}

bool hb_ioctl_write_getdriver(UMockdevIoctlClient *client, const char *driver, GError **error)
{
    UMockdevIoctlData *data = resolve_argument(client, sizeof(struct usbdevfs_getdriver), error);
    if (!data) {
        return false;
    }
    struct usbdevfs_getdriver gd;
    memcpy(&gd, data->data, sizeof gd);
    memset(gd.driver, 0, sizeof gd.driver);
    strncpy(gd.driver, driver, sizeof gd.driver - 1);
    memcpy(data->data, &gd, sizeof gd);
    g_object_unref(data);
    return true;
}

/* ---- URBs ------------------------------------------------------------------ */

UMockdevIoctlData *hb_urb_resolve(UMockdevIoctlClient *client, hb_urb_fields *fields, UMockdevIoctlData **buffer,
                                  GError **error)
{
    *buffer = NULL;
    UMockdevIoctlData *urb = resolve_argument(client, sizeof(struct usbdevfs_urb), error);
    if (!urb) {
        return NULL;
    }
    struct usbdevfs_urb u;
    memcpy(&u, urb->data, sizeof u);
    fields->type = u.type;
    fields->endpoint = u.endpoint;
    fields->flags = u.flags;
    fields->buffer_length = u.buffer_length;
    fields->client_address = urb->client_addr;
    if (u.buffer_length > 0) {
        *buffer = umockdev_ioctl_data_resolve(urb, offsetof(struct usbdevfs_urb, buffer), (gsize)u.buffer_length,
                                              error);
        if (!*buffer) {
            if (error && !*error) {
                g_set_error(error, HB_ERROR, 0, "URB with a null buffer");
            }
            g_object_unref(urb);
            return NULL;
        }
    }
    return urb;
}

void hb_urb_set_result(UMockdevIoctlData *urb, int32_t status, int32_t actual_length)
{
    int st = status, len = actual_length;
    memcpy(urb->data + offsetof(struct usbdevfs_urb, status), &st, sizeof st);
    memcpy(urb->data + offsetof(struct usbdevfs_urb, actual_length), &len, sizeof len);
}

bool hb_urb_hand_back(UMockdevIoctlClient *reap, UMockdevIoctlData *urb, GError **error)
{
    UMockdevIoctlData *slot = resolve_argument(reap, sizeof(void *), error);
    if (!slot) {
        return false;
    }
    bool ok = umockdev_ioctl_data_set_ptr(slot, 0, urb);
    g_object_unref(slot);
    return ok;
}

/* ---- synchronous transfers ---------------------------------------------------- */

UMockdevIoctlData *hb_sync_transfer_resolve(UMockdevIoctlClient *client, hb_usbdevfs_op op, hb_sync_transfer *out,
                                            UMockdevIoctlData **buffer, GError **error)
{
    *buffer = NULL;
    memset(out, 0, sizeof *out);
    size_t size, data_offset;
    if (op == HB_USBDEVFS_CONTROL) {
        size = sizeof(struct usbdevfs_ctrltransfer);
        data_offset = offsetof(struct usbdevfs_ctrltransfer, data);
    } else {
        size = sizeof(struct usbdevfs_bulktransfer);
        data_offset = offsetof(struct usbdevfs_bulktransfer, data);
    }
    UMockdevIoctlData *arg = resolve_argument(client, size, error);
    if (!arg) {
        return NULL;
    }
    if (op == HB_USBDEVFS_CONTROL) {
        struct usbdevfs_ctrltransfer c;
        memcpy(&c, arg->data, sizeof c);
        out->setup[0] = c.bRequestType;
        out->setup[1] = c.bRequest;
        out->setup[2] = (uint8_t)c.wValue;
        out->setup[3] = (uint8_t)(c.wValue >> 8);
        out->setup[4] = (uint8_t)c.wIndex;
        out->setup[5] = (uint8_t)(c.wIndex >> 8);
        out->setup[6] = (uint8_t)c.wLength;
        out->setup[7] = (uint8_t)(c.wLength >> 8);
        out->length = c.wLength;
        out->timeout_ms = c.timeout;
    } else {
        struct usbdevfs_bulktransfer b;
        memcpy(&b, arg->data, sizeof b);
        out->endpoint = b.ep;
        out->length = b.len;
        out->timeout_ms = b.timeout;
    }
    if (out->length > 0) {
        *buffer = umockdev_ioctl_data_resolve(arg, data_offset, out->length, error);
        if (!*buffer) {
            if (error && !*error) {
                g_set_error(error, HB_ERROR, 0, "transfer with a null buffer");
            }
            g_object_unref(arg);
            return NULL;
        }
    }
    return arg;
}
