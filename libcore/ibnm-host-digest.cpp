// SPDX-License-Identifier: LGPL-2.1-or-later
// A digest of everything ibnm reads of a host and of its active connections
// (ibnm_host_get_state_digest(), ibnm_apply_report_get_host_digest()): two
// equal digests mean an apply would find the same host. The CLI's verified
// no-op record of `ibnm apply` (cli/apply-record.hpp) keys on it.
#include "config.h"

#include "libcore/ibnm-host-digest.hpp"

#include "libcore/ibnm-apply-private.hpp"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/ibnm-host.h"
#include "libcore/support/boundary.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/canonical.hpp"
#include "libcore/support/raii.hpp"

#include <string>
#include <utility>

namespace ibnm {

// A new field of model::Host (libcore/model/host.hpp) must be added here:
// the record must see every value the planner compares.
std::string hostCanonicalText(const model::Host &h)
{
    Canon c;
    c.tag("host").str(h.kernelRelease).num(unsigned(h.childNaming));
    c.tag("devices").num(h.devices.size());
    for (const auto &d : h.devices) {
        c.str(d.name).str(d.nodeGuid).str(d.nodeType).str(d.fwVersion).str(d.hcaType).str(d.driver).str(d.boardId);
        c.str(d.pciAddress).num(d.enhancedIpoib).num(d.connectedModeSupported).opt(d.roceEnabled);
        c.tag("ports").num(d.ports.size());
        for (const auto &p : d.ports) {
            c.num(p.number).str(p.state).str(p.physState).str(p.rate).opt(p.lid).opt(p.smLid);
            c.num(unsigned(p.linkLayer)).opt(p.activeMtu).opt(p.maxMtu).opt(p.broadcastMtu);
            c.tag("pkeys").num(p.pkeys.size());
            for (uint16_t k : p.pkeys)
                c.num(k);
            c.tag("gids").num(p.gids.size());
            for (const auto &g : p.gids)
                c.num(g.index).str(g.gid).num(unsigned(g.type)).str(g.netdev);
            std::optional<unsigned> roceMode;
            if (p.defaultRoceMode)
                roceMode = unsigned(*p.defaultRoceMode);
            c.opt(roceMode).opt(p.defaultRoceTos).opt(p.trafficClass);
            c.tag("tc").num(p.tcRules.size());
            for (const auto &r : p.tcRules)
                c.str(std::to_string(r.tclass)).str(r.srcIp).str(r.dstIp);
            c.opt(p.ttl);
        }
    }
    c.tag("netdevs").num(h.netdevs.size());
    for (const auto &n : h.netdevs) {
        c.str(n.name).num(n.ifindex).num(n.type).str(n.address).num(n.mtu).opt(n.maxMtu).num(n.up);
        c.str(n.kind).str(n.master).str(n.link).strs(n.addresses);
        c.tag("routes").num(n.routes.size());
        for (const auto &r : n.routes)
            c.str(r.dest).str(r.gateway).num(r.metric);
        c.str(n.rdmaDevice).num(n.rdmaPort);
    }
    c.tag("ipoib").num(h.ipoib.size());
    for (const auto &i : h.ipoib)
        c.str(i.name)
            .str(i.parent)
            .num(i.pkey)
            .num(unsigned(i.mode))
            .num(i.umcast)
            .num(i.mtu)
            .str(i.address)
            .str(i.portGuid);
    c.tag("bonds").num(h.bonds.size());
    for (const auto &b : h.bonds)
        c.str(b.name).str(b.mode).strs(b.ports).str(b.primary).str(b.activePort).num(b.miimon).str(b.failOverMac);
    c.tag("soft-links").num(h.softLinks.size());
    for (const auto &s : h.softLinks)
        c.str(s.name).num(unsigned(s.type)).str(s.netdev);
    return c.take();
}


std::optional<std::string> hostStateDigestOfText(IbnmHost *host, const std::string &canonicalText)
{
    auto active = apply::activeRecordsDigest(host);
    if (!active)
        return std::nullopt;
    return sha256Hex(canonicalText + "active:" + *active);
}

std::optional<std::string> hostStateDigest(IbnmHost *host, const model::Host &h)
{
    return hostStateDigestOfText(host, hostCanonicalText(h));
}

} // namespace ibnm

/**
 * ibnm_host_get_state_digest:
 * @self: an #IbnmHost
 * @error: return location for a #GError
 *
 * Reads the host as an apply reads it (under the host's activation lock, so
 * that another process's apply is not seen half done) and digests
 * everything ibnm reads of it, with its active connections' records: two
 * equal digests mean that an apply would find the same host. An apply that
 * found the host already in the state asked says so with the same digest
 * (ibnm_apply_report_get_host_digest()): a caller can remember such an
 * apply and know, by this digest, that repeating it would change nothing.
 *
 * Returns: (transfer full) (nullable): the digest (64 hex digits; free with
 *   g_free()); %NULL with @error set when the host or its records cannot be
 *   read, or its lock was not had in time (%IBNM_ERROR_TIMED_OUT)
 *
 * Since: 0.1
 */
char *ibnm_host_get_state_digest(IbnmHost *self, GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(self), nullptr);
    char *out = nullptr;
    ibnm::guard(error, [&]() -> ibnm::Status {
        auto &platform = ibnm::hostPlatform(self);
        auto lock = platform.lockActivations(ibnm::hostLockDeadline(self));
        if (!lock)
            return std::move(lock).error();
        auto snapshot = platform.readHost();
        if (!snapshot)
            return std::move(snapshot).error();
        auto digest = ibnm::hostStateDigest(self, *snapshot);
        if (!digest)
            return ibnm::Error(IBNM_ERROR_IO, _("the records of the active connections cannot be read"));
        out = g_strdup(digest->c_str());
        return {};
    });
    return out;
}
