// SPDX-License-Identifier: LGPL-2.1-or-later
// The simulated kernel's address and route operations (fake-platform.hpp):
// addresses in the kernel's normal form, routes whose gateway must be on a
// subnet of the interface, each through mutate() (fake-platform-private.hpp);
// and systemd-resolved's per-link DNS, where the simulated host runs it.
#include "config.h"

#include "libcore/simulator/fake-platform-private.hpp"

#include "libcore/simulator/fake-host-file.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <gio/gio.h>

#include <arpa/inet.h>

namespace ibnm::platform {

using namespace fake;

namespace {

// Normalises "ADDR/LEN" (IPv6 compressed as inet_ntop writes it); empty if
// it is not one.
std::string normaliseCidr(const std::string &cidr)
{
    size_t slash = cidr.find('/');
    if (slash == std::string::npos)
        return {};
    std::string addr = cidr.substr(0, slash);
    bool v6 = addr.find(':') != std::string::npos;
    guint64 len = 0;
    if (!g_ascii_string_to_unsigned(cidr.c_str() + slash + 1, 10, 0, v6 ? 128 : 32, &len, nullptr))
        return {};
    unsigned char b[16];
    if (inet_pton(v6 ? AF_INET6 : AF_INET, addr.c_str(), b) != 1)
        return {};
    char buf[INET6_ADDRSTRLEN];
    inet_ntop(v6 ? AF_INET6 : AF_INET, b, buf, sizeof buf);
    return strprintf("%s/%u", buf, static_cast<unsigned>(len));
}

} // namespace

Status FakePlatform::addAddress(const std::string &ifname, const std::string &cidr)
{
    return mutate("addAddress", ifname, {ifname, cidr}, [&]() -> Status {
        model::Netdev *nd = findNetdev(state_.host, ifname);
        if (nd == nullptr)
            return noSuchNetdev(ifname);
        std::string norm = normaliseCidr(cidr);
        if (norm.empty())
            return kernelError(EINVAL, ifname, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("“%s” is not an address with a prefix length"), cidr.c_str()));
        if (std::find(nd->addresses.begin(), nd->addresses.end(), norm) != nd->addresses.end())
            return kernelError(EEXIST, ifname, IBNM_ERROR_EXISTS, norm);
        nd->addresses.push_back(norm);
        return {};
    });
}

Status FakePlatform::removeAddress(const std::string &ifname, const std::string &cidr)
{
    return mutate("removeAddress", ifname, {ifname, cidr}, [&]() -> Status {
        model::Netdev *nd = findNetdev(state_.host, ifname);
        if (nd == nullptr)
            return noSuchNetdev(ifname);
        std::string norm = normaliseCidr(cidr);
        auto it = std::find(nd->addresses.begin(), nd->addresses.end(), norm);
        if (norm.empty() || it == nd->addresses.end())
            return kernelError(EADDRNOTAVAIL, ifname, IBNM_ERROR_NOT_FOUND, cidr);
        nd->addresses.erase(it);
        return {};
    });
}

namespace {

// The subnet the interface address `cidr` is on ("192.0.2.10/24": 192.0.2.0/24),
// or none. GInetAddressMask takes a network address only (it refuses host
// bits), so they are cleared first.
GObjectPtr<GInetAddressMask> subnetOf(const std::string &cidr)
{
    size_t slash = cidr.find('/');
    guint64 len = 0;
    if (slash == std::string::npos ||
        !g_ascii_string_to_unsigned(cidr.c_str() + slash + 1, 10, 0, 128, &len, nullptr))
        return nullptr;
    auto address = GObjectPtr<GInetAddress>::adopt(g_inet_address_new_from_string(cidr.substr(0, slash).c_str()));
    if (!address || len > 8 * g_inet_address_get_native_size(address.get()))
        return nullptr;
    guint8 bytes[16];
    gsize size = g_inet_address_get_native_size(address.get());
    memcpy(bytes, g_inet_address_to_bytes(address.get()), size);
    for (gsize i = 0; i < size; i++) {
        guint64 kept = len > 8 * i ? std::min<guint64>(8, len - 8 * i) : 0;
        bytes[i] &= static_cast<guint8>(0xff00 >> kept);
    }
    auto network = GObjectPtr<GInetAddress>::adopt(
        g_inet_address_new_from_bytes(bytes, g_inet_address_get_family(address.get())));
    return GObjectPtr<GInetAddressMask>::adopt(
        g_inet_address_mask_new(network.get(), static_cast<guint>(len), nullptr));
}

// Whether `ip` lies in the subnet of the interface address `cidr`.
bool inSubnet(const std::string &ip, const std::string &cidr)
{
    auto subnet = subnetOf(cidr);
    auto address = GObjectPtr<GInetAddress>::adopt(g_inet_address_new_from_string(ip.c_str()));
    return subnet && address && g_inet_address_mask_matches(subnet.get(), address.get());
}

} // namespace

Status FakePlatform::addRoute(const std::string &ifname, const model::Route &route)
{
    return mutate("addRoute", ifname, {ifname, route.dest, route.gateway, num(route.metric)}, [&]() -> Status {
        model::Netdev *nd = findNetdev(state_.host, ifname);
        if (nd == nullptr)
            return noSuchNetdev(ifname);
        model::Route r = route;
        r.dest = normaliseCidr(route.dest);
        if (r.dest.empty())
            return kernelError(EINVAL, ifname, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("“%s” is not an address with a prefix length"), route.dest.c_str()));
        if (!nd->up)
            return kernelError(ENETDOWN, ifname, IBNM_ERROR_PLATFORM);
        // fib_check_nh(), ip6_validate_gw(): the gateway must be on link: on
        // the subnet of an address of the interface or of a route without
        // gateway through it; IPv6 also takes any link-local gateway.
        auto gateway = GObjectPtr<GInetAddress>::adopt(g_inet_address_new_from_string(r.gateway.c_str()));
        bool linkLocal = gateway && g_inet_address_get_is_link_local(gateway.get()) &&
                         g_inet_address_get_family(gateway.get()) == G_SOCKET_FAMILY_IPV6;
        if (!r.gateway.empty() && !linkLocal &&
            std::none_of(nd->addresses.begin(), nd->addresses.end(),
                         [&](const std::string &a) { return inSubnet(r.gateway, a); }) &&
            std::none_of(nd->routes.begin(), nd->routes.end(), [&](const model::Route &d) {
                return d.gateway.empty() && inSubnet(r.gateway, d.dest);
            }))
            return kernelError(ENETUNREACH, ifname, IBNM_ERROR_PLATFORM,
                               strprintf(_("the gateway %s is not on a subnet of %s"), r.gateway.c_str(),
                                         ifname.c_str()));
        if (std::find(nd->routes.begin(), nd->routes.end(), r) != nd->routes.end())
            return kernelError(EEXIST, ifname, IBNM_ERROR_EXISTS, r.dest);
        insertRoute(nd->routes, std::move(r));
        return {};
    });
}

Status FakePlatform::removeRoute(const std::string &ifname, const model::Route &route)
{
    return mutate("removeRoute", ifname, {ifname, route.dest, route.gateway, num(route.metric)}, [&]() -> Status {
        model::Netdev *nd = findNetdev(state_.host, ifname);
        if (nd == nullptr)
            return noSuchNetdev(ifname);
        model::Route r = route;
        r.dest = normaliseCidr(route.dest);
        auto it = std::find(nd->routes.begin(), nd->routes.end(), r);
        if (it == nd->routes.end())
            return kernelError(ESRCH, ifname, IBNM_ERROR_NOT_FOUND, route.dest);
        nd->routes.erase(it);
        return {};
    });
}

// --- systemd-resolved ------------------------------------------------------------

Result<model::Resolver> FakePlatform::readResolver()
{
    model::Resolver r;
    auto s = transact(false, [&] {
        r = state_.resolver;
        return Status();
    });
    if (!s.ok())
        return std::move(s).error();
    if (!r.running)
        r.reason = _("systemd-resolved does not run on this simulated host");
    return r;
}

Status FakePlatform::setLinkDns(const std::string &ifname, const model::LinkDns &dns)
{
    std::string servers, domains;
    for (const auto &x : dns.servers)
        servers += (servers.empty() ? "" : ";") + x;
    for (const auto &x : dns.domains)
        domains += (domains.empty() ? "" : ";") + x;
    return mutate("setLinkDns", ifname, {ifname, servers, domains}, [&]() -> Status {
        // SetLinkDNS, SetLinkDomains: the service must be on the bus, the link
        // known, every server an address.
        if (!state_.resolver.running)
            return kernelError(ECONNREFUSED, ifname, IBNM_ERROR_NOT_SUPPORTED, _("systemd-resolved does not run"));
        if (findNetdev(state_.host, ifname) == nullptr)
            return noSuchNetdev(ifname);
        for (const auto &x : dns.servers) {
            auto a = GObjectPtr<GInetAddress>::adopt(g_inet_address_new_from_string(x.c_str()));
            if (!a)
                return kernelError(EINVAL, ifname, IBNM_ERROR_INVALID_ARGUMENT,
                                   strprintf(_("'%s' is not an IP address"), x.c_str()));
        }
        if (dns.empty())
            state_.resolver.links.erase(ifname);
        else
            state_.resolver.links[ifname] = dns;
        return {};
    });
}

Status FakePlatform::revertLinkDns(const std::string &ifname)
{
    return mutate("revertLinkDns", ifname, {ifname}, [&]() -> Status {
        // RevertLink: nothing to give back where the service does not run or
        // holds nothing for the link.
        state_.resolver.links.erase(ifname);
        return {};
    });
}

} // namespace ibnm::platform
