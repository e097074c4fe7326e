/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

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

const char *ibnm_step_get_action(IbnmStep *self);
const char *ibnm_step_get_object(IbnmStep *self);
const char *ibnm_step_get_detail(IbnmStep *self);
const char *ibnm_step_get_profile(IbnmStep *self);
IbnmStepState ibnm_step_get_state(IbnmStep *self);
const char *ibnm_step_get_error(IbnmStep *self);

/**
 * IbnmApplyReport:
 *
 * The outcome of ibnm_apply_up(), ibnm_apply_down() or
 * ibnm_apply_host_files(): every step in order, notes for the user, whether it
 * succeeded and whether a failure was rolled back. It never changes.
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

gboolean ibnm_apply_report_get_success(IbnmApplyReport *self);
gboolean ibnm_apply_report_get_rolled_back(IbnmApplyReport *self);
guint ibnm_apply_report_get_operations(IbnmApplyReport *self);
GPtrArray *ibnm_apply_report_get_steps(IbnmApplyReport *self);
const char *const *ibnm_apply_report_get_notes(IbnmApplyReport *self);
const char *const *ibnm_apply_report_get_not_restored(IbnmApplyReport *self);
const char *ibnm_apply_report_get_error(IbnmApplyReport *self);
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

gboolean ibnm_apply_up(IbnmHost *host,
                       GPtrArray *profiles,
                       GPtrArray *all_profiles,
                       IbnmApplyFlags flags,
                       IbnmApplyReport **report,
                       GError **error);
gboolean ibnm_apply_down(IbnmHost *host,
                         GPtrArray *profiles,
                         GPtrArray *all_profiles,
                         IbnmApplyFlags flags,
                         IbnmApplyReport **report,
                         GError **error);
GPtrArray *ibnm_apply_get_active_connections(IbnmHost *host, GError **error);
GPtrArray *ibnm_apply_get_active_devices(IbnmHost *host,
                                         GPtrArray *profiles,
                                         GPtrArray *all_profiles,
                                         GError **error);
gboolean ibnm_apply_host_files(IbnmHost *host,
                               IbnmHostFiles files,
                               GPtrArray *profiles,
                               IbnmApplyFlags flags,
                               IbnmApplyReport **report,
                               GError **error);

G_END_DECLS
