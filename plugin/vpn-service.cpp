// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "plugin/vpn-service.hpp"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include <syslog.h>

namespace ibnm::vpn {

namespace {

std::string format(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
std::string format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    std::string out = s;
    g_free(s);
    return out;
}

constexpr const char *kNmService = "org.freedesktop.NetworkManager";
constexpr const char *kActivePrefix = "/org/freedesktop/NetworkManager/ActiveConnection/";

// One property of a NetworkManager object, or nullptr with `error` set.
GVariant *nmProperty(GDBusConnection *bus, const std::string &path, const char *interface, const char *name,
                     GError **error)
{
    GVariant *reply = g_dbus_connection_call_sync(bus, kNmService, path.c_str(), "org.freedesktop.DBus.Properties",
                                                  "Get", g_variant_new("(ss)", interface, name),
                                                  G_VARIANT_TYPE("(v)"), G_DBUS_CALL_FLAGS_NONE, 5000, nullptr, error);
    if (reply == nullptr)
        return nullptr;
    GVariant *value = nullptr;
    g_variant_get(reply, "(v)", &value);
    g_variant_unref(reply);
    return value;
}

// The active VPN connection of profile `uuid` among NetworkManager's.
std::string findActiveByUuid(GDBusConnection *bus, const char *uuid, GError **error)
{
    GVariant *list = nmProperty(bus, "/org/freedesktop/NetworkManager", kNmService, "ActiveConnections", error);
    if (list == nullptr)
        return "";
    std::string found;
    GVariantIter iter;
    const char *path = nullptr;
    g_variant_iter_init(&iter, list);
    while (found.empty() && g_variant_iter_next(&iter, "&o", &path)) {
        GVariant *u = nmProperty(bus, path, "org.freedesktop.NetworkManager.Connection.Active", "Uuid", nullptr);
        GVariant *vpn = nmProperty(bus, path, "org.freedesktop.NetworkManager.Connection.Active", "Vpn", nullptr);
        if (u && vpn && g_variant_is_of_type(u, G_VARIANT_TYPE_STRING) &&
            g_variant_is_of_type(vpn, G_VARIANT_TYPE_BOOLEAN) && g_strcmp0(g_variant_get_string(u, nullptr), uuid) == 0 &&
            g_variant_get_boolean(vpn))
            found = path;
        if (u)
            g_variant_unref(u);
        if (vpn)
            g_variant_unref(vpn);
    }
    g_variant_unref(list);
    if (found.empty())
        g_set_error(error, IBNM_VPN_PLUGIN_ERROR, NM_VPN_PLUGIN_ERROR_BAD_ARGUMENTS,
                    _("NetworkManager has no active VPN connection of profile %s"), uuid);
    return found;
}

} // namespace

std::string activePathOfBusName(const std::string &busName)
{
    std::string prefix = std::string(IBNM_SECONDARY_SERVICE_TYPE) + ".Connection_";
    if (busName.compare(0, prefix.size(), prefix) != 0)
        return "";
    std::string n = busName.substr(prefix.size());
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos)
        return "";
    return kActivePrefix + n;
}

bool findBaseInterface(GDBusConnection *bus, const std::string &activePath, const char *uuid, std::string &ifname,
                       GError **error)
{
    std::string path = activePath.empty() ? findActiveByUuid(bus, uuid, error) : activePath;
    if (path.empty())
        return false;
    GVariant *devices = nmProperty(bus, path, "org.freedesktop.NetworkManager.Connection.Active", "Devices", error);
    if (devices == nullptr)
        return false;
    std::string device;
    if (g_variant_is_of_type(devices, G_VARIANT_TYPE_OBJECT_PATH_ARRAY) && g_variant_n_children(devices) > 0) {
        const char *p = nullptr;
        g_variant_get_child(devices, 0, "&o", &p);
        device = p;
    }
    g_variant_unref(devices);
    if (device.empty()) {
        g_set_error(error, IBNM_VPN_PLUGIN_ERROR, NM_VPN_PLUGIN_ERROR_BAD_ARGUMENTS,
                    _("NetworkManager activates the RDMA secondary on no device: activate it as a secondary of the "
                      "device's profile (connection.secondaries)"));
        return false;
    }
    GVariant *name = nmProperty(bus, device, "org.freedesktop.NetworkManager.Device", "Interface", error);
    if (name == nullptr)
        return false;
    ifname = g_variant_is_of_type(name, G_VARIANT_TYPE_STRING) ? g_variant_get_string(name, nullptr) : "";
    g_variant_unref(name);
    return !ifname.empty();
}

// The minimal Config NetworkManager 1.42 accepts for a VPN connection with
// no tunnel and no IP of its own (src/core/vpn/nm-vpn-connection.c):
// - no "tundev": the VPN then uses the base device's ifindex
//   (_config_process_generic(): _set_ip_ifindex() with the device's);
// - "has-ip4" and "has-ip6" false: no Ip4Config/Ip6Config is awaited, so
//   _check_complete() activates the connection on this one signal;
// - a "gateway", which NetworkManager insists on whatever the rest says:
//   with neither an IPv4 nor an IPv6 one _config_process_generic() logs
//   "config: no VPN gateway address received" and fails the connection
//   (the prototype in the NM lab met exactly this). NetworkManager uses
//   it for one thing only: a host route to it through the base device
//   (_parent_device_l3cd_add_gateway_route()), added when the kernel
//   resolves it through that device in the main table. An IPv4 address
//   would resolve through the device's default route (even 127.0.0.1 with
//   the device as output interface) and get a stray route; the IPv6
//   multicast address ff02::1 resolves to the local table ("multicast
//   ff02::1 dev X table local"), or fails where IPv6 is off, so no route
//   is ever added. It is given as the IPv6 gateway (an "ay") and no IPv4
//   one ("u"), which both NetworkManager and libnm's
//   nm_vpn_service_plugin_set_config() look up by type.
GVariant *minimalConfig()
{
    static const guint8 allNodes[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
    GVariantBuilder b;
    g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
    g_variant_builder_add(&b, "{sv}", NM_VPN_PLUGIN_CONFIG_EXT_GATEWAY,
                          g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, allNodes, sizeof allNodes, 1));
    g_variant_builder_add(&b, "{sv}", NM_VPN_PLUGIN_CONFIG_HAS_IP4, g_variant_new_boolean(FALSE));
    g_variant_builder_add(&b, "{sv}", NM_VPN_PLUGIN_CONFIG_HAS_IP6, g_variant_new_boolean(FALSE));
    return g_variant_ref_sink(g_variant_builder_end(&b));
}

Activation::Activation(IbnmHost *host, unsigned deadlineMs, Logger log)
    : host_(IBNM_HOST(g_object_ref(host))), deadlineMs_(deadlineMs), log_(log)
{
}

Activation::~Activation()
{
    g_clear_object(&transaction_);
    g_object_unref(host_);
}

std::string Activation::recordPath() const
{
    const char *dir = ibnm_host_get_runtime_dir(host_);
    if (dir == nullptr || uuid_.empty())
        return "";
    return std::string(dir) + "/secondaries/" + uuid_;
}

// The record of an activation: the interface and the soft RDMA links it
// created, so that the next activation of the profile can take them over
// when this one ends without a Disconnect (runtime state, gone at reboot
// with what it describes). Bookkeeping: a failure to write it fails nothing.
void Activation::writeRecord(const std::vector<std::string> &links) const
{
    std::string path = recordPath();
    if (path.empty())
        return;
    GKeyFile *kf = g_key_file_new();
    g_key_file_set_string(kf, "secondary", "id", id_.c_str());
    g_key_file_set_string(kf, "secondary", "interface", ifname_.c_str());
    std::vector<const char *> names;
    for (const auto &l : links)
        names.push_back(l.c_str());
    g_key_file_set_string_list(kf, "secondary", "created-links", names.data(), names.size());
    gsize len = 0;
    char *text = g_key_file_to_data(kf, &len, nullptr);
    char *dir = g_path_get_dirname(path.c_str());
    g_mkdir_with_parents(dir, 0755);
    g_file_set_contents_full(path.c_str(), text, gssize(len), G_FILE_SET_CONTENTS_CONSISTENT, 0644, nullptr);
    g_free(dir);
    g_free(text);
    g_key_file_unref(kf);
}

std::vector<std::string> Activation::readRecord() const
{
    std::vector<std::string> links;
    std::string path = recordPath();
    GKeyFile *kf = g_key_file_new();
    if (!path.empty() && g_key_file_load_from_file(kf, path.c_str(), G_KEY_FILE_NONE, nullptr)) {
        gsize n = 0;
        char **l = g_key_file_get_string_list(kf, "secondary", "created-links", &n, nullptr);
        for (gsize i = 0; i < n; i++)
            links.emplace_back(l[i]);
        g_strfreev(l);
    }
    g_key_file_unref(kf);
    return links;
}

void Activation::logReport(IbnmApplyReport *report) const
{
    if (report == nullptr)
        return;
    GPtrArray *steps = ibnm_apply_report_get_steps(report);
    for (guint i = 0; i < steps->len; i++) {
        auto *s = IBNM_STEP(g_ptr_array_index(steps, i));
        GEnumClass *k = static_cast<GEnumClass *>(g_type_class_ref(IBNM_TYPE_STEP_STATE));
        GEnumValue *v = g_enum_get_value(k, ibnm_step_get_state(s));
        const char *err = ibnm_step_get_error(s);
        log_(ibnm_step_get_state(s) == IBNM_STEP_STATE_FAILED ? LOG_ERR : LOG_INFO,
             std::string(v ? v->value_nick : "?") + " " + ibnm_step_action_to_string(ibnm_step_get_action(s)) + " " + ibnm_step_get_object(s) +
                 ": " + ibnm_step_get_detail(s) + (err ? std::string(": ") + err : ""));
        g_type_class_unref(k);
    }
    for (const char *const *n = ibnm_apply_report_get_notes(report); n && *n; n++)
        log_(LOG_NOTICE, *n);
}

bool Activation::connect(NMConnection *secondary, const std::string &ifname, GError **error)
{
    g_return_val_if_fail(!connected_, false);
    uuid_ = nm_connection_get_uuid(secondary) ? nm_connection_get_uuid(secondary) : "";
    id_ = nm_connection_get_id(secondary) ? nm_connection_get_id(secondary) : "";
    ifname_ = ifname;
    GError *local = nullptr;
    NMConnection *profile = ibnm_secondary_new_on_device(secondary, ifname.c_str(), &local);
    if (profile == nullptr) {
        g_set_error(error, IBNM_VPN_PLUGIN_ERROR, NM_VPN_PLUGIN_ERROR_BAD_ARGUMENTS, "%s: %s", id_.c_str(),
                    local->message);
        g_error_free(local);
        return false;
    }
    log_(LOG_INFO, format(_("provisioning %s (%s) on %s"), id_.c_str(), uuid_.c_str(), ifname.c_str()));
    GPtrArray *profiles = g_ptr_array_new_with_free_func(g_object_unref);
    g_ptr_array_add(profiles, profile);
    ibnm_host_set_deadline(host_, g_get_monotonic_time() + gint64(deadlineMs_) * 1000);
    IbnmApplyReport *report = ibnm_apply_up_transaction(
        host_, profiles, IbnmApplyFlags(IBNM_APPLY_FLAGS_RDMA_ONLY | IBNM_APPLY_FLAGS_NO_IP), &transaction_);
    ibnm_host_set_deadline(host_, 0);
    g_ptr_array_unref(profiles);
    logReport(report);
    ibnm_apply_report_propagate_error(report, &local);
    g_clear_object(&report);
    if (transaction_ == nullptr) {
        // The apply undid what it had done: nothing is left on the host.
        // libibnm's message names the setting, and the profile when the
        // planner refused (not when a module could not be loaded).
        std::string text = local->message;
        if (text.compare(0, id_.size() + 2, id_ + ": ") != 0)
            text = id_ + ": " + text;
        log_(LOG_ERR, text);
        g_set_error_literal(error, IBNM_VPN_PLUGIN_ERROR, NM_VPN_PLUGIN_ERROR_LAUNCH_FAILED, text.c_str());
        g_error_free(local);
        return false;
    }
    // Links an earlier activation created and never removed (its service
    // ended without a Disconnect) are this activation's now.
    adopted_ = readRecord();
    std::vector<std::string> links = adopted_;
    GPtrArray *steps = ibnm_transaction_get_steps(transaction_);
    for (guint i = 0; i < steps->len; i++) {
        auto *s = IBNM_STEP(g_ptr_array_index(steps, i));
        if (ibnm_step_get_action(s) == IBNM_STEP_ACTION_ADD_RDMA_LINK)
            links.emplace_back(ibnm_step_get_object(s));
    }
    g_ptr_array_unref(steps);
    writeRecord(links);
    connected_ = true;
    return true;
}

bool Activation::disconnect(bool keepHost, GError **error)
{
    if (!connected_)
        return true;
    connected_ = false;
    if (keepHost) {
        log_(LOG_NOTICE, format(_("%s: NetworkManager went away: what the activation provisioned on %s stays, as "
                                  "NetworkManager leaves its devices, until the profile's next activation ends"),
                                id_.c_str(), ifname_.c_str()));
        g_clear_object(&transaction_);
        return true;
    }
    ibnm_host_set_deadline(host_, g_get_monotonic_time() + gint64(deadlineMs_) * 1000);
    GError *local = nullptr;
    IbnmApplyReport *report = ibnm_transaction_undo(transaction_);
    bool ok = ibnm_apply_report_propagate_error(report, &local);
    logReport(report);
    g_clear_object(&report);
    g_clear_object(&transaction_);
    for (const auto &link : adopted_) {
        GError *e = nullptr;
        report = ibnm_apply_rdma_link_delete(host_, link.c_str(), IBNM_APPLY_FLAGS_NONE);
        if (!ibnm_apply_report_propagate_error(report, &e)) {
            // Gone already (someone deleted it): nothing to undo.
            if (!g_error_matches(e, IBNM_ERROR, IBNM_ERROR_NOT_FOUND) && local == nullptr)
                local = g_error_copy(e);
            g_error_free(e);
        }
        logReport(report);
        g_clear_object(&report);
    }
    adopted_.clear();
    ibnm_host_set_deadline(host_, 0);
    if (!ok || local) {
        log_(LOG_ERR, id_ + ": " + local->message);
        g_set_error(error, IBNM_VPN_PLUGIN_ERROR, NM_VPN_PLUGIN_ERROR_FAILED, "%s: %s", id_.c_str(), local->message);
        g_error_free(local);
        return false;
    }
    std::string path = recordPath();
    if (!path.empty())
        g_unlink(path.c_str());
    log_(LOG_INFO, format(_("%s: undone on %s"), id_.c_str(), ifname_.c_str()));
    return true;
}

} // namespace ibnm::vpn
