// SPDX-License-Identifier: LGPL-2.1-or-later
// The host description parser (fake-host-file.hpp): parseHostDescription()
// scans the text (lines, groups, keys and where they are), checks each
// group's kind and keys, reads the groups in their kinds' order
// (fake-host-file-groups.cpp) and resolves the references between them.
// The values' text forms are fake-host-file-values.cpp; the writer is
// fake-host-file-format.cpp.
#include "config.h"

#include "libcore/simulator/fake-host-file-private.hpp"

#include "libcore/model/host-index.hpp"

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace ibnm::platform {

using model::GidType;
using model::IpoibMode;

namespace hostfile {

namespace {

// The keys each kind of group takes (systemd-networkd style: one table says
// what a section may contain; the parsers below read them).
const std::map<std::string, std::set<std::string>> kGroupKeys = {
    {"host", {"kernel-release", "child-naming", "resolved", "rdma-netlink"}},
    {"simulation", {"operations"}},
    {"device",
     {"driver", "node-type", "node-guid", "fw-ver", "hca-type", "board-id", "pci-address", "enhanced-ipoib",
      "connected-mode",
      "roce-enable"}},
    {"port",
     {"link-layer", "state", "phys-state", "rate", "lid", "sm-lid", "active-mtu", "max-mtu", "broadcast-mtu",
      "pkeys", "port-guid", "default-roce-mode", "default-roce-tos", "traffic-class", "traffic-class-rules", "ttl"}},
    {"netdev",
     {"ifindex", "type", "kind", "address", "mtu", "max-mtu", "up", "addresses", "routes", "rdma-port", "link", "master",
      "original-mtu", "parent", "pkey", "mode", "umcast", "dns", "dns-search", "egress-qos-map", "pfc"}},
    {"bond", {"mode", "miimon", "primary", "active-port", "fail-over-mac"}},
    {"soft-link", {"type", "netdev"}},
};

} // namespace


Status Parser::scan(const std::string &text)
{
    // One pass, no copy of a line: views into the text; only group names
    // and keys are kept.
    const std::string_view all(text);
    Locations::Group *group = nullptr;
    unsigned lineNo = 0;
    size_t pos = 0;
    while (pos <= all.size()) {
        size_t nl = all.find('\n', pos);
        if (nl == std::string_view::npos)
            nl = all.size();
        std::string_view line = trimmed(all.substr(pos, nl - pos));
        pos = nl + 1;
        lineNo++;
        if (line.empty() || line[0] == '#')
            continue;
        if (line[0] == '[') {
            if (line.back() != ']')
                return errorAt(lineNo, _("a group header must end with “]”"));
            std::string name(line.substr(1, line.size() - 2));
            auto [at, fresh] = loc_.byName.emplace(name, loc_.groups.size());
            if (!fresh)
                return errorAt(lineNo, strprintf(_("group [%s] appears twice (first on line %u)"), name.c_str(),
                                                 loc_.groups[at->second].line));
            loc_.groups.push_back({std::move(name), lineNo, {}});
            group = &loc_.groups.back();
            continue;
        }
        size_t eq = line.find('=');
        if (eq == std::string_view::npos)
            return errorAt(lineNo, _("not a group header, a key=value line or a comment"));
        if (group == nullptr || group->name.empty())
            return errorAt(lineNo, _("a key outside any group"));
        std::string_view key = trimmed(line.substr(0, eq));
        for (const auto &k : group->keys)
            if (k.first == key)
                return errorAt(lineNo, strprintf(_("key “%s” appears twice in [%s]"), k.first.c_str(),
                                                 group->name.c_str()));
        group->keys.emplace_back(std::string(key), lineNo);
    }
    return {};
}

Result<FakeState> Parser::parse(const std::string &text)
{
    if (auto s = scan(text); !s.ok())
        return std::move(s).error();
    GError *raw = nullptr;
    if (!g_key_file_load_from_data(kf_.get(), text.data(), text.size(), G_KEY_FILE_NONE, &raw)) {
        GErrorPtr err(raw);
        return Error(IBNM_ERROR_PARSE, err->message).withContext(loc_.file);
    }

    // Every group has a known kind and only that kind's keys.
    std::vector<std::pair<std::string, std::string>> byKind[7];
    static const char *order[] = {"host", "simulation", "device", "port", "netdev", "bond", "soft-link"};
    // [netdev ib0] and [netdev  ib0] name one object: a second header of
    // the same kind and name is a duplicate, however it is spaced.
    std::unordered_map<std::string, unsigned> named;
    // In the file's order, which scan() kept.
    for (const auto &grp : loc_.groups) {
        const std::string &g = grp.name;
        unsigned line = grp.line;
        size_t sp = g.find(' ');
        std::string kind = g.substr(0, sp);
        std::string id = sp == std::string::npos ? std::string() : trim(g.substr(sp + 1));
        if (auto [first, fresh] = named.emplace(kind + '\n' + id, line); !fresh)
            return errorAt(line, strprintf(_("group [%s] appears twice (first on line %u)"), g.c_str(), first->second));
        auto it = kGroupKeys.find(kind);
        if (it == kGroupKeys.end())
            return errorAt(line, strprintf(_("unknown group [%s]"), g.c_str()));
        bool needsId = kind != "host" && kind != "simulation";
        if (needsId && id.empty())
            return errorAt(line, strprintf(_("group [%s] needs a name: [%s NAME]"), g.c_str(), kind.c_str()));
        if (!needsId && !id.empty())
            return errorAt(line, strprintf(_("group [%s] takes no name"), kind.c_str()));
        // The group's keys only; of several unknown keys the first in
        // alphabetical order is named (as when they were kept sorted).
        const std::pair<std::string, unsigned> *unknown = nullptr;
        for (const auto &k : grp.keys)
            if (!it->second.count(k.first) && (unknown == nullptr || k.first < unknown->first))
                unknown = &k;
        if (unknown)
            return errorAt(unknown->second,
                           strprintf(_("unknown key “%s” in [%s]"), unknown->first.c_str(), g.c_str()));
        for (size_t i = 0; i < std::size(order); i++)
            if (kind == order[i])
                byKind[i].emplace_back(g, id);
    }

    for (const auto &[g, id] : byKind[0])
        if (auto s = parseHost(g); !s.ok())
            return std::move(s).error();
    for (const auto &[g, id] : byKind[1]) {
        auto ops = number(g, "operations", G_MAXUINT64);
        if (!ops.ok())
            return std::move(ops).error();
        st_.operations = ops->value_or(0);
    }
    for (const auto &[g, id] : byKind[2])
        if (auto s = parseDevice(g, id); !s.ok())
            return std::move(s).error();
    for (const auto &[g, id] : byKind[3])
        if (auto s = parsePort(g, id); !s.ok())
            return std::move(s).error();
    for (auto &d : st_.host.devices) {
        std::sort(d.ports.begin(), d.ports.end(), [](const auto &a, const auto &b) { return a.number < b.number; });
        for (size_t i = 0; i < d.ports.size(); i++)
            if (d.ports[i].number != i + 1)
                return groupError("device " + d.name, _("its ports must be numbered from 1 without gaps"));
    }
    for (const auto &[g, id] : byKind[4])
        if (auto s = parseNetdev(g, id); !s.ok())
            return std::move(s).error();
    for (const auto &[g, id] : byKind[5])
        if (auto s = parseBond(g, id); !s.ok())
            return std::move(s).error();
    for (const auto &[g, id] : byKind[6])
        if (auto s = parseSoftLink(g, id); !s.ok())
            return std::move(s).error();
    if (auto s = resolve(); !s.ok())
        return std::move(s).error();
    return std::move(st_);
}

// References between groups, once all are read.
Status Parser::resolve()
{
    auto &h = st_.host;
    unsigned next = 1;
    for (const auto &n : h.netdevs)
        next = std::max(next, n.ifindex + 1);
    // One index of the netdevs and bonds read, not a scan per reference.
    // Netdevs are not added or removed until the bonds' below.
    model::HostIndex index(h);
    for (auto &n : h.netdevs) {
        std::string g = "netdev " + n.name;
        if (n.ifindex == 0)
            n.ifindex = next++;
        auto ref = rdmaPortRef_.find(n.name);
        if (ref != rdmaPortRef_.end()) {
            size_t slash = ref->second.rfind('/');
            std::string dev = slash == std::string::npos ? ref->second : ref->second.substr(0, slash);
            uint64_t port = 0;
            if (slash != std::string::npos)
                port = parseUnsigned(ref->second.substr(slash + 1), 255).value_or(0);
            const model::Device *d = h.findDevice(dev);
            if (d == nullptr || port == 0 || port > d->ports.size())
                return keyError(g, "rdma-port", strprintf(_("no RDMA port %s"), ref->second.c_str()));
            n.rdmaDevice = dev;
            n.rdmaPort = static_cast<unsigned>(port);
        }
        if (!n.link.empty() && index.netdev(n.link) == nullptr)
            return keyError(g, "link", strprintf(_("no [netdev %s] group"), n.link.c_str()));
        if (!n.master.empty() && index.bond(n.master) == nullptr)
            return keyError(g, "master", strprintf(_("no [bond %s] group"), n.master.c_str()));
        if (n.address.empty()) {
            // A stable, locally administered address derived from the name.
            n.address = localMac(n.ifindex, n.name);
            if (n.type == 32) {
                std::string guid = st_.portGuids.count(n.rdmaDevice + "/" + std::to_string(n.rdmaPort))
                                       ? st_.portGuids[n.rdmaDevice + "/" + std::to_string(n.rdmaPort)]
                                       : "0000:0000:0000:0000";
                const model::Device *d = index.device(n.rdmaDevice);
                bool cm = d != nullptr && d->connectedModeSupported;
                std::string hex;
                for (char c : guid)
                    if (c != ':')
                        hex += c;
                n.address = strprintf("%s:fe:80:00:00:00:00:00:00", cm ? "80:00:02:08" : "00:00:10:49");
                for (size_t i = 0; i < 16; i += 2)
                    n.address += ":" + hex.substr(i, 2);
            }
        }
    }
    for (auto &ib : h.ipoib) {
        const model::Netdev *nd = index.netdev(ib.name);
        std::string g = "netdev " + ib.name;
        if (!ib.parent.empty()) {
            const model::IpoibNetdev *parent = index.ipoib(ib.parent);
            if (parent == nullptr)
                return keyError(g, "parent", strprintf(_("no IPoIB [netdev %s] group"), ib.parent.c_str()));
        }
        if (nd != nullptr) {
            ib.mtu = nd->mtu;
            ib.address = nd->address;
            ib.portGuid = portGuidFromIpoibAddress(nd->address);
            const model::Device *d = index.device(nd->rdmaDevice);
            if (ib.mode == IpoibMode::Connected && d != nullptr && !d->connectedModeSupported)
                return keyError(g, "mode", strprintf(_("%s does not support connected mode"), d->name.c_str()));
        }
    }
    // IB ports: GID 0 from the port GUID.
    for (auto &d : h.devices)
        for (auto &p : d.ports) {
            auto it = st_.portGuids.find(d.name + "/" + std::to_string(p.number));
            if (it != st_.portGuids.end() && p.gids.empty())
                p.gids.push_back({0, "fe80:0000:0000:0000:" + it->second, GidType::IbRoceV1, ""});
        }
    // Bonds have a netdev too. The first port of each bond, and the names
    // taken, in one pass (the netdevs added here do not move the others:
    // their positions are kept, not pointers).
    std::unordered_map<std::string, size_t> firstPort;
    std::set<std::string> taken;
    for (size_t i = 0; i < h.netdevs.size(); i++) {
        taken.insert(h.netdevs[i].name);
        if (!h.netdevs[i].master.empty())
            firstPort.emplace(h.netdevs[i].master, i);
    }
    for (const auto &b : h.bonds) {
        if (taken.insert(b.name).second) {
            model::Netdev n;
            n.name = b.name;
            n.kind = "bond";
            n.type = 1;
            auto fp = firstPort.find(b.name);
            const model::Netdev *first = fp == firstPort.end() ? nullptr : &h.netdevs[fp->second];
            n.mtu = 1500;
            n.ifindex = next++;
            if (first != nullptr && first->type == 32) {
                // A bond of IPoIB ports takes the link type and the 20-byte
                // address of its first port (the kernel's bond_setup_by_slave).
                n.type = first->type;
                n.address = first->address;
            } else {
                n.address = localMac(n.ifindex, b.name);
            }
            h.netdevs.push_back(std::move(n));
        }
    }
    return {};
}

} // namespace hostfile

Result<FakeState> parseHostDescription(const std::string &text, const std::string &fileName)
{
    return hostfile::Parser(fileName).parse(text);
}

Result<std::string> readHostDescriptionText(const std::string &path)
{
    char *raw = nullptr;
    gsize len = 0;
    GError *err = nullptr;
    if (!g_file_get_contents(path.c_str(), &raw, &len, &err)) {
        GErrorPtr e(err);
        int errnum = e->domain == G_FILE_ERROR && e->code == G_FILE_ERROR_NOENT ? ENOENT
                     : e->domain == G_FILE_ERROR && e->code == G_FILE_ERROR_ACCES ? EACCES
                                                                                 : EIO;
        return Error::fromErrno(errnum, path);
    }
    GCharPtr text(raw);
    return std::string(text.get(), len);
}

Result<FakeState> loadHostDescription(const std::string &path)
{
    auto text = readHostDescriptionText(path);
    if (!text.ok())
        return std::move(text).error();
    return parseHostDescription(*text, path);
}

} // namespace ibnm::platform
