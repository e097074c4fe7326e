// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm monitor` and `ibnm device monitor [NAME...]`: the changes of what
// `device status` lists, as they happen, until Ctrl-C, as nmcli's `device
// monitor` prints its devices' ("ib0.8002: device created"): IPoIB
// interfaces created, removed, set up or down; RDMA ports created, removed,
// and their state (ACTIVE, DOWN, INIT...), their GID entries added and
// removed. Each change is one line; -t and -j print one terse line or one
// JSON object per change (docs/json-schema.md).
//
// `ibnm monitor` also prints the changes of the stored profiles, as nmcli's
// `connection monitor` does ("c: connection profile created").
//
// Nothing is read again until something announces a change
// (IbnmHostMonitor: rtnetlink, RDMA netlink and uevents on this machine;
// IbnmSettings::changed: inotify on the keyfile directory, or
// NetworkManager's D-Bus signals); then the inventory (or the store) is read
// once for the burst and compared with the last reading. No kernel
// announces an RDMA port's state: the monitor of libibnm reads the ports'
// state files once a second and announces a difference; nor a GID table's
// (RoCE entries follow addresses, written after rtnetlink announced them):
// it announces a second look half a second later. A simulated host
// announces nothing: it is read again five times a second.
// IBNM_DEBUG=monitor prints each reading on stderr (debug text, for tests).
#include "config.h"

#include "cli/cli.hpp"
#include "cli/output.hpp"

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ibnm::cli {

namespace {

// What a device is at one reading: its type and the state a change of
// which is printed ("up"/"down" for an IPoIB interface, the port state word
// for an RDMA port, "INDEX GID" for a GID entry of a port, which is keyed
// "dev/port#INDEX" and shown as its port `device`, with its type and netdev
// as `detail`).
struct Item {
    const char *type;
    std::string state;
    std::string device; // GID entries: their port
    std::string detail; // GID entries: "RoCE v2, eth0"
};
using Snapshot = std::map<std::string, Item>;

// "4: ACTIVE" -> "ACTIVE", as `device status` shows it.
std::string stateWord(const char *s)
{
    if (!s)
        return "";
    const char *colon = std::strchr(s, ':');
    std::string w = colon ? colon + 1 : s;
    return g_strstrip(w.data());
}

void addGids(Snapshot &s, const std::string &port, IbnmRdmaPort *p)
{
    GPtrArray *gids = ibnm_rdma_port_get_gids(p);
    for (guint i = 0; gids && i < gids->len; i++) {
        auto *g = static_cast<IbnmGid *>(g_ptr_array_index(gids, i));
        std::string index = std::to_string(ibnm_gid_get_index(g));
        std::string detail;
        for (const char *part : {ibnm_gid_get_gid_type(g), ibnm_gid_get_netdev(g)})
            if (part && *part)
                detail += (detail.empty() ? "" : ", ") + std::string(part);
        // As an IPv6 address is written ("::ffff:198.51.100.1"), not as
        // sysfs spells it (eight groups of four digits).
        std::string gid = ibnm_gid_get_gid(g);
        if (Obj<GInetAddress> a{g_inet_address_new_from_string(gid.c_str())}) {
            CharPtr text(g_inet_address_to_string(a.get()));
            gid = text.get();
        }
        s[port + "#" + index] = {"gid", index + " " + gid, port, detail};
    }
}

Snapshot take(IbnmInventory *inv)
{
    Snapshot s;
    PtrArray ipoib(ibnm_inventory_get_ipoib_interfaces(inv));
    for (guint i = 0; i < ipoib->len; i++) {
        auto *x = static_cast<IbnmIpoibInterface *>(g_ptr_array_index(ipoib.get(), i));
        s[ibnm_ipoib_interface_get_name(x)] = {"ipoib", ibnm_ipoib_interface_get_up(x) ? "up" : "down"};
    }
    PtrArray devices(ibnm_inventory_get_devices(inv));
    for (guint i = 0; i < devices->len; i++) {
        GPtrArray *ports = ibnm_rdma_device_get_ports(static_cast<IbnmRdmaDevice *>(g_ptr_array_index(devices.get(), i)));
        for (guint k = 0; ports && k < ports->len; k++) {
            auto *p = static_cast<IbnmRdmaPort *>(g_ptr_array_index(ports, k));
            std::string name = std::string(ibnm_rdma_port_get_device(p)) + "/" +
                               std::to_string(ibnm_rdma_port_get_number(p));
            s[name] = {"rdma", stateWord(ibnm_rdma_port_get_state_text(p))};
            addGids(s, name, p);
        }
    }
    return s;
}

struct Event {
    std::string device;
    const char *type;  // "ipoib", "rdma", "gid", "connection" (a profile: `device` is its name)
    const char *event; // "created", "removed", "link" (IPoIB), "port" (RDMA), "changed" (a profile)
    std::string state;
    std::string detail; // a GID entry's type and netdev (human output only)
};

// Whether `name` is one of `only` (all when empty); an RDMA port (and its
// GID entries) also by its device's name ("mlx5_0" for "mlx5_0/1").
bool wanted(const std::set<std::string> &only, const std::string &name)
{
    return only.empty() || only.count(name) || only.count(name.substr(0, name.find('/'))) ||
           only.count(name.substr(0, name.find('#')));
}

// An entry's event; a GID entry's only while its port stays (the port's
// own line says the rest).
void note(std::vector<Event> &out, const Snapshot &other, const Item &item, const std::string &name, const char *event)
{
    if (std::strcmp(item.type, "gid") != 0)
        out.push_back({name, item.type, event, ""});
    else if (other.count(item.device))
        out.push_back({item.device, item.type, event, item.state, item.detail});
}

std::vector<Event> changes(const Snapshot &before, const Snapshot &after, const std::set<std::string> &only)
{
    std::vector<Event> out;
    for (const auto &[name, item] : before)
        if (!after.count(name) && wanted(only, name))
            note(out, after, item, name, "removed");
    for (const auto &[name, item] : after) {
        if (!wanted(only, name))
            continue;
        auto old = before.find(name);
        if (old == before.end()) {
            note(out, before, item, name, "created");
        } else if (old->second.state != item.state && std::strcmp(item.type, "gid") == 0) {
            note(out, after, old->second, name, "removed"); // another GID at that index
            note(out, before, item, name, "created");
        } else if (old->second.state != item.state) {
            out.push_back({name, item.type, std::strcmp(item.type, "rdma") == 0 ? "port" : "link", item.state});
        }
    }
    return out;
}

// nmcli's terse escapes: ':' and '\'.
std::string terse(const std::string &s)
{
    std::string out;
    for (char c : s)
        out += c == ':' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    return out;
}

void print(const Context &ctx, const Event &e)
{
    if (ctx.options.mode == OutputMode::Json) {
        // One JSON object per line (JSON Lines): a stream has no end to close.
        Obj<JsonBuilder> b(json_builder_new());
        json_builder_begin_object(b.get());
        json_builder_set_member_name(b.get(), "device");
        json_builder_add_string_value(b.get(), e.device.c_str());
        json_builder_set_member_name(b.get(), "type");
        json_builder_add_string_value(b.get(), e.type);
        json_builder_set_member_name(b.get(), "event");
        json_builder_add_string_value(b.get(), e.event);
        json_builder_set_member_name(b.get(), "state");
        if (e.state.empty())
            json_builder_add_null_value(b.get());
        else
            json_builder_add_string_value(b.get(), e.state.c_str());
        json_builder_end_object(b.get());
        JsonNode *root = json_builder_get_root(b.get());
        Obj<JsonGenerator> g(json_generator_new());
        json_generator_set_root(g.get(), root);
        gchar *text = json_generator_to_data(g.get(), nullptr);
        std::printf("%s\n", text);
        g_free(text);
        json_node_unref(root);
    } else if (ctx.options.mode == OutputMode::Terse || ctx.options.getValues) {
        std::printf("%s:%s:%s:%s\n", terse(e.device).c_str(), e.type, e.event, terse(e.state).c_str());
    } else if (std::strcmp(e.type, "connection") == 0) {
        // nmcli's `connection monitor` and `monitor` wording.
        if (std::strcmp(e.event, "created") == 0)
            std::printf(_("%s: connection profile created\n"), e.device.c_str());
        else if (std::strcmp(e.event, "removed") == 0)
            std::printf(_("%s: connection profile removed\n"), e.device.c_str());
        else
            std::printf(_("%s: connection profile changed\n"), e.device.c_str());
    } else if (std::strcmp(e.type, "gid") == 0) {
        std::string gid = e.detail.empty() ? e.state : e.state + " (" + e.detail + ")";
        if (std::strcmp(e.event, "created") == 0)
            std::printf(_("%s: GID %s added\n"), e.device.c_str(), gid.c_str());
        else
            std::printf(_("%s: GID %s removed\n"), e.device.c_str(), gid.c_str());
    } else if (std::strcmp(e.event, "created") == 0) {
        std::printf(_("%s: device created\n"), e.device.c_str());
    } else if (std::strcmp(e.event, "removed") == 0) {
        std::printf(_("%s: device removed\n"), e.device.c_str());
    } else if (std::strcmp(e.event, "link") == 0) {
        std::printf(e.state == "up" ? _("%s: link up\n") : _("%s: link down\n"), e.device.c_str());
    } else {
        std::printf(_("%s: port %s\n"), e.device.c_str(), e.state.c_str());
    }
}

// A profile at one reading: its name and its keyfile text (what a change
// of is "changed"), by UUID.
struct Stored {
    std::string id;
    std::string text;
};
using Profiles = std::map<std::string, Stored>;

Profiles takeProfiles(IbnmSettings *settings)
{
    Profiles out;
    GPtrArray *all = ibnm_settings_get_connections(settings);
    for (guint i = 0; all && i < all->len; i++) {
        auto *c = NM_CONNECTION(g_ptr_array_index(all, i));
        CharPtr text(ibnm_keyfile_to_data(c, nullptr));
        out[nm_connection_get_uuid(c)] = {nm_connection_get_id(c), text ? text.get() : ""};
    }
    return out;
}

std::vector<Event> profileChanges(const Profiles &before, const Profiles &after)
{
    std::vector<Event> out;
    for (const auto &[uuid, p] : before)
        if (!after.count(uuid))
            out.push_back({p.id, "connection", "removed", ""});
    for (const auto &[uuid, p] : after) {
        auto old = before.find(uuid);
        if (old == before.end())
            out.push_back({p.id, "connection", "created", ""});
        else if (old->second.text != p.text)
            out.push_back({p.id, "connection", "changed", ""});
    }
    return out;
}

// How long a burst of announcements is let settle before one reading.
constexpr guint kSettleMs = 20;

struct Monitor {
    Context *ctx;
    IbnmInventory *inventory;
    std::set<std::string> only;
    Snapshot last;
    IbnmSettings *settings = nullptr; // `ibnm monitor` only: the profiles too
    Profiles lastProfiles;
    GMainLoop *loop = nullptr;
    unsigned hostChanges = 0; // IbnmHostChangeFlags announced since the last reading
    bool profilesChanged = false;
    guint settle = 0; // the pending reading's source
    unsigned failures = 0;
    bool debug = false;
    int rc = kExitOk;
};

// IbnmHostChangeFlags as their nicks, "links,ports" (debug text).
std::string nicks(unsigned flags)
{
    std::string out;
    auto *klass = static_cast<GFlagsClass *>(g_type_class_ref(IBNM_TYPE_HOST_CHANGE_FLAGS));
    for (guint i = 0; i < klass->n_values; i++)
        if (klass->values[i].value & flags)
            out += (out.empty() ? "" : ",") + std::string(klass->values[i].value_nick);
    g_type_class_unref(klass);
    return out.empty() ? "none" : out;
}

void stop(Monitor *m, int rc)
{
    m->rc = rc;
    g_main_loop_quit(m->loop);
}

void readHost(Monitor *m)
{
    if (m->debug)
        std::fprintf(stderr, "ibnm: monitor: reading the host (%s)\n", nicks(m->hostChanges).c_str());
    m->hostChanges = 0;
    ErrorPtr err;
    if (!ibnm_inventory_reload(m->inventory, Out(err))) {
        // A device that goes while it is read fails one reading (the next
        // announcement reads again); a host that cannot be read at all ends
        // the monitor.
        if (++m->failures < 5)
            return;
        printError("%s", err->message);
        return stop(m, kExitFailed);
    }
    m->failures = 0;
    Snapshot now = take(m->inventory);
    for (const auto &e : changes(m->last, now, m->only))
        print(*m->ctx, e);
    m->last = std::move(now);
}

void readProfiles(Monitor *m)
{
    if (m->debug)
        std::fprintf(stderr, "ibnm: monitor: reading the profiles\n");
    m->profilesChanged = false;
    ErrorPtr err;
    if (!ibnm_settings_reload(m->settings, Out(err))) {
        printError("%s", err->message);
        return stop(m, kExitFailed);
    }
    Profiles now = takeProfiles(m->settings);
    for (const auto &e : profileChanges(m->lastProfiles, now))
        print(*m->ctx, e);
    m->lastProfiles = std::move(now);
}

gboolean settled(gpointer data)
{
    auto *m = static_cast<Monitor *>(data);
    m->settle = 0;
    if (m->hostChanges)
        readHost(m);
    if (m->profilesChanged)
        readProfiles(m);
    if (std::fflush(stdout) != 0 || std::ferror(stdout))
        stop(m, kExitFailed);
    return G_SOURCE_REMOVE;
}

void announce(Monitor *m)
{
    if (!m->settle)
        m->settle = g_timeout_add(kSettleMs, settled, m);
}

void onHostChanged(IbnmHostMonitor *, guint changes, gpointer data)
{
    auto *m = static_cast<Monitor *>(data);
    m->hostChanges |= changes;
    announce(m);
}

void onProfilesChanged(IbnmSettings *, gpointer data)
{
    auto *m = static_cast<Monitor *>(data);
    m->profilesChanged = true;
    announce(m);
}

gboolean quit(gpointer loop)
{
    g_main_loop_quit(static_cast<GMainLoop *>(loop));
    return G_SOURCE_CONTINUE;
}

// The names to follow (all when none); an exit code after an error.
std::optional<int> parseNames(IbnmInventory *inv, const Args &args, Monitor &m)
{
    for (const auto &a : args) {
        if (a == "help" || a == "--help" || a == "-h") {
            std::fputs(_(kDeviceUsage), stdout);
            return kExitOk;
        }
        if (!a.empty() && a[0] == '-')
            return usageError(nullptr, _("argument '%s' not understood"), a.c_str());
        if (!m.last.count(a) && !ibnm_inventory_find_device(inv, a.c_str())) {
            printError(_("device '%s' not found"), a.c_str());
            return kExitNotFound;
        }
        m.only.insert(a);
    }
    return std::nullopt;
}

// Follows the host (and, with `withProfiles`, the profile store) until a
// signal ends it.
int monitor(Context &ctx, const Args &args, bool withProfiles)
{
    ctx.options.noPager = true; // a stream
    IbnmInventory *inv = ctx.inventory();
    if (!inv)
        return kExitFailed;
    Monitor m{&ctx, inv, {}, take(inv)};
    if (auto rc = parseNames(inv, args, m))
        return *rc;
    const char *debug = g_getenv("IBNM_DEBUG");
    m.debug = debug && std::strstr(debug, "monitor");
    ErrorPtr err;
    Obj<IbnmHostMonitor> hostMonitor(ibnm_host_monitor_new(ctx.host(), Out(err)));
    if (!hostMonitor) {
        printError("%s", err->message);
        return kExitFailed;
    }
    if (m.debug) {
        IbnmHostMonitor *h = hostMonitor.get();
        std::fprintf(stderr, "ibnm: monitor: announced: %s; read again every %u ms: %s\n",
                     nicks(ibnm_host_monitor_get_notified(h)).c_str(), ibnm_host_monitor_get_poll_interval(h),
                     nicks(ibnm_host_monitor_get_polled(h)).c_str());
    }
    g_signal_connect(hostMonitor.get(), "changed", G_CALLBACK(onHostChanged), &m);
    if (withProfiles) {
        m.settings = ctx.settings();
        if (!m.settings)
            return ctx.storeFailure();
        if (!ibnm_settings_watch(m.settings, Out(err))) {
            printError("%s", err->message);
            return kExitFailed;
        }
        m.lastProfiles = takeProfiles(m.settings);
        g_signal_connect(m.settings, "changed", G_CALLBACK(onProfilesChanged), &m);
    }
    GMainLoopPtr loop(g_main_loop_new(nullptr, FALSE));
    m.loop = loop.get();
    guint sources[] = {g_unix_signal_add(SIGINT, quit, m.loop), g_unix_signal_add(SIGTERM, quit, m.loop),
                       g_unix_signal_add(SIGHUP, quit, m.loop)};
    g_main_loop_run(m.loop);
    if (m.settle)
        g_source_remove(m.settle);
    if (m.settings)
        g_signal_handlers_disconnect_by_data(m.settings, &m);
    for (guint s : sources)
        g_source_remove(s);
    return m.rc;
}

} // namespace

int cmdMonitor(Context &ctx, const Args &args)
{
    return monitor(ctx, args, false);
}

int cmdMonitorAll(Context &ctx, const Args &args)
{
    return monitor(ctx, args, true);
}

} // namespace ibnm::cli
