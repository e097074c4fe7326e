// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm's NetworkManager VPN service, for RDMA secondaries: the service's D-Bus
// side and its run (vpn-service-plugin.hpp), which the installed
// nm-ibnm-service (plugin/nm-ibnm-service.cpp) runs on this machine and the
// tests' own program (tests/plugin/nm-ibnm-service-test.cpp) on a simulated
// host.
//
// NetworkManager starts it (one process per activation, `--bus-name
// org.freedesktop.NetworkManager.ibnm.Connection_<N>`: the .name file says
// supports-multiple-connections) when it activates a VPN profile of service
// type org.freedesktop.NetworkManager.ibnm, typically as a secondary of the
// base profile of the device (connection.secondaries). Connect provisions
// the rdma.* settings of the profile's vpn.data on the base device through
// libibnm's apply path (RDMA only: NetworkManager does the device and IP)
// and reports a Config without a tunnel; a refusal returns the GError, which
// NetworkManager logs ("failed to connect: '...'"), and the base activation
// fails ("A secondary connection of the base connection failed", nmcli exit
// 4) with nothing left on the host. Disconnect undoes exactly what Connect
// did. The plumbing is libnm's NMVpnServicePlugin; the work is in
// vpn-service.cpp.
#include "config.h"

#include "libcore/support/gobject.hpp"
#include "libcore/support/raii.hpp"
#include "plugin/vpn-service-plugin.hpp"
#include "plugin/vpn-service.hpp"

#include <NetworkManager.h>
#include <glib/gi18n.h>

#include <clocale>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include <syslog.h>

namespace {

FILE *gLog = nullptr;
bool gSyslog = false;

// stderr (NetworkManager collects a plugin's output in its own log when it
// runs in the foreground), syslog when NetworkManager says so
// (NM_VPN_LOG_SYSLOG=1), and the test configuration's log file. Control
// characters are escaped: a profile id must not forge a line.
void logLine(int priority, const std::string &line)
{
    std::string msg = ibnm::plugin::escapeLogText(line.c_str());
    std::fprintf(stderr, "nm-ibnm-service[%d]: %s\n", int(getpid()), msg.c_str());
    if (gSyslog)
        syslog(priority, "%s", msg.c_str());
    if (gLog) {
        std::fprintf(gLog, "%s\n", msg.c_str());
        std::fflush(gLog);
    }
}

} // namespace

struct IbnmVpnService {
    NMVpnServicePlugin parent_instance;
};
struct IbnmVpnServiceClass {
    NMVpnServicePluginClass parent_class;
};
struct IbnmVpnServicePrivate {
    std::unique_ptr<ibnm::vpn::Activation> activation;
    std::string activePath; // from the bus name NetworkManager gave
    std::string nmOwner;    // NetworkManager's unique bus name at Connect
    guint configSource = 0;
    ~IbnmVpnServicePrivate()
    {
        if (configSource)
            g_source_remove(configSource);
    }
};

#define IBNM_TYPE_VPN_SERVICE (ibnm_vpn_service_get_type())
GType ibnm_vpn_service_get_type(void);
IBNM_DEFINE_TYPE(IbnmVpnService, ibnm_vpn_service, NM_TYPE_VPN_SERVICE_PLUGIN)

namespace {

std::string nameOwner(GDBusConnection *bus, const char *name)
{
    GVariant *r = g_dbus_connection_call_sync(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                              "org.freedesktop.DBus", "GetNameOwner", g_variant_new("(s)", name),
                                              G_VARIANT_TYPE("(s)"), G_DBUS_CALL_FLAGS_NONE, 2000, nullptr, nullptr);
    if (r == nullptr)
        return "";
    const char *owner = nullptr;
    g_variant_get(r, "(&s)", &owner);
    std::string out = owner;
    g_variant_unref(r);
    return out;
}

// The Config goes out once Connect has returned: libnm sets the plugin's
// state to "starting" after the connect vfunc, which would undo a
// "started" the Config set from inside it.
gboolean sendConfig(gpointer data)
{
    auto *self = static_cast<IbnmVpnService *>(data);
    ibnm_vpn_service_priv(self)->configSource = 0;
    GVariant *config = ibnm::vpn::minimalConfig();
    nm_vpn_service_plugin_set_config(NM_VPN_SERVICE_PLUGIN(self), config);
    g_variant_unref(config);
    return G_SOURCE_REMOVE;
}

gboolean serviceConnect(NMVpnServicePlugin *plugin, NMConnection *connection, GError **error)
{
    IbnmVpnServicePrivate *priv = ibnm_vpn_service_priv(plugin);
    GDBusConnection *bus = nm_vpn_service_plugin_get_connection(plugin);
    std::string ifname;
    if (!ibnm::vpn::findBaseInterface(bus, priv->activePath, nm_connection_get_uuid(connection), ifname, error)) {
        logLine(LOG_ERR, (*error)->message);
        return FALSE;
    }
    priv->nmOwner = nameOwner(bus, "org.freedesktop.NetworkManager");
    if (!priv->activation->connect(connection, ifname, error))
        return FALSE;
    priv->configSource = g_idle_add(sendConfig, plugin);
    return TRUE;
}

gboolean serviceConnectInteractive(NMVpnServicePlugin *plugin, NMConnection *connection, GVariant *, GError **error)
{
    return serviceConnect(plugin, connection, error);
}

gboolean serviceNeedSecrets(NMVpnServicePlugin *, NMConnection *, const char **, GError **)
{
    return FALSE; // no secrets
}

gboolean serviceDisconnect(NMVpnServicePlugin *plugin, GError **error)
{
    IbnmVpnServicePrivate *priv = ibnm_vpn_service_priv(plugin);
    if (priv->configSource) {
        g_source_remove(priv->configSource);
        priv->configSource = 0;
    }
    // libnm disconnects when the peer that called Connect leaves the bus
    // (watch-peer): NetworkManager restarting or crashing. That is no
    // deactivation: the host stays as it is.
    GDBusConnection *bus = nm_vpn_service_plugin_get_connection(plugin);
    bool nmGone = priv->nmOwner.empty() || nameOwner(bus, priv->nmOwner.c_str()).empty();
    return priv->activation->disconnect(nmGone, error);
}

} // namespace

static void ibnm_vpn_service_class_init_impl(IbnmVpnServiceClass *klass)
{
    auto *plugin = NM_VPN_SERVICE_PLUGIN_CLASS(klass);
    plugin->connect = serviceConnect;
    plugin->connect_interactive = serviceConnectInteractive;
    plugin->need_secrets = serviceNeedSecrets;
    plugin->disconnect = serviceDisconnect;
}

int ibnm::plugin::runVpnService(int argc, char **argv, const HostSetup &setup)
{
    gSyslog = g_strcmp0(g_getenv("NM_VPN_LOG_SYSLOG"), "1") == 0;
    openlog("nm-ibnm-service", LOG_PID, LOG_DAEMON);
    ibnm::GErrorPtr error;
    LogCopy logCopy(setup, gLog);
    std::string busName = IBNM_SECONDARY_SERVICE_TYPE;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--bus-name") == 0 && i + 1 < argc) {
            busName = argv[++i];
        } else {
            std::fprintf(stderr, _("Usage: %s [--bus-name NAME] (started by NetworkManager)\n"), argv[0]);
            return 2;
        }
    }
    IbnmHost *host = setup.newHost(setup.data, ibnm::outPtr(error));
    if (host == nullptr) {
        logLine(LOG_ERR, error->message);
        return 1;
    }
    auto *service = static_cast<IbnmVpnService *>(
        g_initable_new(IBNM_TYPE_VPN_SERVICE, nullptr, ibnm::outPtr(error), NM_VPN_SERVICE_PLUGIN_DBUS_SERVICE_NAME,
                       busName.c_str(), NM_VPN_SERVICE_PLUGIN_DBUS_WATCH_PEER, TRUE, nullptr));
    if (service == nullptr) {
        logLine(LOG_ERR, std::string(busName) + ": " + error->message);
        g_object_unref(host);
        return 1;
    }
    // Provisioning and undoing run within the D-Bus call NetworkManager
    // waits for (25 s): a deadline well inside it leaves time to undo.
    IbnmVpnServicePrivate *priv = ibnm_vpn_service_priv(service);
    priv->activation = std::make_unique<ibnm::vpn::Activation>(host, setup.timeoutMs ? setup.timeoutMs : 15000,
                                                               logLine);
    priv->activePath = ibnm::vpn::activePathOfBusName(busName);
    g_object_unref(host);

    GMainLoop *loop = g_main_loop_new(nullptr, FALSE);
    g_signal_connect_swapped(service, "quit", G_CALLBACK(g_main_loop_quit), loop);
    g_main_loop_run(loop);
    // A quit on SIGTERM with the connection up undoes it (libnm calls
    // Disconnect); after NetworkManager went away it has ended already.
    nm_vpn_service_plugin_shutdown(NM_VPN_SERVICE_PLUGIN(service));
    // The reply to the Disconnect that stopped it is queued still: out
    // before the process ends (NetworkManager would see no reply).
    if (GDBusConnection *bus = nm_vpn_service_plugin_get_connection(NM_VPN_SERVICE_PLUGIN(service)))
        g_dbus_connection_flush_sync(bus, nullptr, nullptr);
    g_object_unref(service);
    g_main_loop_unref(loop);
    return 0;
}
