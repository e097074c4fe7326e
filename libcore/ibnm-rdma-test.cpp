// SPDX-License-Identifier: LGPL-2.1-or-later
// IbnmRdmaTest: `ibnm rdma test` as a library call. The test runs in a
// thread (GTask), through the host's platform (Platform::runRdmaTest(): on
// this machine librdmacm, in the Linux platform's module; the simulated host
// and a sysfs tree refuse it), polling the GCancellable in every wait.
#include "config.h"

#include "libcore/ibnm-rdma-test.h"

#include "libcore/ibnm-host-private.hpp"
#include "libcore/ibnm-rdma-apply.h"
#include "libcore/ibnm-rdma-test-private.hpp"
#include "libcore/profiles/user-keys.hpp"
#include "libcore/support/boundary.hpp"
#include "libcore/support/gobject.hpp"
#include "libcore/support/strings.hpp"

#include <memory>
#include <string>

struct _IbnmRdmaTest {
    GObject parent_instance;
};

struct IbnmRdmaTestPrivate {
    ibnm::GObjectPtr<IbnmHost> host;
    // Properties as set; RdmaTestSpec's defaults.
    ibnm::platform::RdmaTestSpec spec;
    gint tos = -1;
    gint gidIndex = -1;
    gint roceMode = -1;
};

IBNM_DEFINE_FINAL_TYPE(IbnmRdmaTest, ibnm_rdma_test, G_TYPE_OBJECT)

enum {
    PROP_0,
    PROP_HOST,
    PROP_LISTEN,
    PROP_ADDRESS,
    PROP_PORT,
    PROP_SOURCE_ADDRESS,
    PROP_INTERFACE,
    PROP_COUNT,
    PROP_PING_SIZE,
    PROP_SIZE,
    PROP_DURATION,
    PROP_BIDIRECTIONAL,
    PROP_TOS,
    PROP_GID_INDEX,
    PROP_ROCE_MODE,
    PROP_TIMEOUT,
    PROP_ACCEPT_TIMEOUT,
    N_PROPS
};

static GParamSpec *props[N_PROPS];

enum { SIGNAL_LISTENING, N_SIGNALS };
static guint signals[N_SIGNALS];

namespace {

// The unsigned properties: their field of the spec.
unsigned *uintField(ibnm::platform::RdmaTestSpec &spec, guint id)
{
    switch (id) {
    case PROP_PORT: return &spec.port;
    case PROP_COUNT: return &spec.count;
    case PROP_PING_SIZE: return &spec.pingSize;
    case PROP_SIZE: return &spec.writeSize;
    case PROP_DURATION: return &spec.durationMs;
    case PROP_TIMEOUT: return &spec.timeoutMs;
    case PROP_ACCEPT_TIMEOUT: return &spec.acceptTimeoutMs;
    default: return nullptr;
    }
}

std::string *stringField(ibnm::platform::RdmaTestSpec &spec, guint id)
{
    switch (id) {
    case PROP_ADDRESS: return &spec.address;
    case PROP_SOURCE_ADDRESS: return &spec.sourceAddress;
    case PROP_INTERFACE: return &spec.interface;
    default: return nullptr;
    }
}

gint *intField(IbnmRdmaTestPrivate &p, guint id)
{
    switch (id) {
    case PROP_TOS: return &p.tos;
    case PROP_GID_INDEX: return &p.gidIndex;
    case PROP_ROCE_MODE: return &p.roceMode;
    default: return nullptr;
    }
}

} // namespace

static void ibnm_rdma_test_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
    auto *p = ibnm_rdma_test_priv(object);
    bool changed = false;
    if (unsigned *u = uintField(p->spec, id)) {
        changed = *u != g_value_get_uint(value);
        *u = g_value_get_uint(value);
    } else if (std::string *s = stringField(p->spec, id)) {
        const char *v = g_value_get_string(value);
        changed = *s != (v ? v : "");
        *s = v ? v : "";
    } else if (gint *i = intField(*p, id)) {
        changed = *i != g_value_get_int(value);
        *i = g_value_get_int(value);
    } else if (id == PROP_LISTEN || id == PROP_BIDIRECTIONAL) {
        bool &b = id == PROP_LISTEN ? p->spec.listen : p->spec.bidirectional;
        changed = b != bool(g_value_get_boolean(value));
        b = g_value_get_boolean(value);
    } else if (id == PROP_HOST) {
        p->host = ibnm::GObjectPtr<IbnmHost>::retain(IBNM_HOST(g_value_get_object(value)));
    } else {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
    if (changed)
        g_object_notify_by_pspec(object, pspec);
}

static void ibnm_rdma_test_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    auto *p = ibnm_rdma_test_priv(object);
    if (unsigned *u = uintField(p->spec, id))
        g_value_set_uint(value, *u);
    else if (std::string *s = stringField(p->spec, id))
        g_value_set_string(value, s->empty() ? nullptr : s->c_str());
    else if (gint *i = intField(*p, id))
        g_value_set_int(value, *i);
    else if (id == PROP_LISTEN || id == PROP_BIDIRECTIONAL)
        g_value_set_boolean(value, id == PROP_LISTEN ? p->spec.listen : p->spec.bidirectional);
    else if (id == PROP_HOST)
        g_value_set_object(value, p->host.get());
    else
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

/**
 * IbnmRdmaTest:host:
 *
 * The host to test from: this machine (#IBNM_HOST_KIND_SYSTEM). A simulated host or a sysfs tree has no RDMA data path: the test fails there.
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:listen:
 *
 * %TRUE: wait for a client (one) on #IbnmRdmaTest:address and #IbnmRdmaTest:port; %FALSE: connect to the listener at #IbnmRdmaTest:address.
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:address:
 *
 * The listener's address or host name (a client), or the address to listen on (a listener; %NULL: every address, or #IbnmRdmaTest:interface's).
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:port:
 *
 * The listener's port in RDMA-CM's TCP port space: 4266 unless set.
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:source-address:
 *
 * A client's local address to connect from; %NULL: #IbnmRdmaTest:interface's, else the one the route to the peer gives.
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:interface:
 *
 * The local netdev whose address the test uses where no address names it (ibnm_rdma_test_set_profile() sets the profile's interface).
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:count:
 *
 * How many ping-pongs a client times (0: none).
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:ping-size:
 *
 * The bytes of each ping (1 to 4096).
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:size:
 *
 * The bytes of each RDMA write (1 to 16 MiB).
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:duration:
 *
 * How long a client writes, in milliseconds (0: no bandwidth test); the listener too with #IbnmRdmaTest:bidirectional.
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:bidirectional:
 *
 * Whether the listener, after the client, writes to the client for #IbnmRdmaTest:duration: the bandwidth in both directions.
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:tos:
 *
 * The ToS of the connection's queue pair (0-255), instead of what RDMA-CM gives (its configfs default_roce_tos); -1: RDMA-CM's.
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:gid-index:
 *
 * The index of the source GID the queue pair uses instead of RDMA-CM's choice (ibv_rc_pingpong's -g); -1: RDMA-CM's. Not for iWARP.
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:roce-mode:
 *
 * The RoCE version (an #IbnmRoceMode) of the source GID the queue pair uses, for the GID RDMA-CM resolved; -1: RDMA-CM's (its configfs default_roce_mode). #IbnmRdmaTest:gid-index wins over it. Not for iWARP.
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:timeout:
 *
 * The bound of every wait, in milliseconds: address and route resolution, the connection, each message and completion.
 *
 * Since: 0.1
 */
/**
 * IbnmRdmaTest:accept-timeout:
 *
 * How long a listener waits for its client, in milliseconds (0: until cancelled).
 *
 * Since: 0.1
 */
static void ibnm_rdma_test_class_init_impl(IbnmRdmaTestClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    oc->set_property = ibnm_rdma_test_set_property;
    oc->get_property = ibnm_rdma_test_get_property;
    auto rw = GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
    const ibnm::platform::RdmaTestSpec d;
    props[PROP_HOST] = g_param_spec_object(IBNM_RDMA_TEST_HOST, nullptr, nullptr, IBNM_TYPE_HOST,
                                           GParamFlags(G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                                                       G_PARAM_STATIC_STRINGS));
    props[PROP_LISTEN] = g_param_spec_boolean(IBNM_RDMA_TEST_LISTEN, nullptr, nullptr, FALSE, rw);
    props[PROP_ADDRESS] = g_param_spec_string(IBNM_RDMA_TEST_ADDRESS, nullptr, nullptr, nullptr, rw);
    props[PROP_PORT] = g_param_spec_uint(IBNM_RDMA_TEST_PORT, nullptr, nullptr, 1, 65535, d.port, rw);
    props[PROP_SOURCE_ADDRESS] = g_param_spec_string(IBNM_RDMA_TEST_SOURCE_ADDRESS, nullptr, nullptr, nullptr, rw);
    props[PROP_INTERFACE] = g_param_spec_string(IBNM_RDMA_TEST_INTERFACE, nullptr, nullptr, nullptr, rw);
    props[PROP_COUNT] = g_param_spec_uint(IBNM_RDMA_TEST_COUNT, nullptr, nullptr, 0, G_MAXINT, d.count, rw);
    props[PROP_PING_SIZE] = g_param_spec_uint(IBNM_RDMA_TEST_PING_SIZE, nullptr, nullptr, 1,
                                              ibnm::platform::kRdmaTestMaxPingSize, d.pingSize, rw);
    props[PROP_SIZE] = g_param_spec_uint(IBNM_RDMA_TEST_SIZE, nullptr, nullptr, 1,
                                         ibnm::platform::kRdmaTestMaxWriteSize, d.writeSize, rw);
    props[PROP_DURATION] = g_param_spec_uint(IBNM_RDMA_TEST_DURATION, nullptr, nullptr, 0, 3600000, d.durationMs, rw);
    props[PROP_BIDIRECTIONAL] = g_param_spec_boolean(IBNM_RDMA_TEST_BIDIRECTIONAL, nullptr, nullptr, FALSE, rw);
    props[PROP_TOS] = g_param_spec_int(IBNM_RDMA_TEST_TOS, nullptr, nullptr, -1, 255, -1, rw);
    props[PROP_GID_INDEX] = g_param_spec_int(IBNM_RDMA_TEST_GID_INDEX, nullptr, nullptr, -1, 65535, -1, rw);
    props[PROP_ROCE_MODE] = g_param_spec_int(IBNM_RDMA_TEST_ROCE_MODE, nullptr, nullptr, -1, IBNM_ROCE_MODE_V2, -1, rw);
    props[PROP_TIMEOUT] = g_param_spec_uint(IBNM_RDMA_TEST_TIMEOUT, nullptr, nullptr, 1, G_MAXINT, d.timeoutMs, rw);
    props[PROP_ACCEPT_TIMEOUT] = g_param_spec_uint(IBNM_RDMA_TEST_ACCEPT_TIMEOUT, nullptr, nullptr, 0, G_MAXINT,
                                                   d.acceptTimeoutMs, rw);
    g_object_class_install_properties(oc, N_PROPS, props);

    /**
     * IbnmRdmaTest::listening:
     * @self: the test
     *
     * Emitted, in the thread-default main context of the caller of
     * ibnm_rdma_test_run_async(), once a listener listens: a client may
     * connect from then on.
     *
     * Since: 0.1
     */
    signals[SIGNAL_LISTENING] = g_signal_new("listening", IBNM_TYPE_RDMA_TEST, G_SIGNAL_RUN_LAST, 0, nullptr,
                                             nullptr, nullptr, G_TYPE_NONE, 0);
}

/**
 * ibnm_rdma_test_new:
 * @host: the host to test from
 *
 * Creates an RDMA test from @host, a client with the default settings:
 * set #IbnmRdmaTest:address (or #IbnmRdmaTest:listen) before running it.
 *
 * Returns: (transfer full): the test
 *
 * Since: 0.1
 */
IbnmRdmaTest *ibnm_rdma_test_new(IbnmHost *host)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    return IBNM_RDMA_TEST(g_object_new(IBNM_TYPE_RDMA_TEST, IBNM_RDMA_TEST_HOST, host, nullptr));
}

/**
 * ibnm_rdma_test_set_profile:
 * @self: the test
 * @connection: a profile with RDMA settings (rdma.roce-tos, rdma.roce-mode)
 *
 * Tests what @connection gives RDMA-CM applications: its interface
 * (#IbnmRdmaTest:interface), its rdma.roce-tos (#IbnmRdmaTest:tos) and its
 * rdma.roce-mode (#IbnmRdmaTest:roce-mode), where it sets them. Set the
 * properties again afterwards to override them.
 *
 * Returns: %TRUE, or %FALSE with @error set (the profile has no interface
 *   name, or an ibnm key of it does not parse; nothing is changed then)
 *
 * Since: 0.1
 */
gboolean ibnm_rdma_test_set_profile(IbnmRdmaTest *self, NMConnection *connection, GError **error)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST(self), FALSE);
    g_return_val_if_fail(NM_IS_CONNECTION(connection), FALSE);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        const char *ifname = nm_connection_get_interface_name(connection);
        if (!ifname || !*ifname)
            return ibnm::Error(IBNM_ERROR_MISSING_PROPERTY,
                               _("the profile has no interface name: the test would not know where to leave from"))
                .withProperty("connection.interface-name");
        auto options = ibnm::userkeys::parse(connection);
        if (!options)
            return std::move(options).error();
        g_object_freeze_notify(G_OBJECT(self));
        g_object_set(self, IBNM_RDMA_TEST_INTERFACE, ifname, nullptr);
        if (options->roceTos)
            g_object_set(self, IBNM_RDMA_TEST_TOS, gint(*options->roceTos), nullptr);
        if (options->roceMode)
            g_object_set(self, IBNM_RDMA_TEST_ROCE_MODE,
                         gint(*options->roceMode == ibnm::model::RoceMode::V1 ? IBNM_ROCE_MODE_V1 : IBNM_ROCE_MODE_V2),
                         nullptr);
        g_object_thaw_notify(G_OBJECT(self));
        return {};
    });
}

namespace {

// What a run takes with it into its thread: a copy of the settings.
struct RunData {
    ibnm::platform::RdmaTestSpec spec;
    ibnm::GObjectPtr<IbnmHost> host;
    ibnm::GObjectPtr<IbnmRdmaTest> self;
    ibnm::CPtr<GMainContext, g_main_context_unref> context;
};

ibnm::Result<ibnm::platform::RdmaTestSpec> runSpec(IbnmRdmaTestPrivate &p)
{
    if (!p.host)
        return ibnm::Error(IBNM_ERROR_INVALID_ARGUMENT, _("the test has no host to run from")).withProperty("host");
    ibnm::platform::RdmaTestSpec spec = p.spec;
    if (!spec.listen && spec.address.empty())
        return ibnm::Error(IBNM_ERROR_INVALID_ARGUMENT, _("a client needs the listener's address"))
            .withProperty("address");
    if (p.tos >= 0)
        spec.tos = unsigned(p.tos);
    if (p.gidIndex >= 0)
        spec.gidIndex = unsigned(p.gidIndex);
    else if (p.roceMode >= 0)
        spec.gidType = p.roceMode == IBNM_ROCE_MODE_V1 ? ibnm::model::GidType::IbRoceV1 : ibnm::model::GidType::RoceV2;
    return spec;
}

gboolean emitListening(gpointer data)
{
    g_signal_emit(data, signals[SIGNAL_LISTENING], 0);
    return G_SOURCE_REMOVE;
}

void runInThread(GTask *task, gpointer, gpointer taskData, GCancellable *cancellable)
{
    auto *run = static_cast<RunData *>(taskData);
    GError *error = nullptr;
    IbnmRdmaTestResult *result = nullptr;
    ibnm::guard(&error, [&]() -> ibnm::Status {
        run->spec.cancelled = [cancellable] { return cancellable && g_cancellable_is_cancelled(cancellable); };
        // Always through a source (g_main_context_invoke() would call it
        // here, in this thread, when no one holds the context yet).
        run->spec.listening = [run] {
            GSource *source = g_idle_source_new();
            g_source_set_callback(source, emitListening, g_object_ref(run->self.get()), g_object_unref);
            g_source_attach(source, run->context.get());
            g_source_unref(source);
        };
        auto outcome = ibnm::hostPlatform(run->host.get()).runRdmaTest(run->spec);
        if (!outcome)
            return std::move(outcome).error();
        result = ibnm::rdmaTestResultNew(*outcome);
        return {};
    });
    // A cancelled run ends as GIO's calls do, whatever the test said.
    GError *cancelled = nullptr;
    if (g_cancellable_set_error_if_cancelled(cancellable, &cancelled)) {
        g_clear_error(&error);
        g_clear_object(&result);
        error = cancelled;
    }
    if (result)
        g_task_return_pointer(task, result, g_object_unref);
    else
        g_task_return_error(task, error);
}

} // namespace

/**
 * ibnm_rdma_test_run_async:
 * @self: the test
 * @cancellable: (nullable): cancels the test at its next wait (within 0.1 s)
 * @callback: (scope async): called in the thread-default main context of
 *   the caller when the test is over
 * @user_data: (closure): for @callback
 *
 * Runs the test in a thread, with a copy of its settings: as a listener,
 * waits for one client and answers it; as a client, connects to the
 * listener, measures, and reports to it. Call ibnm_rdma_test_run_finish()
 * in @callback.
 *
 * Since: 0.1
 */
void ibnm_rdma_test_run_async(IbnmRdmaTest *self, GCancellable *cancellable, GAsyncReadyCallback callback,
                              gpointer user_data)
{
    g_return_if_fail(IBNM_IS_RDMA_TEST(self));
    g_return_if_fail(!cancellable || G_IS_CANCELLABLE(cancellable));
    ibnm::CPtr<GTask, g_object_unref> task(g_task_new(self, cancellable, callback, user_data));
    g_task_set_source_tag(task.get(), reinterpret_cast<gpointer>(ibnm_rdma_test_run_async));
    GError *error = nullptr;
    auto run = std::make_unique<RunData>();
    if (!ibnm::guard(&error, [&]() -> ibnm::Status {
            auto spec = runSpec(*ibnm_rdma_test_priv(self));
            if (!spec)
                return std::move(spec).error();
            run->spec = std::move(*spec);
            return {};
        })) {
        g_task_return_error(task.get(), error);
        return;
    }
    run->host = ibnm_rdma_test_priv(self)->host;
    run->self = ibnm::GObjectPtr<IbnmRdmaTest>::retain(self);
    run->context.reset(g_main_context_ref_thread_default());
    g_task_set_task_data(task.get(), run.release(), [](gpointer p) { delete static_cast<RunData *>(p); });
    g_task_run_in_thread(task.get(), runInThread);
}

/**
 * ibnm_rdma_test_run_finish:
 * @self: the test
 * @result: what @callback of ibnm_rdma_test_run_async() was given
 * @error: where to store the error
 *
 * Gets what ibnm_rdma_test_run_async() measured.
 *
 * Returns: (transfer full): the result, or %NULL with @error set: in
 *   %IBNM_ERROR (%IBNM_ERROR_NOT_SUPPORTED: no data path on this host, or
 *   the kernel's RDMA connection manager is not loaded;
 *   %IBNM_ERROR_TIMED_OUT: a wait ran out of #IbnmRdmaTest:timeout;
 *   %IBNM_ERROR_NOT_FOUND: nothing behind an address, nobody listening),
 *   or %G_IO_ERROR_CANCELLED
 *
 * Since: 0.1
 */
IbnmRdmaTestResult *ibnm_rdma_test_run_finish(IbnmRdmaTest *self, GAsyncResult *result, GError **error)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST(self), nullptr);
    g_return_val_if_fail(g_task_is_valid(result, self), nullptr);
    return static_cast<IbnmRdmaTestResult *>(g_task_propagate_pointer(G_TASK(result), error));
}

/**
 * ibnm_rdma_test_run:
 * @self: the test
 * @cancellable: (nullable): cancels the test at its next wait
 * @error: where to store the error
 *
 * Runs the test and waits for its end: ibnm_rdma_test_run_async() in a
 * main context of its own (#IbnmRdmaTest::listening is emitted there,
 * in this thread).
 *
 * Returns: (transfer full): the result, or %NULL with @error set, as
 *   ibnm_rdma_test_run_finish()
 *
 * Since: 0.1
 */
IbnmRdmaTestResult *ibnm_rdma_test_run(IbnmRdmaTest *self, GCancellable *cancellable, GError **error)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST(self), nullptr);
    ibnm::CPtr<GMainContext, g_main_context_unref> context(g_main_context_new());
    g_main_context_push_thread_default(context.get());
    GAsyncResult *done = nullptr;
    ibnm_rdma_test_run_async(
        self, cancellable,
        [](GObject *, GAsyncResult *r, gpointer out) {
            *static_cast<GAsyncResult **>(out) = G_ASYNC_RESULT(g_object_ref(r));
        },
        &done);
    while (!done)
        g_main_context_iteration(context.get(), TRUE);
    g_main_context_pop_thread_default(context.get());
    IbnmRdmaTestResult *result = ibnm_rdma_test_run_finish(self, done, error);
    g_object_unref(done);
    return result;
}
