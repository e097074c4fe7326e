/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Declarative state: an nmstate document (YAML or JSON) applied to the
 * profile store and the host as one transaction, and the stored profiles
 * described as such a document. The schema is libcore/state/nmstate.hpp's
 * (docs/declarative-state.md). */
#pragma once

#include <glib-object.h>

#include "ibnm-apply.h"
#include "ibnm-host.h"
#include "ibnm-settings.h"

G_BEGIN_DECLS

/**
 * IBNM_STATE_MAX_DOCUMENT_SIZE:
 *
 * The size in bytes of the largest document ibnm_state_apply() reads
 * (32 MiB); a larger one is refused, naming it. The other limits of a
 * document (64 levels of nesting, 65,536 interfaces) are in
 * docs/declarative-state.md.
 *
 * Since: 0.1
 */
#define IBNM_STATE_MAX_DOCUMENT_SIZE (32 * 1024 * 1024)

/**
 * IbnmStateChange:
 *
 * What ibnm_state_apply() did, or would do in a dry run, to one interface's
 * profile. It never changes.
 *
 * Since: 0.1
 */
#define IBNM_TYPE_STATE_CHANGE (ibnm_state_change_get_type())
G_DECLARE_FINAL_TYPE(IbnmStateChange, ibnm_state_change, IBNM, STATE_CHANGE, GObject)

/**
 * IbnmStateChangeAction:
 * @IBNM_STATE_CHANGE_ACTION_NONE: the profile stays as it is ("none")
 * @IBNM_STATE_CHANGE_ACTION_ADD: a profile is added ("add")
 * @IBNM_STATE_CHANGE_ACTION_MODIFY: the profile is changed ("modify")
 * @IBNM_STATE_CHANGE_ACTION_DELETE: the profile is deleted ("delete")
 *
 * What ibnm_state_apply() does to an interface's profile. Each value's nick
 * is the word `ibnm apply` prints (its JSON's "action").
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_STATE_CHANGE_ACTION_NONE,
    IBNM_STATE_CHANGE_ACTION_ADD,
    IBNM_STATE_CHANGE_ACTION_MODIFY,
    IBNM_STATE_CHANGE_ACTION_DELETE,
} IbnmStateChangeAction;

#define IBNM_TYPE_STATE_CHANGE_ACTION (ibnm_state_change_action_get_type())
GType ibnm_state_change_action_get_type(void);

IbnmStateChangeAction ibnm_state_change_get_action(IbnmStateChange *self);
const char *ibnm_state_change_get_interface(IbnmStateChange *self);
/* "up", "down" or "absent", as the document asks */
const char *ibnm_state_change_get_state(IbnmStateChange *self);
/* The profile's id (nullptr for an absent interface without one). */
const char *ibnm_state_change_get_profile(IbnmStateChange *self);
/* The keyfile lines that change: "-[infiniband] mtu=2044", "+[infiniband] mtu=4092". */
const char *const *ibnm_state_change_get_diff(IbnmStateChange *self);

IbnmApplyReport *ibnm_state_apply(IbnmSettings *settings,
                                  IbnmHost *host,
                                  const char *text,
                                  gssize length,
                                  const char *filename,
                                  IbnmApplyFlags flags,
                                  IbnmProgressCallback progress_callback,
                                  gpointer progress_callback_data,
                                  GPtrArray **changes);

/**
 * IbnmStateFormat:
 * @IBNM_STATE_FORMAT_YAML: YAML, as nmstate writes it
 * @IBNM_STATE_FORMAT_JSON: JSON
 *
 * The text of a state document ibnm_state_show() writes.
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_STATE_FORMAT_YAML,
    IBNM_STATE_FORMAT_JSON,
} IbnmStateFormat;

#define IBNM_TYPE_STATE_FORMAT (ibnm_state_format_get_type())
GType ibnm_state_format_get_type(void);

char *ibnm_state_show(IbnmSettings *settings, IbnmHost *host, IbnmStateFormat format, GError **error);

G_END_DECLS
