// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/platform/deadline-platform.hpp"

#include "libcore/support/i18n.hpp"

#include <glib.h>

namespace ibnm::platform {

Status DeadlinePlatform::check(const std::string &object)
{
    if (expired_ || g_get_monotonic_time() < deadline_)
        return {};
    expired_ = true;
    return Error(IBNM_ERROR_TIMED_OUT, _("timed out before this step; undoing what was done"), ETIMEDOUT)
        .withContext(object);
}

// Each change: the deadline first, then the wrapped platform.
#define IBNM_DEADLINE_FORWARD(object, call)                                                                            \
    do {                                                                                                           \
        if (auto st = check(object); !st)                                                                          \
            return std::move(st).error();                                                                          \
        return inner_.call;                                                                                        \
    } while (0)

Result<std::string> DeadlinePlatform::createIpoibChild(const IpoibChildSpec &spec)
{
    IBNM_DEADLINE_FORWARD(spec.parent, createIpoibChild(spec));
}
Status DeadlinePlatform::deleteIpoibChild(const std::string &parent, uint16_t pkey)
{
    IBNM_DEADLINE_FORWARD(parent, deleteIpoibChild(parent, pkey));
}
Status DeadlinePlatform::setIpoibMode(const std::string &ifname, model::IpoibMode mode)
{
    IBNM_DEADLINE_FORWARD(ifname, setIpoibMode(ifname, mode));
}
Status DeadlinePlatform::setIpoibUmcast(const std::string &ifname, bool umcast)
{
    IBNM_DEADLINE_FORWARD(ifname, setIpoibUmcast(ifname, umcast));
}
Status DeadlinePlatform::setMtu(const std::string &ifname, unsigned mtu)
{
    IBNM_DEADLINE_FORWARD(ifname, setMtu(ifname, mtu));
}
Status DeadlinePlatform::setUp(const std::string &ifname, bool up)
{
    IBNM_DEADLINE_FORWARD(ifname, setUp(ifname, up));
}
Status DeadlinePlatform::createBond(const BondSpec &spec)
{
    IBNM_DEADLINE_FORWARD(spec.name, createBond(spec));
}
Status DeadlinePlatform::setBondOptions(const std::string &bond, std::optional<unsigned> miimon,
                                        std::optional<std::string> primary)
{
    IBNM_DEADLINE_FORWARD(bond, setBondOptions(bond, miimon, primary));
}
Status DeadlinePlatform::enslave(const std::string &port, const std::string &bond)
{
    IBNM_DEADLINE_FORWARD(port, enslave(port, bond));
}
Status DeadlinePlatform::release(const std::string &port)
{
    IBNM_DEADLINE_FORWARD(port, release(port));
}
Status DeadlinePlatform::deleteLink(const std::string &ifname)
{
    IBNM_DEADLINE_FORWARD(ifname, deleteLink(ifname));
}
Status DeadlinePlatform::addAddress(const std::string &ifname, const std::string &cidr)
{
    IBNM_DEADLINE_FORWARD(ifname, addAddress(ifname, cidr));
}
Status DeadlinePlatform::removeAddress(const std::string &ifname, const std::string &cidr)
{
    IBNM_DEADLINE_FORWARD(ifname, removeAddress(ifname, cidr));
}
Status DeadlinePlatform::addRoute(const std::string &ifname, const model::Route &route)
{
    IBNM_DEADLINE_FORWARD(ifname, addRoute(ifname, route));
}
Status DeadlinePlatform::removeRoute(const std::string &ifname, const model::Route &route)
{
    IBNM_DEADLINE_FORWARD(ifname, removeRoute(ifname, route));
}
Status DeadlinePlatform::prepare(const Prerequisites &needs)
{
    IBNM_DEADLINE_FORWARD("prepare", prepare(needs));
}
Status DeadlinePlatform::addSoftLink(const std::string &name, model::SoftLinkType type, const std::string &netdev)
{
    IBNM_DEADLINE_FORWARD(name, addSoftLink(name, type, netdev));
}
Status DeadlinePlatform::deleteSoftLink(const std::string &name)
{
    IBNM_DEADLINE_FORWARD(name, deleteSoftLink(name));
}
Status DeadlinePlatform::setDefaultRoceMode(const std::string &device, unsigned port, model::RoceMode mode)
{
    IBNM_DEADLINE_FORWARD(device, setDefaultRoceMode(device, port, mode));
}
Status DeadlinePlatform::setDefaultRoceTos(const std::string &device, unsigned port, unsigned tos)
{
    IBNM_DEADLINE_FORWARD(device, setDefaultRoceTos(device, port, tos));
}
Status DeadlinePlatform::removeRoceDefaults(const std::string &device)
{
    IBNM_DEADLINE_FORWARD(device, removeRoceDefaults(device));
}

Status DeadlinePlatform::clearTrafficClass(const std::string &device, unsigned port)
{
    IBNM_DEADLINE_FORWARD(device, clearTrafficClass(device, port));
}

Status DeadlinePlatform::setTrafficClass(const std::string &device, unsigned port, unsigned tclass)
{
    IBNM_DEADLINE_FORWARD(device, setTrafficClass(device, port, tclass));
}
Status DeadlinePlatform::setTtl(const std::string &device, unsigned port, unsigned ttl)
{
    IBNM_DEADLINE_FORWARD(device, setTtl(device, port, ttl));
}
Status DeadlinePlatform::setTrafficClassRule(const std::string &device, unsigned port, const model::TcRule &rule)
{
    IBNM_DEADLINE_FORWARD(device, setTrafficClassRule(device, port, rule));
}
Status DeadlinePlatform::setRoceEnabled(const std::string &device, bool enabled)
{
    IBNM_DEADLINE_FORWARD(device, setRoceEnabled(device, enabled));
}

Status DeadlinePlatform::setLinkDns(const std::string &ifname, const model::LinkDns &dns)
{
    IBNM_DEADLINE_FORWARD(ifname, setLinkDns(ifname, dns));
}
Status DeadlinePlatform::revertLinkDns(const std::string &ifname)
{
    IBNM_DEADLINE_FORWARD(ifname, revertLinkDns(ifname));
}

#undef IBNM_DEADLINE_FORWARD

} // namespace ibnm::platform
