/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The RDMA test (`ibnm rdma test`): one RDMA-CM connection between a
 * listener and a client that proves the path carries RDMA traffic, with its
 * latency, its bandwidth, and the path each side took. */
#pragma once

#include <gio/gio.h>
#include <NetworkManager.h>

#include "ibnm-host.h"

G_BEGIN_DECLS

/**
 * IbnmRdmaPath:
 *
 * One side of an RDMA connection, as that side reports it: where its
 * traffic leaves (RDMA device and port, netdev, source GID) and how
 * (protocol, ToS and what it implies, path MTU). Read only.
 *
 * Since: 0.1
 */
#define IBNM_TYPE_RDMA_PATH (ibnm_rdma_path_get_type())
G_DECLARE_FINAL_TYPE(IbnmRdmaPath, ibnm_rdma_path, IBNM, RDMA_PATH, GObject)

/**
 * IBNM_RDMA_PATH_ADDRESS:
 *
 * The name of the #IbnmRdmaPath:address property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PATH_ADDRESS "address"
/**
 * IBNM_RDMA_PATH_DEVICE:
 *
 * The name of the #IbnmRdmaPath:device property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PATH_DEVICE "device"
/**
 * IBNM_RDMA_PATH_PORT:
 *
 * The name of the #IbnmRdmaPath:port property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PATH_PORT "port"
/**
 * IBNM_RDMA_PATH_NETDEV:
 *
 * The name of the #IbnmRdmaPath:netdev property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PATH_NETDEV "netdev"
/**
 * IBNM_RDMA_PATH_PROTOCOL:
 *
 * The name of the #IbnmRdmaPath:protocol property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PATH_PROTOCOL "protocol"
/**
 * IBNM_RDMA_PATH_GID_INDEX:
 *
 * The name of the #IbnmRdmaPath:gid-index property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PATH_GID_INDEX "gid-index"
/**
 * IBNM_RDMA_PATH_GID:
 *
 * The name of the #IbnmRdmaPath:gid property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PATH_GID "gid"
/**
 * IBNM_RDMA_PATH_TOS:
 *
 * The name of the #IbnmRdmaPath:tos property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PATH_TOS "tos"
/**
 * IBNM_RDMA_PATH_SERVICE_LEVEL:
 *
 * The name of the #IbnmRdmaPath:service-level property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PATH_SERVICE_LEVEL "service-level"
/**
 * IBNM_RDMA_PATH_PRIORITY:
 *
 * The name of the #IbnmRdmaPath:priority property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PATH_PRIORITY "priority"
/**
 * IBNM_RDMA_PATH_MTU:
 *
 * The name of the #IbnmRdmaPath:mtu property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PATH_MTU "mtu"

const char *ibnm_rdma_path_get_address(IbnmRdmaPath *self);
const char *ibnm_rdma_path_get_device(IbnmRdmaPath *self);
guint ibnm_rdma_path_get_port(IbnmRdmaPath *self);
const char *ibnm_rdma_path_get_netdev(IbnmRdmaPath *self);
const char *ibnm_rdma_path_get_protocol(IbnmRdmaPath *self);
gint ibnm_rdma_path_get_gid_index(IbnmRdmaPath *self);
const char *ibnm_rdma_path_get_gid(IbnmRdmaPath *self);
gint ibnm_rdma_path_get_tos(IbnmRdmaPath *self);
gint ibnm_rdma_path_get_service_level(IbnmRdmaPath *self);
gint ibnm_rdma_path_get_priority(IbnmRdmaPath *self);
guint ibnm_rdma_path_get_mtu(IbnmRdmaPath *self);

/**
 * IbnmRdmaTestResult:
 *
 * What an RDMA test measured: the ping-pong's round trips, the RDMA
 * writes' bandwidth in each direction, and both sides' paths. The same on
 * both sides: the client reports its figures to the listener. Read only.
 *
 * Since: 0.1
 */
#define IBNM_TYPE_RDMA_TEST_RESULT (ibnm_rdma_test_result_get_type())
G_DECLARE_FINAL_TYPE(IbnmRdmaTestResult, ibnm_rdma_test_result, IBNM, RDMA_TEST_RESULT, GObject)

/**
 * IBNM_RDMA_TEST_RESULT_LISTENER:
 *
 * The name of the #IbnmRdmaTestResult:listener property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_RESULT_LISTENER "listener"
/**
 * IBNM_RDMA_TEST_RESULT_ROUND_TRIPS:
 *
 * The name of the #IbnmRdmaTestResult:round-trips property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_RESULT_ROUND_TRIPS "round-trips"
/**
 * IBNM_RDMA_TEST_RESULT_PING_SIZE:
 *
 * The name of the #IbnmRdmaTestResult:ping-size property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_RESULT_PING_SIZE "ping-size"
/**
 * IBNM_RDMA_TEST_RESULT_LATENCY_MIN:
 *
 * The name of the #IbnmRdmaTestResult:latency-min property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_RESULT_LATENCY_MIN "latency-min"
/**
 * IBNM_RDMA_TEST_RESULT_LATENCY_MEDIAN:
 *
 * The name of the #IbnmRdmaTestResult:latency-median property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_RESULT_LATENCY_MEDIAN "latency-median"
/**
 * IBNM_RDMA_TEST_RESULT_LATENCY_P99:
 *
 * The name of the #IbnmRdmaTestResult:latency-p99 property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_RESULT_LATENCY_P99 "latency-p99"
/**
 * IBNM_RDMA_TEST_RESULT_LATENCY_MAX:
 *
 * The name of the #IbnmRdmaTestResult:latency-max property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_RESULT_LATENCY_MAX "latency-max"
/**
 * IBNM_RDMA_TEST_RESULT_LATENCY_MEAN:
 *
 * The name of the #IbnmRdmaTestResult:latency-mean property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_RESULT_LATENCY_MEAN "latency-mean"
/**
 * IBNM_RDMA_TEST_RESULT_WRITE_SIZE:
 *
 * The name of the #IbnmRdmaTestResult:write-size property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_RESULT_WRITE_SIZE "write-size"
/**
 * IBNM_RDMA_TEST_RESULT_BANDWIDTH:
 *
 * The name of the #IbnmRdmaTestResult:bandwidth property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_RESULT_BANDWIDTH "bandwidth"
/**
 * IBNM_RDMA_TEST_RESULT_WRITE_SECONDS:
 *
 * The name of the #IbnmRdmaTestResult:write-seconds property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_RESULT_WRITE_SECONDS "write-seconds"
/**
 * IBNM_RDMA_TEST_RESULT_REVERSE_BANDWIDTH:
 *
 * The name of the #IbnmRdmaTestResult:reverse-bandwidth property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_RESULT_REVERSE_BANDWIDTH "reverse-bandwidth"
/**
 * IBNM_RDMA_TEST_RESULT_REVERSE_WRITE_SECONDS:
 *
 * The name of the #IbnmRdmaTestResult:reverse-write-seconds property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_RESULT_REVERSE_WRITE_SECONDS "reverse-write-seconds"

gboolean ibnm_rdma_test_result_get_listener(IbnmRdmaTestResult *self);
IbnmRdmaPath *ibnm_rdma_test_result_get_local_path(IbnmRdmaTestResult *self);
IbnmRdmaPath *ibnm_rdma_test_result_get_peer_path(IbnmRdmaTestResult *self);
guint ibnm_rdma_test_result_get_round_trips(IbnmRdmaTestResult *self);
guint ibnm_rdma_test_result_get_ping_size(IbnmRdmaTestResult *self);
gdouble ibnm_rdma_test_result_get_latency_min(IbnmRdmaTestResult *self);
gdouble ibnm_rdma_test_result_get_latency_median(IbnmRdmaTestResult *self);
gdouble ibnm_rdma_test_result_get_latency_p99(IbnmRdmaTestResult *self);
gdouble ibnm_rdma_test_result_get_latency_max(IbnmRdmaTestResult *self);
gdouble ibnm_rdma_test_result_get_latency_mean(IbnmRdmaTestResult *self);
guint ibnm_rdma_test_result_get_write_size(IbnmRdmaTestResult *self);
gdouble ibnm_rdma_test_result_get_bandwidth(IbnmRdmaTestResult *self);
gdouble ibnm_rdma_test_result_get_write_seconds(IbnmRdmaTestResult *self);
gdouble ibnm_rdma_test_result_get_reverse_bandwidth(IbnmRdmaTestResult *self);
gdouble ibnm_rdma_test_result_get_reverse_write_seconds(IbnmRdmaTestResult *self);

/**
 * IbnmRdmaTest:
 *
 * An RDMA test, as a listener (#IbnmRdmaTest:listen) or a client of one,
 * on librdmacm: it resolves the peer's address and route, connects one RC
 * queue pair, times #IbnmRdmaTest:count ping-pongs of
 * #IbnmRdmaTest:ping-size bytes, writes #IbnmRdmaTest:size bytes at a time
 * with RDMA WRITE for #IbnmRdmaTest:duration milliseconds (each way with
 * #IbnmRdmaTest:bidirectional), and reports both sides' paths. Every wait
 * is bounded by #IbnmRdmaTest:timeout. A simulated host or a sysfs tree
 * has no data path: the test fails there with %IBNM_ERROR_NOT_SUPPORTED.
 *
 * librdmacm keeps the RDMA devices a test used open until the process ends:
 * a process that ran a test over an rxe link cannot delete that link (the
 * kernel waits for the process); `ibnm rdma test` runs in a process of its
 * own.
 *
 * Since: 0.1
 */
#define IBNM_TYPE_RDMA_TEST (ibnm_rdma_test_get_type())
G_DECLARE_FINAL_TYPE(IbnmRdmaTest, ibnm_rdma_test, IBNM, RDMA_TEST, GObject)

/**
 * IBNM_RDMA_TEST_HOST:
 *
 * The name of the #IbnmRdmaTest:host property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_HOST "host"
/**
 * IBNM_RDMA_TEST_LISTEN:
 *
 * The name of the #IbnmRdmaTest:listen property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_LISTEN "listen"
/**
 * IBNM_RDMA_TEST_ADDRESS:
 *
 * The name of the #IbnmRdmaTest:address property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_ADDRESS "address"
/**
 * IBNM_RDMA_TEST_PORT:
 *
 * The name of the #IbnmRdmaTest:port property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_PORT "port"
/**
 * IBNM_RDMA_TEST_SOURCE_ADDRESS:
 *
 * The name of the #IbnmRdmaTest:source-address property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_SOURCE_ADDRESS "source-address"
/**
 * IBNM_RDMA_TEST_INTERFACE:
 *
 * The name of the #IbnmRdmaTest:interface property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_INTERFACE "interface"
/**
 * IBNM_RDMA_TEST_COUNT:
 *
 * The name of the #IbnmRdmaTest:count property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_COUNT "count"
/**
 * IBNM_RDMA_TEST_PING_SIZE:
 *
 * The name of the #IbnmRdmaTest:ping-size property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_PING_SIZE "ping-size"
/**
 * IBNM_RDMA_TEST_SIZE:
 *
 * The name of the #IbnmRdmaTest:size property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_SIZE "size"
/**
 * IBNM_RDMA_TEST_DURATION:
 *
 * The name of the #IbnmRdmaTest:duration property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_DURATION "duration"
/**
 * IBNM_RDMA_TEST_BIDIRECTIONAL:
 *
 * The name of the #IbnmRdmaTest:bidirectional property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_BIDIRECTIONAL "bidirectional"
/**
 * IBNM_RDMA_TEST_TOS:
 *
 * The name of the #IbnmRdmaTest:tos property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_TOS "tos"
/**
 * IBNM_RDMA_TEST_GID_INDEX:
 *
 * The name of the #IbnmRdmaTest:gid-index property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_GID_INDEX "gid-index"
/**
 * IBNM_RDMA_TEST_ROCE_MODE:
 *
 * The name of the #IbnmRdmaTest:roce-mode property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_ROCE_MODE "roce-mode"
/**
 * IBNM_RDMA_TEST_TIMEOUT:
 *
 * The name of the #IbnmRdmaTest:timeout property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_TIMEOUT "timeout"
/**
 * IBNM_RDMA_TEST_ACCEPT_TIMEOUT:
 *
 * The name of the #IbnmRdmaTest:accept-timeout property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_TEST_ACCEPT_TIMEOUT "accept-timeout"

IbnmRdmaTest *ibnm_rdma_test_new(IbnmHost *host);
gboolean ibnm_rdma_test_set_profile(IbnmRdmaTest *self, NMConnection *connection, GError **error);
void ibnm_rdma_test_run_async(IbnmRdmaTest *self,
                              GCancellable *cancellable,
                              GAsyncReadyCallback callback,
                              gpointer user_data);
IbnmRdmaTestResult *ibnm_rdma_test_run_finish(IbnmRdmaTest *self, GAsyncResult *result, GError **error);
IbnmRdmaTestResult *ibnm_rdma_test_run(IbnmRdmaTest *self, GCancellable *cancellable, GError **error);

G_END_DECLS
