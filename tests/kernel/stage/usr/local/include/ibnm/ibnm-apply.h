/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib-object.h>

#include "ibnm-host.h"

G_BEGIN_DECLS

/**
 * IbnmStepState:
 * @IBNM_STEP_STATE_PLANNED: planned, not run (dry run, or after a failure)
 * @IBNM_STEP_STATE_DONE: performed
 * @IBNM_STEP_STATE_FAILED: the kernel refused it; the apply stopped here
 * @IBNM_STEP_STATE_UNDONE: performed, then undone by the rollback
 * @IBNM_STEP_STATE_UNDO_FAILED: performed, and undoing it failed
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
 */
typedef enum {
    IBNM_APPLY_FLAGS_NONE = 0,
    IBNM_APPLY_FLAGS_DRY_RUN = 1 << 0,
    IBNM_APPLY_FLAGS_NO_IP = 1 << 1,
    IBNM_APPLY_FLAGS_RDMA_ONLY = 1 << 2,
} IbnmApplyFlags;

#define IBNM_TYPE_APPLY_FLAGS (ibnm_apply_flags_get_type())
GType ibnm_apply_flags_get_type(void);

/* One platform operation of an apply. */
#define IBNM_TYPE_STEP (ibnm_step_get_type())
G_DECLARE_FINAL_TYPE(IbnmStep, ibnm_step, IBNM, STEP, GObject)

/** Property names of #IbnmStep (read only). */
#define IBNM_STEP_ACTION "action"
#define IBNM_STEP_OBJECT "object"
#define IBNM_STEP_DETAIL "detail"
#define IBNM_STEP_PROFILE "profile"
#define IBNM_STEP_STATE "state"
#define IBNM_STEP_ERROR "error"

const char *ibnm_step_get_action(IbnmStep *self);
const char *ibnm_step_get_object(IbnmStep *self);
const char *ibnm_step_get_detail(IbnmStep *self);
const char *ibnm_step_get_profile(IbnmStep *self);
IbnmStepState ibnm_step_get_state(IbnmStep *self);
const char *ibnm_step_get_error(IbnmStep *self);

/* The outcome of up, down or apply: every step, notes, rollback. */
#define IBNM_TYPE_APPLY_REPORT (ibnm_apply_report_get_type())
G_DECLARE_FINAL_TYPE(IbnmApplyReport, ibnm_apply_report, IBNM, APPLY_REPORT, GObject)

/** Property names of #IbnmApplyReport (read only). */
#define IBNM_APPLY_REPORT_SUCCESS "success"
#define IBNM_APPLY_REPORT_ROLLED_BACK "rolled-back"
#define IBNM_APPLY_REPORT_OPERATIONS "operations"
#define IBNM_APPLY_REPORT_ERROR "error"

gboolean ibnm_apply_report_get_success(IbnmApplyReport *self);
gboolean ibnm_apply_report_get_rolled_back(IbnmApplyReport *self);
guint ibnm_apply_report_get_operations(IbnmApplyReport *self);
GPtrArray *ibnm_apply_report_get_steps(IbnmApplyReport *self);
const char *const *ibnm_apply_report_get_notes(IbnmApplyReport *self);
const char *ibnm_apply_report_get_error(IbnmApplyReport *self);

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
gboolean ibnm_apply_host_files(IbnmHost *host,
                               GPtrArray *profiles,
                               IbnmApplyFlags flags,
                               IbnmApplyReport **report,
                               GError **error);

G_END_DECLS
