/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>
#include <glib-object.h>
#include <NetworkManager.h>

#include "ibnm-host.h"

G_BEGIN_DECLS

/**
 * IbnmStepState:
 * @IBNM_STEP_STATE_PLANNED: planned, not run (dry run, or after a failure)
 * @IBNM_STEP_STATE_DONE: performed
 * @IBNM_STEP_STATE_FAILED: the kernel refused it; the apply stopped here
 * @IBNM_STEP_STATE_UNDONE: performed, then undone by the rollback
 * @IBNM_STEP_STATE_UNDO_FAILED: performed, and undoing it failed
 *
 * What became of one #IbnmStep of an apply.
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_STEP_STATE_PLANNED,
    IBNM_STEP_STATE_DONE,
    IBNM_STEP_STATE_FAILED,
    IBNM_STEP_STATE_UNDONE,
    IBNM_STEP_STATE_UNDO_FAILED,
} IbnmStepState;

#define IBNM_TYPE_STEP_STATE (ibnm_step_state_get_type())
GType ibnm_step_state_get_type(void);

/**
 * IbnmStepAction:
 * @IBNM_STEP_ACTION_CREATE_IPOIB_CHILD: create the IPoIB child of a P_Key ("create-ipoib-child")
 * @IBNM_STEP_ACTION_DELETE_IPOIB_CHILD: delete an IPoIB child ("delete-ipoib-child")
 * @IBNM_STEP_ACTION_CREATE_BOND: create a bond ("create-bond")
 * @IBNM_STEP_ACTION_DELETE_BOND: delete a bond ("delete-bond")
 * @IBNM_STEP_ACTION_SET_BOND_OPTIONS: set a bond's options ("set-bond-options")
 * @IBNM_STEP_ACTION_ENSLAVE: make an interface a port of a bond ("enslave")
 * @IBNM_STEP_ACTION_RELEASE: release a port from its bond ("release")
 * @IBNM_STEP_ACTION_SET_UP: set an interface up ("set-up")
 * @IBNM_STEP_ACTION_SET_DOWN: set an interface down ("set-down")
 * @IBNM_STEP_ACTION_SET_MTU: set an interface's MTU ("set-mtu")
 * @IBNM_STEP_ACTION_SET_TRANSPORT_MODE: set an IPoIB interface's transport mode (datagram or connected) ("set-transport-mode")
 * @IBNM_STEP_ACTION_SET_UMCAST: set an IPoIB interface's umcast ("set-umcast")
 * @IBNM_STEP_ACTION_ADD_ADDRESS: add an IP address ("add-address")
 * @IBNM_STEP_ACTION_REMOVE_ADDRESS: remove an IP address ("remove-address")
 * @IBNM_STEP_ACTION_ADD_ROUTE: add a route ("add-route")
 * @IBNM_STEP_ACTION_REMOVE_ROUTE: remove a route ("remove-route")
 * @IBNM_STEP_ACTION_SET_DNS: give an interface its DNS servers and domains (systemd-resolved) ("set-dns")
 * @IBNM_STEP_ACTION_REVERT_DNS: take an interface's DNS settings back ("revert-dns")
 * @IBNM_STEP_ACTION_ADD_RDMA_LINK: add a soft RDMA link (rxe, siw) ("add-rdma-link")
 * @IBNM_STEP_ACTION_DELETE_RDMA_LINK: delete a soft RDMA link ("delete-rdma-link")
 * @IBNM_STEP_ACTION_SET_ROCE_MODE: set the RDMA-CM default RoCE mode of a port ("set-roce-mode")
 * @IBNM_STEP_ACTION_SET_ROCE_TOS: set the RDMA-CM default ToS of a port ("set-roce-tos")
 * @IBNM_STEP_ACTION_REMOVE_ROCE_DEFAULTS: remove a port's RDMA-CM defaults ("remove-roce-defaults")
 * @IBNM_STEP_ACTION_SET_TRAFFIC_CLASS: set a port's traffic class ("set-traffic-class")
 * @IBNM_STEP_ACTION_CLEAR_TRAFFIC_CLASS: clear a port's traffic class ("clear-traffic-class")
 * @IBNM_STEP_ACTION_SET_TRAFFIC_CLASS_RULE: set a traffic class rule of a port ("set-traffic-class-rule")
 * @IBNM_STEP_ACTION_REMOVE_TRAFFIC_CLASS_RULE: remove a traffic class rule of a port ("remove-traffic-class-rule")
 * @IBNM_STEP_ACTION_SET_TTL: set a port's TTL ("set-ttl")
 * @IBNM_STEP_ACTION_SET_ROCE_ENABLE: enable or disable RoCE on a device ("set-roce-enable")
 * @IBNM_STEP_ACTION_WRITE_FILE: write a host policy file ("write-file")
 *
 * What an #IbnmStep does. Each value's nick is the stable machine word that
 * `ibnm -j` prints as a step's "action" (ibnm_step_action_to_string()).
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_STEP_ACTION_CREATE_IPOIB_CHILD,
    IBNM_STEP_ACTION_DELETE_IPOIB_CHILD,
    IBNM_STEP_ACTION_CREATE_BOND,
    IBNM_STEP_ACTION_DELETE_BOND,
    IBNM_STEP_ACTION_SET_BOND_OPTIONS,
    IBNM_STEP_ACTION_ENSLAVE,
    IBNM_STEP_ACTION_RELEASE,
    IBNM_STEP_ACTION_SET_UP,
    IBNM_STEP_ACTION_SET_DOWN,
    IBNM_STEP_ACTION_SET_MTU,
    IBNM_STEP_ACTION_SET_TRANSPORT_MODE,
    IBNM_STEP_ACTION_SET_UMCAST,
    IBNM_STEP_ACTION_ADD_ADDRESS,
    IBNM_STEP_ACTION_REMOVE_ADDRESS,
    IBNM_STEP_ACTION_ADD_ROUTE,
    IBNM_STEP_ACTION_REMOVE_ROUTE,
    IBNM_STEP_ACTION_SET_DNS,
    IBNM_STEP_ACTION_REVERT_DNS,
    IBNM_STEP_ACTION_ADD_RDMA_LINK,
    IBNM_STEP_ACTION_DELETE_RDMA_LINK,
    IBNM_STEP_ACTION_SET_ROCE_MODE,
    IBNM_STEP_ACTION_SET_ROCE_TOS,
    IBNM_STEP_ACTION_REMOVE_ROCE_DEFAULTS,
    IBNM_STEP_ACTION_SET_TRAFFIC_CLASS,
    IBNM_STEP_ACTION_CLEAR_TRAFFIC_CLASS,
    IBNM_STEP_ACTION_SET_TRAFFIC_CLASS_RULE,
    IBNM_STEP_ACTION_REMOVE_TRAFFIC_CLASS_RULE,
    IBNM_STEP_ACTION_SET_TTL,
    IBNM_STEP_ACTION_SET_ROCE_ENABLE,
    IBNM_STEP_ACTION_WRITE_FILE,
} IbnmStepAction;

#define IBNM_TYPE_STEP_ACTION (ibnm_step_action_get_type())
GType ibnm_step_action_get_type(void);

const char *ibnm_step_action_to_string(IbnmStepAction action);

/**
 * IbnmApplyFlags:
 * @IBNM_APPLY_FLAGS_NONE: apply
 * @IBNM_APPLY_FLAGS_DRY_RUN: plan only; the report lists the steps
 * @IBNM_APPLY_FLAGS_NO_IP: leave IP addresses alone (NetworkManager does IP)
 * @IBNM_APPLY_FLAGS_RDMA_ONLY: only what NetworkManager does not do: soft
 *   RDMA links, RoCE defaults, traffic class/TTL, umcast and the
 *   connected-mode probe (what the dispatcher plugin uses)
 *
 * How ibnm_apply_up(), ibnm_apply_down() and ibnm_apply_host_files() run;
 * the typed RDMA calls (ibnm_apply_rdma_link_add(), ...) take the dry run only.
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_APPLY_FLAGS_NONE = 0,
    IBNM_APPLY_FLAGS_DRY_RUN = 1 << 0,
    IBNM_APPLY_FLAGS_NO_IP = 1 << 1,
    IBNM_APPLY_FLAGS_RDMA_ONLY = 1 << 2,
} IbnmApplyFlags;

#define IBNM_TYPE_APPLY_FLAGS (ibnm_apply_flags_get_type())
GType ibnm_apply_flags_get_type(void);

/**
 * IbnmHostFiles:
 * @IBNM_HOST_FILES_MEMLOCK_POLICY: the memlock limits of group rdma
 *   (/etc/security/limits.d/)
 * @IBNM_HOST_FILES_UDEV_RULES: the udev rules that name IPoIB ports by their
 *   GUID (/etc/udev/rules.d/)
 *
 * The host policy files ibnm_apply_host_files() writes: each only when
 * asked for.
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_HOST_FILES_MEMLOCK_POLICY = 1 << 0,
    IBNM_HOST_FILES_UDEV_RULES = 1 << 1,
} IbnmHostFiles;

#define IBNM_TYPE_HOST_FILES (ibnm_host_files_get_type())
GType ibnm_host_files_get_type(void);

/**
 * IbnmStep:
 *
 * One platform operation of an apply (create an IPoIB child, set an MTU, write
 * a file, ...) and what became of it. An #IbnmApplyReport holds them; they
 * never change.
 *
 * Since: 0.1
 */
#define IBNM_TYPE_STEP (ibnm_step_get_type())
G_DECLARE_FINAL_TYPE(IbnmStep, ibnm_step, IBNM, STEP, GObject)

/**
 * IBNM_STEP_ACTION:
 *
 * The name of the #IbnmStep:action property.
 *
 * Since: 0.1
 */
#define IBNM_STEP_ACTION "action"
/**
 * IBNM_STEP_OBJECT:
 *
 * The name of the #IbnmStep:object property.
 *
 * Since: 0.1
 */
#define IBNM_STEP_OBJECT "object"
/**
 * IBNM_STEP_DETAIL:
 *
 * The name of the #IbnmStep:detail property.
 *
 * Since: 0.1
 */
#define IBNM_STEP_DETAIL "detail"
/**
 * IBNM_STEP_PROFILE:
 *
 * The name of the #IbnmStep:profile property.
 *
 * Since: 0.1
 */
#define IBNM_STEP_PROFILE "profile"
/**
 * IBNM_STEP_STATE:
 *
 * The name of the #IbnmStep:state property.
 *
 * Since: 0.1
 */
#define IBNM_STEP_STATE "state"
/**
 * IBNM_STEP_ERROR:
 *
 * The name of the #IbnmStep:error property.
 *
 * Since: 0.1
 */
#define IBNM_STEP_ERROR "error"

IbnmStepAction ibnm_step_get_action(IbnmStep *self);
const char *ibnm_step_get_object(IbnmStep *self);
const char *ibnm_step_get_detail(IbnmStep *self);
const char *ibnm_step_get_profile(IbnmStep *self);
IbnmStepState ibnm_step_get_state(IbnmStep *self);
const char *ibnm_step_get_error(IbnmStep *self);

/**
 * IbnmApplyReport:
 *
 * The outcome of ibnm_apply_up(), ibnm_apply_down(), ibnm_apply_host_files(),
 * the typed RDMA calls, ibnm_apply_up_transaction(), ibnm_transaction_undo()
 * or ibnm_state_apply(): every step in order, notes for the user, whether it
 * succeeded and whether a failure was rolled back. Each returns it whether
 * or not it succeeded (ibnm_apply_report_propagate_error() gives the
 * failure as a #GError). It never changes.
 *
 * Since: 0.1
 */
#define IBNM_TYPE_APPLY_REPORT (ibnm_apply_report_get_type())
G_DECLARE_FINAL_TYPE(IbnmApplyReport, ibnm_apply_report, IBNM, APPLY_REPORT, GObject)

/**
 * IBNM_APPLY_REPORT_SUCCESS:
 *
 * The name of the #IbnmApplyReport:success property.
 *
 * Since: 0.1
 */
#define IBNM_APPLY_REPORT_SUCCESS "success"
/**
 * IBNM_APPLY_REPORT_ROLLED_BACK:
 *
 * The name of the #IbnmApplyReport:rolled-back property.
 *
 * Since: 0.1
 */
#define IBNM_APPLY_REPORT_ROLLED_BACK "rolled-back"
/**
 * IBNM_APPLY_REPORT_OPERATIONS:
 *
 * The name of the #IbnmApplyReport:operations property.
 *
 * Since: 0.1
 */
#define IBNM_APPLY_REPORT_OPERATIONS "operations"
/**
 * IBNM_APPLY_REPORT_ERROR:
 *
 * The name of the #IbnmApplyReport:error property.
 *
 * Since: 0.1
 */
#define IBNM_APPLY_REPORT_ERROR "error"
/**
 * IBNM_APPLY_REPORT_STARTED:
 *
 * The name of the #IbnmApplyReport:started property.
 *
 * Since: 0.1
 */
#define IBNM_APPLY_REPORT_STARTED "started"

gboolean ibnm_apply_report_get_success(IbnmApplyReport *self);
gboolean ibnm_apply_report_get_rolled_back(IbnmApplyReport *self);
guint ibnm_apply_report_get_operations(IbnmApplyReport *self);
GPtrArray *ibnm_apply_report_get_steps(IbnmApplyReport *self);
const char *const *ibnm_apply_report_get_notes(IbnmApplyReport *self);
const char *const *ibnm_apply_report_get_not_restored(IbnmApplyReport *self);
const char *ibnm_apply_report_get_error(IbnmApplyReport *self);
gboolean ibnm_apply_report_propagate_error(IbnmApplyReport *self, GError **error);
gboolean ibnm_apply_report_get_started(IbnmApplyReport *self);
const char *ibnm_apply_report_get_host_digest(IbnmApplyReport *self);

/**
 * IbnmActiveConnection:
 *
 * A profile that ibnm_apply_up() activated in standalone mode, as
 * NetworkManager's active connections: the interface it is active on and
 * whether the activation completed. The record behind it (what the
 * activation created and changed, with the values to restore) is
 * docs/active-connections.md. It never changes.
 *
 * Since: 0.1
 */
#define IBNM_TYPE_ACTIVE_CONNECTION (ibnm_active_connection_get_type())
G_DECLARE_FINAL_TYPE(IbnmActiveConnection, ibnm_active_connection, IBNM, ACTIVE_CONNECTION, GObject)

/**
 * IBNM_ACTIVE_CONNECTION_UUID:
 *
 * The name of the #IbnmActiveConnection:uuid property.
 *
 * Since: 0.1
 */
#define IBNM_ACTIVE_CONNECTION_UUID "uuid"
/**
 * IBNM_ACTIVE_CONNECTION_ID:
 *
 * The name of the #IbnmActiveConnection:id property.
 *
 * Since: 0.1
 */
#define IBNM_ACTIVE_CONNECTION_ID "id"
/**
 * IBNM_ACTIVE_CONNECTION_DEVICE:
 *
 * The name of the #IbnmActiveConnection:device property.
 *
 * Since: 0.1
 */
#define IBNM_ACTIVE_CONNECTION_DEVICE "device"
/**
 * IBNM_ACTIVE_CONNECTION_STATE:
 *
 * The name of the #IbnmActiveConnection:state property.
 *
 * Since: 0.1
 */
#define IBNM_ACTIVE_CONNECTION_STATE "state"

const char *ibnm_active_connection_get_uuid(IbnmActiveConnection *self);
const char *ibnm_active_connection_get_id(IbnmActiveConnection *self);
const char *ibnm_active_connection_get_device(IbnmActiveConnection *self);
NMActiveConnectionState ibnm_active_connection_get_state(IbnmActiveConnection *self);

/**
 * IbnmProgressCallback:
 * @phase: what is being done, translated, for people ("Writing profiles")
 * @done: how many items of @phase are finished
 * @total: how many items @phase has
 * @user_data: the data given with the callback
 *
 * Hears the progress of long work, as #GFileProgressCallback does for
 * g_file_copy(): ibnm_state_apply() of a thousand profiles calls it, in the
 * thread that called it and only while that call runs, each time an item
 * of the current phase is finished (a step on the host, a profile written).
 *
 * Since: 0.1
 */
typedef void (*IbnmProgressCallback)(const char *phase, guint done, guint total, gpointer user_data);

IbnmApplyReport *ibnm_apply_up(IbnmHost *host, GPtrArray *profiles, GPtrArray *all_profiles, IbnmApplyFlags flags);
IbnmApplyReport *ibnm_apply_down(IbnmHost *host, GPtrArray *profiles, GPtrArray *all_profiles, IbnmApplyFlags flags);
void ibnm_apply_up_async(IbnmHost *host,
                         GPtrArray *profiles,
                         GPtrArray *all_profiles,
                         IbnmApplyFlags flags,
                         GCancellable *cancellable,
                         GAsyncReadyCallback callback,
                         gpointer user_data);
IbnmApplyReport *ibnm_apply_up_finish(IbnmHost *host, GAsyncResult *result, GError **error);
void ibnm_apply_down_async(IbnmHost *host,
                           GPtrArray *profiles,
                           GPtrArray *all_profiles,
                           IbnmApplyFlags flags,
                           GCancellable *cancellable,
                           GAsyncReadyCallback callback,
                           gpointer user_data);
IbnmApplyReport *ibnm_apply_down_finish(IbnmHost *host, GAsyncResult *result, GError **error);
GPtrArray *ibnm_apply_get_active_connections(IbnmHost *host, GError **error);
GPtrArray *ibnm_apply_get_active_devices(IbnmHost *host,
                                         GPtrArray *profiles,
                                         GPtrArray *all_profiles,
                                         GError **error);
IbnmApplyReport *ibnm_apply_host_files(IbnmHost *host,
                                       IbnmHostFiles files,
                                       GPtrArray *profiles,
                                       IbnmApplyFlags flags);

G_END_DECLS
