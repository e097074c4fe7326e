// SPDX-License-Identifier: LGPL-2.1-or-later
// libnm-vpn-plugin-ibnm.so: the editor plugin of ibnm's RDMA secondaries,
// which libnm's clients (nm-connection-editor, GNOME Settings, nmcli) load
// through the `plugin` of the .name file (NMVpnEditorPlugin): its name,
// description and service, and the page, which lives in a second module
// built for the toolkit of the program that loads it (as
// NetworkManager-libreswan and -openvpn do): libnm-vpn-plugin-ibnm-editor.so
// for GTK 3 (nm-connection-editor 1.30), libnm-gtk4-vpn-plugin-ibnm-editor.so
// for GTK 4 (GNOME Settings). This module itself links no toolkit.
//
// No import or export: the settings are a handful of keys that nmcli and
// the page set, and a file format of its own would be one more thing to
// keep in step with vpn.data; nothing is offered that could not be read
// back as written.
#include "config.h"

#include "libcore/ibnm-secondary.h"
#include "libcore/support/gobject.hpp"
#include "plugin/nm-vpn-error.hpp"

#include <NetworkManager.h>
#include <glib/gi18n-lib.h>
#include <gmodule.h>

#include <dlfcn.h>

struct IbnmVpnEditorPlugin {
    GObject parent_instance;
};
struct IbnmVpnEditorPluginClass {
    GObjectClass parent_class;
};
struct IbnmVpnEditorPluginPrivate {};

namespace {

void pluginIfaceInit(NMVpnEditorPluginInterface *iface);

enum { PROP_0, PROP_NAME, PROP_DESCRIPTION, PROP_SERVICE };

} // namespace

#define IBNM_TYPE_VPN_EDITOR_PLUGIN (ibnm_vpn_editor_plugin_get_type())
GType ibnm_vpn_editor_plugin_get_type(void);
IBNM_DEFINE_TYPE_FULL(IbnmVpnEditorPlugin, ibnm_vpn_editor_plugin, G_TYPE_OBJECT, G_TYPE_FLAG_FINAL,
                      G_IMPLEMENT_INTERFACE(NM_TYPE_VPN_EDITOR_PLUGIN, pluginIfaceInit))

namespace {

// The page's factory, from the module for this program's toolkit, opened
// once: a module that registered GTypes cannot be unloaded.
using EditorFactory = NMVpnEditor *(*)(NMVpnEditorPlugin *plugin, NMConnection *connection, GError **error);

EditorFactory loadEditorFactory(GError **error)
{
    static EditorFactory factory = nullptr;
    if (factory)
        return factory;
    // GTK 3 has gtk_container_add, GTK 4 has not (libreswan's test).
    gpointer gtk3Only = nullptr;
    GModule *self = g_module_open(nullptr, G_MODULE_BIND_LAZY);
    g_module_symbol(self, "gtk_container_add", &gtk3Only);
    g_module_close(self);
    const char *name = gtk3Only ? "libnm-vpn-plugin-ibnm-editor.so" : "libnm-gtk4-vpn-plugin-ibnm-editor.so";
    // Next to this module, wherever it is installed.
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void *>(&loadEditorFactory), &info) || info.dli_fname == nullptr) {
        g_set_error(error, IBNM_VPN_PLUGIN_ERROR, NM_VPN_PLUGIN_ERROR_FAILED, _("cannot find where %s is installed"),
                    "libnm-vpn-plugin-ibnm.so");
        return nullptr;
    }
    char *dir = g_path_get_dirname(info.dli_fname);
    char *path = g_build_filename(dir, name, nullptr);
    g_free(dir);
    GModule *module = g_module_open(path, GModuleFlags(G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL));
    gpointer symbol = nullptr;
    if (module == nullptr || !g_module_symbol(module, "nm_vpn_editor_factory_ibnm", &symbol)) {
        g_set_error(error, IBNM_VPN_PLUGIN_ERROR, NM_VPN_PLUGIN_ERROR_FAILED, _("cannot load the editor page %s: %s"),
                    path, g_module_error());
        if (module)
            g_module_close(module);
        g_free(path);
        return nullptr;
    }
    g_free(path);
    g_module_make_resident(module);
    factory = reinterpret_cast<EditorFactory>(symbol);
    return factory;
}

NMVpnEditor *getEditor(NMVpnEditorPlugin *plugin, NMConnection *connection, GError **error)
{
    g_return_val_if_fail(NM_IS_CONNECTION(connection), nullptr);
    EditorFactory factory = loadEditorFactory(error);
    return factory ? factory(plugin, connection, error) : nullptr;
}

NMVpnEditorPluginCapability getCapabilities(NMVpnEditorPlugin *)
{
    return NM_VPN_EDITOR_PLUGIN_CAPABILITY_NONE;
}

void pluginIfaceInit(NMVpnEditorPluginInterface *iface)
{
    iface->get_editor = getEditor;
    iface->get_capabilities = getCapabilities;
}

void getProperty(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    switch (id) {
    case PROP_NAME:
        g_value_set_string(value, _("RDMA provisioning (ibnm)"));
        break;
    case PROP_DESCRIPTION:
        g_value_set_string(value, _("Soft RDMA links, RoCE defaults and traffic class on the device of the profile "
                                    "that lists this one as a secondary connection"));
        break;
    case PROP_SERVICE:
        g_value_set_string(value, IBNM_SECONDARY_SERVICE_TYPE);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

} // namespace

static void ibnm_vpn_editor_plugin_class_init_impl(IbnmVpnEditorPluginClass *klass)
{
    GObjectClass *object = G_OBJECT_CLASS(klass);
    object->get_property = getProperty;
    g_object_class_override_property(object, PROP_NAME, NM_VPN_EDITOR_PLUGIN_NAME);
    g_object_class_override_property(object, PROP_DESCRIPTION, NM_VPN_EDITOR_PLUGIN_DESCRIPTION);
    g_object_class_override_property(object, PROP_SERVICE, NM_VPN_EDITOR_PLUGIN_SERVICE);
}

extern "C" G_MODULE_EXPORT NMVpnEditorPlugin *nm_vpn_editor_plugin_factory(GError **error)
{
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    // As libibnm binds it (libcore/support/i18n.cpp), which this module
    // does not link: IBNM_LOCALEDIR for catalogues not yet installed.
    const char *dir = g_getenv("IBNM_LOCALEDIR");
    bindtextdomain(GETTEXT_PACKAGE, dir && *dir ? dir : LOCALEDIR);
    bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
    return NM_VPN_EDITOR_PLUGIN(g_object_new(IBNM_TYPE_VPN_EDITOR_PLUGIN, nullptr));
}
