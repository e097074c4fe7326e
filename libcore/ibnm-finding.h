/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * IbnmSeverity:
 * @IBNM_SEVERITY_INFO: worth knowing; nothing is wrong
 * @IBNM_SEVERITY_WARNING: the profile works, but not as the user may expect
 * @IBNM_SEVERITY_ERROR: the profile cannot work (NetworkManager or the kernel refuses it)
 *
 * How bad an #IbnmFinding is.
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_SEVERITY_INFO,
    IBNM_SEVERITY_WARNING,
    IBNM_SEVERITY_ERROR,
} IbnmSeverity;

#define IBNM_TYPE_SEVERITY (ibnm_severity_get_type())
GType ibnm_severity_get_type(void);

/**
 * IbnmFinding:
 *
 * One result of checking profiles: the profile and property it is about, a
 * severity, a translated message (prefixed with the property, NetworkManager
 * style) and, where useful, a hint how to fix it. Immutable.
 *
 * Since: 0.1
 */
#define IBNM_TYPE_FINDING (ibnm_finding_get_type())
G_DECLARE_FINAL_TYPE(IbnmFinding, ibnm_finding, IBNM, FINDING, GObject)

/**
 * IBNM_FINDING_PROFILE_ID:
 *
 * The name of the #IbnmFinding:profile-id property.
 *
 * Since: 0.1
 */
#define IBNM_FINDING_PROFILE_ID "profile-id"
/**
 * IBNM_FINDING_PROPERTY:
 *
 * The name of the #IbnmFinding:property property.
 *
 * Since: 0.1
 */
#define IBNM_FINDING_PROPERTY "property"
/**
 * IBNM_FINDING_SEVERITY:
 *
 * The name of the #IbnmFinding:severity property.
 *
 * Since: 0.1
 */
#define IBNM_FINDING_SEVERITY "severity"
/**
 * IBNM_FINDING_MESSAGE:
 *
 * The name of the #IbnmFinding:message property.
 *
 * Since: 0.1
 */
#define IBNM_FINDING_MESSAGE "message"
/**
 * IBNM_FINDING_HINT:
 *
 * The name of the #IbnmFinding:hint property.
 *
 * Since: 0.1
 */
#define IBNM_FINDING_HINT "hint"
/**
 * IBNM_FINDING_RELATED_PROFILES:
 *
 * The name of the #IbnmFinding:related-profiles property.
 *
 * Since: 0.1
 */
#define IBNM_FINDING_RELATED_PROFILES "related-profiles"

IbnmFinding *ibnm_finding_new(const char *profile_id, const char *property, IbnmSeverity severity,
                              const char *message, const char *hint);
const char *ibnm_finding_get_profile_id(IbnmFinding *finding);
const char *ibnm_finding_get_property(IbnmFinding *finding);
IbnmSeverity ibnm_finding_get_severity(IbnmFinding *finding);
const char *ibnm_finding_get_message(IbnmFinding *finding);
const char *ibnm_finding_get_hint(IbnmFinding *finding);
const char *const *ibnm_finding_get_related_profiles(IbnmFinding *finding);
gboolean ibnm_finding_involves(IbnmFinding *finding, const char *profile_id);

G_END_DECLS
