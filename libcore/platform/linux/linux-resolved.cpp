// SPDX-License-Identifier: LGPL-2.1-or-later
// LinuxPlatform's DNS: systemd-resolved's org.freedesktop.resolve1.Manager
// on the system bus, over GDBus, as NetworkManager's resolved plugin talks to
// it (src/core/dns/nm-dns-systemd-resolved.c): the Manager's DNS and Domains
// properties to read, SetLinkDNS and SetLinkDomains to set, RevertLink to
// give a link back. Every call has a bounded time-out and never starts the
// service (resolved "where it runs").
#include "config.h"

#include "libcore/platform/linux/linux-platform-private.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <gio/gio.h>

#include <arpa/inet.h>
#include <net/if.h>

#include <cerrno>
#include <cstring>

namespace ibnm::platform {

namespace {

constexpr const char *kService = "org.freedesktop.resolve1";
constexpr const char *kPath = "/org/freedesktop/resolve1";
constexpr const char *kManager = "org.freedesktop.resolve1.Manager";
// How long a call may take: systemd-resolved answers in milliseconds; one
// that hangs must not hang an activation.
constexpr int kTimeoutMs = 2000;

// The D-Bus error name of `e` ("org.freedesktop.DBus.Error.ServiceUnknown"),
// or "".
std::string remoteError(GError *e)
{
    GCharPtr name(e ? g_dbus_error_get_remote_error(e) : nullptr);
    return name ? name.get() : "";
}

// Whether `e` says that systemd-resolved is not on the bus.
bool notRunning(GError *e)
{
    std::string name = remoteError(e);
    return name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner";
}

// One call of the Manager (or of `interface` on it), its reply or the error.
Result<GVariantPtr> call(const char *interface, const char *method, GVariant *args, const GVariantType *reply,
                         GError **raw = nullptr)
{
    GErrorPtr err;
    GObjectPtr<GDBusConnection> bus = GObjectPtr<GDBusConnection>::adopt(
        g_bus_get_sync(G_BUS_TYPE_SYSTEM, nullptr, outPtr(err)));
    if (!bus) {
        if (args)
            g_variant_unref(g_variant_ref_sink(args));
        Error e(IBNM_ERROR_NOT_SUPPORTED, strprintf(_("systemd-resolved does not run (no system bus: %s)"), err->message),
                ECONNREFUSED);
        if (raw)
            *raw = err.release();
        return e;
    }
    GVariantPtr r(g_dbus_connection_call_sync(bus.get(), kService, kPath, interface, method, args, reply,
                                              G_DBUS_CALL_FLAGS_NO_AUTO_START, kTimeoutMs, nullptr, outPtr(err)));
    if (r)
        return r;
    bool timedOut = g_error_matches(err.get(), G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
    // Not on the bus: IBNM_ERROR_NOT_SUPPORTED, as without a bus.
    Error e = notRunning(err.get()) ? Error(IBNM_ERROR_NOT_SUPPORTED, _("systemd-resolved does not run"), ECONNREFUSED)
              : timedOut ? Error(IBNM_ERROR_TIMED_OUT,
                                 strprintf(_("systemd-resolved did not answer within %d ms"), kTimeoutMs), ETIMEDOUT)
                         : Error(IBNM_ERROR_PLATFORM, strprintf(_("systemd-resolved: %s"), err->message), EIO);
    if (raw)
        *raw = err.release();
    return e;
}

// The netdev's index, as resolved names links.
Result<int> linkIndex(const std::string &ifname)
{
    unsigned index = if_nametoindex(ifname.c_str());
    if (index == 0)
        return Error(IBNM_ERROR_NOT_FOUND, g_strerror(errno), errno).withContext(ifname);
    return int(index);
}

std::string linkName(int ifindex)
{
    char name[IF_NAMESIZE] = {};
    return if_indextoname(unsigned(ifindex), name) ? name : "";
}

// An address as resolved's (iay) entries carry it: family and bytes.
std::string addressText(int family, GVariant *bytes)
{
    gsize n = 0;
    const void *data = g_variant_get_fixed_array(bytes, &n, 1);
    char text[INET6_ADDRSTRLEN] = {};
    if ((family == AF_INET && n == 4) || (family == AF_INET6 && n == 16))
        if (inet_ntop(family, data, text, sizeof text))
            return text;
    return {};
}

} // namespace

Result<model::Resolver> LinuxPlatform::readResolver()
{
    model::Resolver r;
    auto reply = call("org.freedesktop.DBus.Properties", "GetAll", g_variant_new("(s)", kManager),
                      G_VARIANT_TYPE("(a{sv})"));
    if (!reply) {
        // Not running (or not answering) is what the caller asks about.
        r.reason = reply.error().message();
        return r;
    }
    r.running = true;
    GVariantPtr props(g_variant_get_child_value(reply->get(), 0));
    // DNS: a(iiay), ifindex (0: global), family, address.
    GVariantPtr dns(g_variant_lookup_value(props.get(), "DNS", G_VARIANT_TYPE("a(iiay)")));
    for (gsize i = 0; dns && i < g_variant_n_children(dns.get()); i++) {
        GVariantPtr entry(g_variant_get_child_value(dns.get(), i));
        gint32 ifindex = 0, family = 0;
        g_variant_get_child(entry.get(), 0, "i", &ifindex);
        g_variant_get_child(entry.get(), 1, "i", &family);
        GVariantPtr bytes(g_variant_get_child_value(entry.get(), 2));
        std::string name = ifindex > 0 ? linkName(ifindex) : "";
        std::string address = addressText(family, bytes.get());
        if (!name.empty() && !address.empty())
            r.links[name].servers.push_back(address);
    }
    // Domains: a(isb), ifindex, domain, routing only.
    GVariantPtr domains(g_variant_lookup_value(props.get(), "Domains", G_VARIANT_TYPE("a(isb)")));
    for (gsize i = 0; domains && i < g_variant_n_children(domains.get()); i++) {
        gint32 ifindex = 0;
        const char *domain = nullptr;
        gboolean routing = FALSE;
        g_variant_get_child(domains.get(), i, "(i&sb)", &ifindex, &domain, &routing);
        std::string name = ifindex > 0 ? linkName(ifindex) : "";
        if (!name.empty() && domain)
            r.links[name].domains.push_back((routing ? "~" : "") + std::string(domain));
    }
    return r;
}

Status LinuxPlatform::setLinkDns(const std::string &ifname, const model::LinkDns &dns)
{
    if (Status s = writable(); !s.ok())
        return s;
    auto index = linkIndex(ifname);
    if (!index)
        return std::move(index).error();
    GVariantBuilder servers;
    g_variant_builder_init(&servers, G_VARIANT_TYPE("a(iay)"));
    for (const auto &s : dns.servers) {
        unsigned char bytes[16];
        int family = inet_pton(AF_INET, s.c_str(), bytes) == 1 ? AF_INET : AF_INET6;
        if (family == AF_INET6 && inet_pton(AF_INET6, s.c_str(), bytes) != 1) {
            g_variant_builder_clear(&servers);
            return Error(IBNM_ERROR_INVALID_VALUE, strprintf(_("'%s' is not an IP address"), s.c_str()), EINVAL)
                .withContext(ifname);
        }
        g_variant_builder_add(&servers, "(i@ay)", family,
                              g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, bytes, family == AF_INET ? 4 : 16, 1));
    }
    GVariantBuilder domains;
    g_variant_builder_init(&domains, G_VARIANT_TYPE("a(sb)"));
    for (const auto &d : dns.domains) {
        bool routing = !d.empty() && d[0] == '~';
        g_variant_builder_add(&domains, "(sb)", routing ? d.c_str() + 1 : d.c_str(), routing);
    }
    auto set = call(kManager, "SetLinkDNS", g_variant_new("(ia(iay))", *index, &servers), nullptr);
    if (!set) {
        g_variant_builder_clear(&domains);
        return std::move(set).error().withContext(ifname);
    }
    auto setDomains = call(kManager, "SetLinkDomains", g_variant_new("(ia(sb))", *index, &domains), nullptr);
    if (!setDomains)
        return std::move(setDomains).error().withContext(ifname);
    return {};
}

Status LinuxPlatform::revertLinkDns(const std::string &ifname)
{
    if (Status s = writable(); !s.ok())
        return s;
    unsigned index = if_nametoindex(ifname.c_str());
    if (index == 0)
        return {}; // no link: nothing resolved holds for it
    GErrorPtr raw;
    auto r = call(kManager, "RevertLink", g_variant_new("(i)", int(index)), nullptr, outPtr(raw));
    if (r)
        return {};
    // Not running (or no bus), or a link it does not know: nothing to give
    // back.
    if (r.error().code() == IBNM_ERROR_NOT_SUPPORTED || remoteError(raw.get()) == "org.freedesktop.resolve1.NoSuchLink")
        return {};
    return std::move(r).error().withContext(ifname);
}

} // namespace ibnm::platform
