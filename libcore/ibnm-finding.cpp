// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm-finding.h"

#include "libcore/profiles/profile-rules.hpp"
#include "libcore/support/gobject.hpp"

#include "libcore/support/raii.hpp"
#include "libcore/support/shared-text.hpp"

#include <string>

GType ibnm_severity_get_type(void)
{
    static gsize type = 0;
    if (g_once_init_enter(&type)) {
        static const GEnumValue values[] = {
            {IBNM_SEVERITY_INFO, "IBNM_SEVERITY_INFO", "info"},
            {IBNM_SEVERITY_WARNING, "IBNM_SEVERITY_WARNING", "warning"},
            {IBNM_SEVERITY_ERROR, "IBNM_SEVERITY_ERROR", "error"},
            {0, nullptr, nullptr},
        };
        g_once_init_leave(&type, g_enum_register_static(g_intern_static_string("IbnmSeverity"), values));
    }
    return type;
}

struct _IbnmFinding {
    GObject parent_instance;
};

// The profile, the property and the hint are interned: a check of 10,000
// profiles makes thousands of findings that share a few of each (one copy
// of every hint was 0.9 MB of `ibnm check`'s peak). The message, each
// finding's own, is held at its length.
struct IbnmFindingPrivate {
    ibnm::SharedText profileId_;
    ibnm::SharedText property_;
    IbnmSeverity severity_ = IBNM_SEVERITY_INFO;
    ibnm::GCharPtr message_; // NULL: none
    ibnm::SharedText hint_;
    ibnm::GStrvPtr related_; // NULL: none
};

enum { PROP_0, PROP_PROFILE_ID, PROP_PROPERTY, PROP_SEVERITY, PROP_MESSAGE, PROP_HINT, PROP_RELATED_PROFILES, N_PROPS };
static GParamSpec *props[N_PROPS];

IBNM_DEFINE_FINAL_TYPE(IbnmFinding, ibnm_finding, G_TYPE_OBJECT)

static void ibnm_finding_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
    auto *priv = ibnm_finding_priv(object);
    switch (prop_id) {
    case PROP_PROFILE_ID:
        priv->profileId_ = ibnm::SharedText(g_value_get_string(value));
        break;
    case PROP_PROPERTY:
        priv->property_ = ibnm::SharedText(g_value_get_string(value));
        break;
    case PROP_SEVERITY:
        priv->severity_ = IbnmSeverity(g_value_get_enum(value));
        break;
    case PROP_MESSAGE:
        priv->message_.reset(g_strdup(g_value_get_string(value)));
        break;
    case PROP_HINT:
        priv->hint_ = ibnm::SharedText(g_value_get_string(value));
        break;
    case PROP_RELATED_PROFILES: {
        auto *v = static_cast<char **>(g_value_get_boxed(value));
        priv->related_.reset(v && *v ? g_strdupv(v) : nullptr);
        break;
    }
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void ibnm_finding_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    auto *self = IBNM_FINDING(object);
    switch (prop_id) {
    case PROP_PROFILE_ID:
        g_value_set_string(value, ibnm_finding_get_profile_id(self));
        break;
    case PROP_PROPERTY:
        g_value_set_string(value, ibnm_finding_get_property(self));
        break;
    case PROP_SEVERITY:
        g_value_set_enum(value, ibnm_finding_get_severity(self));
        break;
    case PROP_MESSAGE:
        g_value_set_string(value, ibnm_finding_get_message(self));
        break;
    case PROP_HINT:
        g_value_set_string(value, ibnm_finding_get_hint(self));
        break;
    case PROP_RELATED_PROFILES:
        g_value_set_boxed(value, ibnm_finding_get_related_profiles(self));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void ibnm_finding_class_init_impl(IbnmFindingClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->set_property = ibnm_finding_set_property;
    object_class->get_property = ibnm_finding_get_property;

    auto flags = GParamFlags(G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS |
                             G_PARAM_EXPLICIT_NOTIFY);
    props[PROP_PROFILE_ID] = g_param_spec_string(IBNM_FINDING_PROFILE_ID, nullptr, nullptr, nullptr, flags);
    props[PROP_PROPERTY] = g_param_spec_string(IBNM_FINDING_PROPERTY, nullptr, nullptr, nullptr, flags);
    props[PROP_SEVERITY] = g_param_spec_enum(IBNM_FINDING_SEVERITY, nullptr, nullptr, IBNM_TYPE_SEVERITY,
                                             IBNM_SEVERITY_INFO, flags);
    props[PROP_MESSAGE] = g_param_spec_string(IBNM_FINDING_MESSAGE, nullptr, nullptr, nullptr, flags);
    props[PROP_HINT] = g_param_spec_string(IBNM_FINDING_HINT, nullptr, nullptr, nullptr, flags);
    props[PROP_RELATED_PROFILES] =
        g_param_spec_boxed(IBNM_FINDING_RELATED_PROFILES, nullptr, nullptr, G_TYPE_STRV, flags);
    g_object_class_install_properties(object_class, N_PROPS, props);
}

/**
 * ibnm_finding_new:
 * @profile_id: (nullable): the id of the profile the finding is about
 * @property: (nullable): `setting.property`, e.g. `infiniband.mtu`
 * @severity: how bad it is
 * @message: the translated message, prefixed with the property
 * @hint: (nullable): how to fix it
 *
 * Creates a finding from its construct-only properties. The checks make
 * findings; this is for callers that add their own.
 *
 * Returns: (transfer full): a new finding.
 *
 * Since: 0.1
 */
IbnmFinding *ibnm_finding_new(const char *profile_id, const char *property, IbnmSeverity severity,
                              const char *message, const char *hint)
{
    g_return_val_if_fail(message != nullptr, nullptr);
    return IBNM_FINDING(g_object_new(IBNM_TYPE_FINDING, IBNM_FINDING_PROFILE_ID, profile_id,
                                     IBNM_FINDING_PROPERTY, property, IBNM_FINDING_SEVERITY, severity,
                                     IBNM_FINDING_MESSAGE, message, IBNM_FINDING_HINT, hint, nullptr));
}

IbnmFinding *ibnm::rules::newFinding(Finding &&f)
{
    auto *finding = IBNM_FINDING(g_object_new(IBNM_TYPE_FINDING, nullptr));
    auto *priv = ibnm_finding_priv(finding);
    priv->profileId_ = std::move(f.profileId);
    priv->property_ = std::move(f.property);
    priv->severity_ = f.severity;
    priv->message_.reset(g_strdup(f.message.c_str()));
    priv->hint_ = std::move(f.hint);
    if (!f.related.empty()) {
        char **related = g_new(char *, f.related.size() + 1);
        for (size_t i = 0; i < f.related.size(); i++)
            related[i] = g_strdup(f.related[i].c_str());
        related[f.related.size()] = nullptr;
        priv->related_.reset(related);
    }
    return finding;
}

/**
 * IbnmFinding:profile-id:
 *
 * The profile's id, "" when none.
 *
 * Since: 0.1
 */
/**
 * ibnm_finding_get_profile_id:
 * @finding: the object
 *
 * Gets the #IbnmFinding:profile-id property.
 *
 * Returns: (transfer none): the profile's id, "" when none.
 *
 * Since: 0.1
 */
const char *ibnm_finding_get_profile_id(IbnmFinding *self)
{
    g_return_val_if_fail(IBNM_IS_FINDING(self), nullptr);
    return ibnm_finding_priv(self)->profileId_.c_str();
}

/**
 * IbnmFinding:property:
 *
 * `setting.property`, "" when none.
 *
 * Since: 0.1
 */
/**
 * ibnm_finding_get_property:
 * @finding: the object
 *
 * Gets the #IbnmFinding:property property.
 *
 * Returns: (transfer none): `setting.property`, "" when none.
 *
 * Since: 0.1
 */
const char *ibnm_finding_get_property(IbnmFinding *self)
{
    g_return_val_if_fail(IBNM_IS_FINDING(self), nullptr);
    return ibnm_finding_priv(self)->property_.c_str();
}

/**
 * IbnmFinding:severity:
 *
 * How bad the finding is.
 *
 * Since: 0.1
 */
/**
 * ibnm_finding_get_severity:
 * @finding: the object
 *
 * Gets the #IbnmFinding:severity property.
 *
 * Returns: how bad the finding is.
 *
 * Since: 0.1
 */
IbnmSeverity ibnm_finding_get_severity(IbnmFinding *self)
{
    g_return_val_if_fail(IBNM_IS_FINDING(self), IBNM_SEVERITY_ERROR);
    return ibnm_finding_priv(self)->severity_;
}

/**
 * IbnmFinding:message:
 *
 * The translated message.
 *
 * Since: 0.1
 */
/**
 * ibnm_finding_get_message:
 * @finding: the object
 *
 * Gets the #IbnmFinding:message property.
 *
 * Returns: (transfer none): the translated message.
 *
 * Since: 0.1
 */
const char *ibnm_finding_get_message(IbnmFinding *self)
{
    g_return_val_if_fail(IBNM_IS_FINDING(self), nullptr);
    const auto &m = ibnm_finding_priv(self)->message_;
    return m ? m.get() : "";
}

/**
 * IbnmFinding:hint:
 *
 * The hint, NULL when there is none.
 *
 * Since: 0.1
 */
/**
 * ibnm_finding_get_hint:
 * @finding: the object
 *
 * Gets the #IbnmFinding:hint property.
 *
 * Returns: (transfer none) (nullable): the hint, NULL when there is none.
 *
 * Since: 0.1
 */
const char *ibnm_finding_get_hint(IbnmFinding *self)
{
    g_return_val_if_fail(IBNM_IS_FINDING(self), nullptr);
    auto *priv = ibnm_finding_priv(self);
    return priv->hint_.empty() ? nullptr : priv->hint_.c_str();
}

/**
 * IbnmFinding:related-profiles:
 *
 * The ids of the other profiles the finding involves: the ports whose type
 * makes a bond's mode wrong, the profile that claims the same interface, the
 * profile whose addition made a plan of several fail. Empty when the
 * finding is about its profile alone.
 *
 * Since: 0.1
 */
/**
 * ibnm_finding_get_related_profiles:
 * @finding: the object
 *
 * Gets the #IbnmFinding:related-profiles property: which other profiles
 * the finding involves, so that a caller checking a change can tell the
 * findings that change causes (about its profile, or involving it) from
 * those that were there without it.
 *
 * Returns: (transfer none) (array zero-terminated=1): the ids of the other
 *   profiles the finding involves; empty, never %NULL.
 *
 * Since: 0.1
 */
const char *const *ibnm_finding_get_related_profiles(IbnmFinding *self)
{
    g_return_val_if_fail(IBNM_IS_FINDING(self), nullptr);
    static const char *const none[] = {nullptr};
    auto *priv = ibnm_finding_priv(self);
    return priv->related_ ? priv->related_.get() : none;
}

/**
 * ibnm_finding_involves:
 * @finding: the object
 * @profile_id: a profile's id
 *
 * Whether the finding is about the profile or involves it
 * (#IbnmFinding:related-profiles).
 *
 * Returns: %TRUE when @profile_id is the finding's profile or one of its
 *   related profiles
 *
 * Since: 0.1
 */
gboolean ibnm_finding_involves(IbnmFinding *self, const char *profile_id)
{
    g_return_val_if_fail(IBNM_IS_FINDING(self), FALSE);
    g_return_val_if_fail(profile_id != nullptr, FALSE);
    auto *priv = ibnm_finding_priv(self);
    return priv->profileId_ == profile_id ||
           (priv->related_ && g_strv_contains(priv->related_.get(), profile_id));
}
