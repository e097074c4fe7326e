// SPDX-License-Identifier: LGPL-2.1-or-later
// IbnmRdmaPath and IbnmRdmaTestResult: what an RDMA test found (read-only).
#include "config.h"

#include "libcore/ibnm-rdma-test.h"

#include "libcore/ibnm-inventory-types-private.hpp"
#include "libcore/ibnm-rdma-test-private.hpp"
#include "libcore/model/rdma.hpp"
#include "libcore/support/gobject.hpp"

using namespace ibnm::inventory;

// --- IbnmRdmaPath -------------------------------------------------------------------

struct _IbnmRdmaPath {
    GObject parent_instance;
};

struct IbnmRdmaPathPrivate {
    ibnm::model::RdmaPath path_;
};

IBNM_DEFINE_FINAL_TYPE(IbnmRdmaPath, ibnm_rdma_path, G_TYPE_OBJECT)

static const Prop<IbnmRdmaPath> pathProps[] = {
    strProp<IbnmRdmaPath>(IBNM_RDMA_PATH_ADDRESS, ibnm_rdma_path_get_address),
    strProp<IbnmRdmaPath>(IBNM_RDMA_PATH_DEVICE, ibnm_rdma_path_get_device),
    uintProp<IbnmRdmaPath>(IBNM_RDMA_PATH_PORT, ibnm_rdma_path_get_port),
    strProp<IbnmRdmaPath>(IBNM_RDMA_PATH_NETDEV, ibnm_rdma_path_get_netdev),
    strProp<IbnmRdmaPath>(IBNM_RDMA_PATH_PROTOCOL, ibnm_rdma_path_get_protocol),
    intProp<IbnmRdmaPath>(IBNM_RDMA_PATH_GID_INDEX, ibnm_rdma_path_get_gid_index),
    strProp<IbnmRdmaPath>(IBNM_RDMA_PATH_GID, ibnm_rdma_path_get_gid),
    intProp<IbnmRdmaPath>(IBNM_RDMA_PATH_TOS, ibnm_rdma_path_get_tos),
    intProp<IbnmRdmaPath>(IBNM_RDMA_PATH_SERVICE_LEVEL, ibnm_rdma_path_get_service_level),
    intProp<IbnmRdmaPath>(IBNM_RDMA_PATH_PRIORITY, ibnm_rdma_path_get_priority),
    uintProp<IbnmRdmaPath>(IBNM_RDMA_PATH_MTU, ibnm_rdma_path_get_mtu),
};

static void ibnm_rdma_path_get_property(GObject *o, guint id, GValue *v, GParamSpec *ps)
{
    getProp(pathProps, o, id, v, ps);
}

static void ibnm_rdma_path_class_init_impl(IbnmRdmaPathClass *klass)
{
    G_OBJECT_CLASS(klass)->get_property = ibnm_rdma_path_get_property;
    installProps(G_OBJECT_CLASS(klass), pathProps);
}

/**
 * IbnmRdmaPath:address:
 *
 * The IP address this side's RDMA-CM id was bound to.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_path_get_address:
 * @self: the object
 *
 * Gets the #IbnmRdmaPath:address property.
 *
 * Returns: (transfer none) (nullable): the address, "198.51.100.1"
 *
 * Since: 0.1
 */
const char *ibnm_rdma_path_get_address(IbnmRdmaPath *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PATH(self), nullptr);
    const auto &p = ibnm_rdma_path_priv(self)->path_;
    return nullIfEmpty(p.address);
}

/**
 * IbnmRdmaPath:device:
 *
 * The RDMA device, "rxe0", "mlx5_0".
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_path_get_device:
 * @self: the object
 *
 * Gets the #IbnmRdmaPath:device property.
 *
 * Returns: (transfer none) (nullable): the RDMA device
 *
 * Since: 0.1
 */
const char *ibnm_rdma_path_get_device(IbnmRdmaPath *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PATH(self), nullptr);
    const auto &p = ibnm_rdma_path_priv(self)->path_;
    return nullIfEmpty(p.device);
}

/**
 * IbnmRdmaPath:port:
 *
 * The RDMA device's port number (from 1; 0 when unknown).
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_path_get_port:
 * @self: the object
 *
 * Gets the #IbnmRdmaPath:port property.
 *
 * Returns: the port number
 *
 * Since: 0.1
 */
guint ibnm_rdma_path_get_port(IbnmRdmaPath *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PATH(self), 0);
    const auto &p = ibnm_rdma_path_priv(self)->path_;
    return p.port;
}

/**
 * IbnmRdmaPath:netdev:
 *
 * The netdev the traffic leaves through: the source GID's (RoCE), else the one holding the address.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_path_get_netdev:
 * @self: the object
 *
 * Gets the #IbnmRdmaPath:netdev property.
 *
 * Returns: (transfer none) (nullable): the netdev, or %NULL when unknown
 *
 * Since: 0.1
 */
const char *ibnm_rdma_path_get_netdev(IbnmRdmaPath *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PATH(self), nullptr);
    const auto &p = ibnm_rdma_path_priv(self)->path_;
    return nullIfEmpty(p.netdev);
}

/**
 * IbnmRdmaPath:protocol:
 *
 * How the traffic travels: "InfiniBand", "RoCE v1", "RoCE v2" or "iWARP".
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_path_get_protocol:
 * @self: the object
 *
 * Gets the #IbnmRdmaPath:protocol property.
 *
 * Returns: (transfer none) (nullable): the protocol, or %NULL when unknown
 *
 * Since: 0.1
 */
const char *ibnm_rdma_path_get_protocol(IbnmRdmaPath *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PATH(self), nullptr);
    const auto &p = ibnm_rdma_path_priv(self)->path_;
    const char *name = ibnm::model::rdmaProtocolName(p.protocol);
    return *name ? name : nullptr;
}

/**
 * IbnmRdmaPath:gid-index:
 *
 * The index of the queue pair's source GID in the port's GID table; -1 where none applies (iWARP) or it is unknown.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_path_get_gid_index:
 * @self: the object
 *
 * Gets the #IbnmRdmaPath:gid-index property.
 *
 * Returns: the GID index, or -1
 *
 * Since: 0.1
 */
gint ibnm_rdma_path_get_gid_index(IbnmRdmaPath *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PATH(self), -1);
    const auto &p = ibnm_rdma_path_priv(self)->path_;
    return p.gidIndex ? gint(*p.gidIndex) : -1;
}

/**
 * IbnmRdmaPath:gid:
 *
 * The source GID as sysfs prints it.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_path_get_gid:
 * @self: the object
 *
 * Gets the #IbnmRdmaPath:gid property.
 *
 * Returns: (transfer none) (nullable): the GID, or %NULL
 *
 * Since: 0.1
 */
const char *ibnm_rdma_path_get_gid(IbnmRdmaPath *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PATH(self), nullptr);
    const auto &p = ibnm_rdma_path_priv(self)->path_;
    return nullIfEmpty(p.gid);
}

/**
 * IbnmRdmaPath:tos:
 *
 * The queue pair's traffic class (the IP ToS of RoCE v2 packets); -1 when unknown (iWARP).
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_path_get_tos:
 * @self: the object
 *
 * Gets the #IbnmRdmaPath:tos property.
 *
 * Returns: the ToS (0-255), or -1
 *
 * Since: 0.1
 */
gint ibnm_rdma_path_get_tos(IbnmRdmaPath *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PATH(self), -1);
    const auto &p = ibnm_rdma_path_priv(self)->path_;
    return p.tos ? gint(*p.tos) : -1;
}

/**
 * IbnmRdmaPath:service-level:
 *
 * The Service Level the ToS implies: ToS >> 5 (NVIDIA's RDMA-CM mapping); -1 without a ToS.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_path_get_service_level:
 * @self: the object
 *
 * Gets the #IbnmRdmaPath:service-level property.
 *
 * Returns: the SL (0-7), or -1
 *
 * Since: 0.1
 */
gint ibnm_rdma_path_get_service_level(IbnmRdmaPath *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PATH(self), -1);
    const auto &p = ibnm_rdma_path_priv(self)->path_;
    return p.tos ? gint(ibnm::model::roceServiceLevel(*p.tos)) : -1;
}

/**
 * IbnmRdmaPath:priority:
 *
 * The VLAN priority (PCP) the Service Level gives tagged frames: SL & 7; -1 without a ToS.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_path_get_priority:
 * @self: the object
 *
 * Gets the #IbnmRdmaPath:priority property.
 *
 * Returns: the PCP (0-7), or -1
 *
 * Since: 0.1
 */
gint ibnm_rdma_path_get_priority(IbnmRdmaPath *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PATH(self), -1);
    const auto &p = ibnm_rdma_path_priv(self)->path_;
    return p.tos ? gint(ibnm::model::rocePriorityOfTos(*p.tos).pcp) : -1;
}

/**
 * IbnmRdmaPath:mtu:
 *
 * The queue pair's path MTU in bytes (256 to 4096); 0 when unknown (iWARP).
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_path_get_mtu:
 * @self: the object
 *
 * Gets the #IbnmRdmaPath:mtu property.
 *
 * Returns: the path MTU, or 0
 *
 * Since: 0.1
 */
guint ibnm_rdma_path_get_mtu(IbnmRdmaPath *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PATH(self), 0);
    const auto &p = ibnm_rdma_path_priv(self)->path_;
    return p.pathMtu.value_or(0);
}

// --- IbnmRdmaTestResult ---------------------------------------------------------------

struct _IbnmRdmaTestResult {
    GObject parent_instance;
};

struct IbnmRdmaTestResultPrivate {
    ibnm::platform::RdmaTestOutcome outcome;
    // Never NULL: a result made without a test (a binding's Ibnm.RdmaTestResult()) has empty paths.
    ibnm::GObjectPtr<IbnmRdmaPath> local = ibnm::GObjectPtr<IbnmRdmaPath>::adopt(ibnm::rdmaPathNew({}));
    ibnm::GObjectPtr<IbnmRdmaPath> peer = ibnm::GObjectPtr<IbnmRdmaPath>::adopt(ibnm::rdmaPathNew({}));
};

IBNM_DEFINE_FINAL_TYPE(IbnmRdmaTestResult, ibnm_rdma_test_result, G_TYPE_OBJECT)

namespace {

gdouble micro(const IbnmRdmaTestResultPrivate &r, uint64_t ibnm::platform::LatencySummary::*field)
{
    return r.outcome.latency ? gdouble((*r.outcome.latency).*field) / 1000.0 : -1.0;
}

gdouble gbps(const std::optional<ibnm::platform::BandwidthFigure> &f)
{
    // bits per nanosecond: bytes * 8 / (usec * 1000).
    return f && f->usec > 0 ? gdouble(f->bytes) * 8.0 / (gdouble(f->usec) * 1000.0) : -1.0;
}

gdouble seconds(const std::optional<ibnm::platform::BandwidthFigure> &f)
{
    return f ? gdouble(f->usec) / 1e6 : -1.0;
}

} // namespace

static const Prop<IbnmRdmaTestResult> resultProps[] = {
    boolProp<IbnmRdmaTestResult>(IBNM_RDMA_TEST_RESULT_LISTENER, ibnm_rdma_test_result_get_listener),
    uintProp<IbnmRdmaTestResult>(IBNM_RDMA_TEST_RESULT_ROUND_TRIPS, ibnm_rdma_test_result_get_round_trips),
    uintProp<IbnmRdmaTestResult>(IBNM_RDMA_TEST_RESULT_PING_SIZE, ibnm_rdma_test_result_get_ping_size),
    doubleProp<IbnmRdmaTestResult>(IBNM_RDMA_TEST_RESULT_LATENCY_MIN, ibnm_rdma_test_result_get_latency_min),
    doubleProp<IbnmRdmaTestResult>(IBNM_RDMA_TEST_RESULT_LATENCY_MEDIAN, ibnm_rdma_test_result_get_latency_median),
    doubleProp<IbnmRdmaTestResult>(IBNM_RDMA_TEST_RESULT_LATENCY_P99, ibnm_rdma_test_result_get_latency_p99),
    doubleProp<IbnmRdmaTestResult>(IBNM_RDMA_TEST_RESULT_LATENCY_MAX, ibnm_rdma_test_result_get_latency_max),
    doubleProp<IbnmRdmaTestResult>(IBNM_RDMA_TEST_RESULT_LATENCY_MEAN, ibnm_rdma_test_result_get_latency_mean),
    uintProp<IbnmRdmaTestResult>(IBNM_RDMA_TEST_RESULT_WRITE_SIZE, ibnm_rdma_test_result_get_write_size),
    doubleProp<IbnmRdmaTestResult>(IBNM_RDMA_TEST_RESULT_BANDWIDTH, ibnm_rdma_test_result_get_bandwidth),
    doubleProp<IbnmRdmaTestResult>(IBNM_RDMA_TEST_RESULT_WRITE_SECONDS, ibnm_rdma_test_result_get_write_seconds),
    doubleProp<IbnmRdmaTestResult>(IBNM_RDMA_TEST_RESULT_REVERSE_BANDWIDTH, ibnm_rdma_test_result_get_reverse_bandwidth),
    doubleProp<IbnmRdmaTestResult>(IBNM_RDMA_TEST_RESULT_REVERSE_WRITE_SECONDS, ibnm_rdma_test_result_get_reverse_write_seconds),
};

static void ibnm_rdma_test_result_get_property(GObject *o, guint id, GValue *v, GParamSpec *ps)
{
    getProp(resultProps, o, id, v, ps);
}

static void ibnm_rdma_test_result_class_init_impl(IbnmRdmaTestResultClass *klass)
{
    G_OBJECT_CLASS(klass)->get_property = ibnm_rdma_test_result_get_property;
    installProps(G_OBJECT_CLASS(klass), resultProps);
}

/**
 * IbnmRdmaTestResult:listener:
 *
 * Whether this side was the listener.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_test_result_get_listener:
 * @self: the object
 *
 * Gets the #IbnmRdmaTestResult:listener property.
 *
 * Returns: %TRUE on the listener's side
 *
 * Since: 0.1
 */
gboolean ibnm_rdma_test_result_get_listener(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), FALSE);
    const auto &r = *ibnm_rdma_test_result_priv(self);
    return r.outcome.listener ? TRUE : FALSE;
}

/**
 * IbnmRdmaTestResult:round-trips:
 *
 * The number of ping-pongs timed; 0 when none was.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_test_result_get_round_trips:
 * @self: the object
 *
 * Gets the #IbnmRdmaTestResult:round-trips property.
 *
 * Returns: the number of round trips
 *
 * Since: 0.1
 */
guint ibnm_rdma_test_result_get_round_trips(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), 0);
    const auto &r = *ibnm_rdma_test_result_priv(self);
    return r.outcome.latency ? r.outcome.latency->count : 0;
}

/**
 * IbnmRdmaTestResult:ping-size:
 *
 * The bytes of each ping.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_test_result_get_ping_size:
 * @self: the object
 *
 * Gets the #IbnmRdmaTestResult:ping-size property.
 *
 * Returns: the ping size in bytes
 *
 * Since: 0.1
 */
guint ibnm_rdma_test_result_get_ping_size(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), 0);
    const auto &r = *ibnm_rdma_test_result_priv(self);
    return r.outcome.pingSize;
}

/**
 * IbnmRdmaTestResult:latency-min:
 *
 * The shortest round trip in microseconds; -1 when no ping-pong ran.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_test_result_get_latency_min:
 * @self: the object
 *
 * Gets the #IbnmRdmaTestResult:latency-min property.
 *
 * Returns: the shortest round trip (µs), or -1
 *
 * Since: 0.1
 */
gdouble ibnm_rdma_test_result_get_latency_min(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), -1.0);
    const auto &r = *ibnm_rdma_test_result_priv(self);
    return micro(r, &ibnm::platform::LatencySummary::minNs);
}

/**
 * IbnmRdmaTestResult:latency-median:
 *
 * The median round trip in microseconds (the ceil(n/2)-th shortest); -1 when no ping-pong ran.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_test_result_get_latency_median:
 * @self: the object
 *
 * Gets the #IbnmRdmaTestResult:latency-median property.
 *
 * Returns: the median round trip (µs), or -1
 *
 * Since: 0.1
 */
gdouble ibnm_rdma_test_result_get_latency_median(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), -1.0);
    const auto &r = *ibnm_rdma_test_result_priv(self);
    return micro(r, &ibnm::platform::LatencySummary::medianNs);
}

/**
 * IbnmRdmaTestResult:latency-p99:
 *
 * The 99th percentile of the round trips in microseconds (the ceil(0.99 n)-th shortest); -1 when no ping-pong ran.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_test_result_get_latency_p99:
 * @self: the object
 *
 * Gets the #IbnmRdmaTestResult:latency-p99 property.
 *
 * Returns: the 99th percentile (µs), or -1
 *
 * Since: 0.1
 */
gdouble ibnm_rdma_test_result_get_latency_p99(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), -1.0);
    const auto &r = *ibnm_rdma_test_result_priv(self);
    return micro(r, &ibnm::platform::LatencySummary::p99Ns);
}

/**
 * IbnmRdmaTestResult:latency-max:
 *
 * The longest round trip in microseconds; -1 when no ping-pong ran.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_test_result_get_latency_max:
 * @self: the object
 *
 * Gets the #IbnmRdmaTestResult:latency-max property.
 *
 * Returns: the longest round trip (µs), or -1
 *
 * Since: 0.1
 */
gdouble ibnm_rdma_test_result_get_latency_max(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), -1.0);
    const auto &r = *ibnm_rdma_test_result_priv(self);
    return micro(r, &ibnm::platform::LatencySummary::maxNs);
}

/**
 * IbnmRdmaTestResult:latency-mean:
 *
 * The mean round trip in microseconds (ibv_rc_pingpong's "usec/iter"); -1 when no ping-pong ran.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_test_result_get_latency_mean:
 * @self: the object
 *
 * Gets the #IbnmRdmaTestResult:latency-mean property.
 *
 * Returns: the mean round trip (µs), or -1
 *
 * Since: 0.1
 */
gdouble ibnm_rdma_test_result_get_latency_mean(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), -1.0);
    const auto &r = *ibnm_rdma_test_result_priv(self);
    return micro(r, &ibnm::platform::LatencySummary::meanNs);
}

/**
 * IbnmRdmaTestResult:write-size:
 *
 * The bytes of each RDMA write.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_test_result_get_write_size:
 * @self: the object
 *
 * Gets the #IbnmRdmaTestResult:write-size property.
 *
 * Returns: the write size in bytes
 *
 * Since: 0.1
 */
guint ibnm_rdma_test_result_get_write_size(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), 0);
    const auto &r = *ibnm_rdma_test_result_priv(self);
    return r.outcome.writeSize;
}

/**
 * IbnmRdmaTestResult:bandwidth:
 *
 * What the client's RDMA writes to the listener moved, in Gb/s (10^9 bits per second); -1 when they did not run.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_test_result_get_bandwidth:
 * @self: the object
 *
 * Gets the #IbnmRdmaTestResult:bandwidth property.
 *
 * Returns: the bandwidth (Gb/s), or -1
 *
 * Since: 0.1
 */
gdouble ibnm_rdma_test_result_get_bandwidth(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), -1.0);
    const auto &r = *ibnm_rdma_test_result_priv(self);
    return gbps(r.outcome.toListener);
}

/**
 * IbnmRdmaTestResult:write-seconds:
 *
 * How long the client's RDMA writes took, from the first post to the last completion; -1 when they did not run.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_test_result_get_write_seconds:
 * @self: the object
 *
 * Gets the #IbnmRdmaTestResult:write-seconds property.
 *
 * Returns: the seconds, or -1
 *
 * Since: 0.1
 */
gdouble ibnm_rdma_test_result_get_write_seconds(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), -1.0);
    const auto &r = *ibnm_rdma_test_result_priv(self);
    return seconds(r.outcome.toListener);
}

/**
 * IbnmRdmaTestResult:reverse-bandwidth:
 *
 * What the listener's RDMA writes to the client moved, in Gb/s (#IbnmRdmaTest:bidirectional); -1 when they did not run.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_test_result_get_reverse_bandwidth:
 * @self: the object
 *
 * Gets the #IbnmRdmaTestResult:reverse-bandwidth property.
 *
 * Returns: the bandwidth (Gb/s), or -1
 *
 * Since: 0.1
 */
gdouble ibnm_rdma_test_result_get_reverse_bandwidth(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), -1.0);
    const auto &r = *ibnm_rdma_test_result_priv(self);
    return gbps(r.outcome.toClient);
}

/**
 * IbnmRdmaTestResult:reverse-write-seconds:
 *
 * How long the listener's RDMA writes took; -1 when they did not run.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_test_result_get_reverse_write_seconds:
 * @self: the object
 *
 * Gets the #IbnmRdmaTestResult:reverse-write-seconds property.
 *
 * Returns: the seconds, or -1
 *
 * Since: 0.1
 */
gdouble ibnm_rdma_test_result_get_reverse_write_seconds(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), -1.0);
    const auto &r = *ibnm_rdma_test_result_priv(self);
    return seconds(r.outcome.toClient);
}

/**
 * ibnm_rdma_test_result_get_local_path:
 * @self: the object
 *
 * Gets this side's path.
 *
 * Returns: (transfer none): this side's path
 *
 * Since: 0.1
 */
IbnmRdmaPath *ibnm_rdma_test_result_get_local_path(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), nullptr);
    return ibnm_rdma_test_result_priv(self)->local.get();
}

/**
 * ibnm_rdma_test_result_get_peer_path:
 * @self: the object
 *
 * Gets the peer's path, as the peer reported it over the connection.
 *
 * Returns: (transfer none): the peer's path
 *
 * Since: 0.1
 */
IbnmRdmaPath *ibnm_rdma_test_result_get_peer_path(IbnmRdmaTestResult *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_TEST_RESULT(self), nullptr);
    return ibnm_rdma_test_result_priv(self)->peer.get();
}

// --- constructors ----------------------------------------------------------------------

namespace ibnm {

IbnmRdmaPath *rdmaPathNew(const model::RdmaPath &path)
{
    IbnmRdmaPath *obj = IBNM_RDMA_PATH(g_object_new(IBNM_TYPE_RDMA_PATH, nullptr));
    ibnm_rdma_path_priv(obj)->path_ = path;
    return obj;
}

IbnmRdmaTestResult *rdmaTestResultNew(const platform::RdmaTestOutcome &outcome)
{
    IbnmRdmaTestResult *obj = IBNM_RDMA_TEST_RESULT(g_object_new(IBNM_TYPE_RDMA_TEST_RESULT, nullptr));
    auto *r = ibnm_rdma_test_result_priv(obj);
    r->outcome = outcome;
    r->local = GObjectPtr<IbnmRdmaPath>::adopt(rdmaPathNew(outcome.local));
    r->peer = GObjectPtr<IbnmRdmaPath>::adopt(rdmaPathNew(outcome.peer));
    return obj;
}

} // namespace ibnm
