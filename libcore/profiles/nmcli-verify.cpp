// SPDX-License-Identifier: LGPL-2.1-or-later
// NetworkManager's verify() through libnm, with its error named
// "setting.property" (ibnm check, connection add and modify ask it).
#include "config.h"

#include "libcore/profiles/nmcli-args.hpp"

#include "libcore/support/i18n.hpp"

#include <string>

namespace ibnm::nmcli {

namespace {

// The mark markVerified() leaves on a connection (object data): none or
// verified as it is.
enum Mark : int { kUnmarked = 0, kVerified = 1 };

GQuark markQuark()
{
    static const GQuark q = g_quark_from_static_string("ibnm-nm-verified");
    return q;
}

Mark markOf(NMConnection *connection)
{
    return Mark(GPOINTER_TO_INT(g_object_get_qdata(G_OBJECT(connection), markQuark())));
}

// Any connection's "changed": the mark goes. One emission hook for every
// connection (a handler and closure each cost 10,000 profiles ~3 MB); it
// stays installed (returns TRUE).
gboolean forgetVerified(GSignalInvocationHint *, guint n, const GValue *params, gpointer)
{
    if (n > 0 && G_VALUE_HOLDS_OBJECT(&params[0]))
        if (GObject *object = static_cast<GObject *>(g_value_get_object(&params[0])))
            g_object_set_qdata(object, markQuark(), nullptr);
    return TRUE;
}

} // namespace

void markVerified(NMConnection *connection)
{
    static const bool hooked = [] {
        guint changed = g_signal_lookup(NM_CONNECTION_CHANGED, NM_TYPE_CONNECTION);
        g_signal_add_emission_hook(changed, 0, forgetVerified, nullptr, nullptr);
        return true;
    }();
    (void)hooked;
    g_object_set_qdata(G_OBJECT(connection), markQuark(), GINT_TO_POINTER(kVerified));
}

Error verifyError(NMConnection *connection, const GError *error, NMSetting *failed)
{
    std::string message = error->message;
    // libnm 1.42 prefixes some errors with "setting.property", some with the
    // property alone ("p-key: ..."): name the setting everywhere.
    if (failed) {
        std::string name = nm_setting_get_name(failed);
        auto colon = message.find(": ");
        if (colon != std::string::npos && message.compare(0, name.size() + 1, name + ".") != 0 &&
            message.find_first_of(" .'") > colon &&
            g_object_class_find_property(G_OBJECT_GET_CLASS(failed), message.substr(0, colon).c_str()))
            message = name + "." + message;
    }
    // libnm gives the property only as the text's "setting.property: "
    // prefix: this is the one place that reads it, for Error::property().
    Error out(IBNM_ERROR_INVALID_PROPERTY, std::move(message));
    const std::string &m = out.message();
    auto colon = m.find(": ");
    auto dot = m.find('.');
    if (colon != std::string::npos && dot < colon && m.find(' ') > colon) {
        GCharPtr setting(g_strndup(m.c_str(), dot));
        NMSetting *st = nm_connection_get_setting_by_name(connection, setting.get());
        std::string prop = m.substr(dot + 1, colon - dot - 1);
        if (st && g_object_class_find_property(G_OBJECT_GET_CLASS(st), prop.c_str()))
            out = Error(IBNM_ERROR_INVALID_PROPERTY, m.substr(colon + 2)).withProperty(m.substr(0, colon));
    }
    return out;
}

Status verify(NMConnection *connection)
{
    // libnm 1.42's nm_connection_verify() sets its GError twice for some
    // normalizable errors (an MTU above 65520), which GLib warns about: ask
    // it without an error first, then the settings one by one, in libnm's
    // order, for the reason.
    if (markOf(connection) == kVerified)
        return {}; // verified as it is (markVerified())
    if (nm_connection_verify(connection, nullptr))
        return {};
    guint n = 0;
    GCharPtr settings(reinterpret_cast<char *>(nm_connection_get_settings(connection, &n)));
    auto **list = reinterpret_cast<NMSetting **>(settings.get());
    for (guint i = 0; i < n; i++) {
        GErrorPtr e;
        bool ok = nm_setting_verify(list[i], connection, outPtr(e));
        if (!ok && e)
            return verifyError(connection, e.get(), list[i]);
    }
    GErrorPtr err;
    bool ok = nm_connection_verify(connection, outPtr(err));
    if (ok || !err)
        return Error(IBNM_ERROR_INVALID_PROPERTY, _("the profile is not valid"));
    // Every setting verified alone: the error is the connection's.
    return verifyError(connection, err.get(), nullptr);
}
} // namespace ibnm::nmcli
