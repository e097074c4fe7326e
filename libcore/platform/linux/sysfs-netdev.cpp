// SPDX-License-Identifier: LGPL-2.1-or-later
// One netdev of class/net: its type, index, MTU, address, state and kind,
// the RDMA port behind it, and its IPoIB (pkey, mode, parent) or bonding
// (mode, ports, primary) attributes.
#include "config.h"

#include "libcore/platform/linux/sysfs-private.hpp"

#include "libcore/model/ipoib.hpp"
#include "libcore/model/rdma.hpp"

#include <algorithm>

#include <net/if.h>

namespace ibnm::platform::sysfs {

namespace {

// "0000:03:00.0": domain, bus, device and function in hex, as the PCI bus
// names its devices.
bool isPciAddress(const std::string &s)
{
    if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.')
        return false;
    for (size_t i = 0; i < s.size(); i++)
        if (i != 4 && i != 7 && i != 10 && !g_ascii_isxdigit(s[i]))
            return false;
    return true;
}

// "active-backup 1" -> "active-backup"; "none 0" -> "none".
std::string firstWord(const std::string &s)
{
    return s.substr(0, s.find(' '));
}

// Stage 1, the link: type (ARPHRD_*), ifindex, MTU, address, and up
// from flags (IFF_UP), else from operstate.
Status readLinkAttrs(const std::string &dir, model::Netdev &nd)
{
    auto type = readOptionalNumber(join(dir, "type"), 10, 0xffff); // ARPHRD_*, a u16
    if (!type)
        return std::move(type).error();
    nd.type = static_cast<unsigned>(type->value_or(0));
    auto ifindex = readOptionalNumber(join(dir, "ifindex"), 10, INT32_MAX);
    if (!ifindex)
        return std::move(ifindex).error();
    nd.ifindex = static_cast<unsigned>(ifindex->value_or(0));
    auto mtu = readOptionalNumber(join(dir, "mtu"), 10);
    if (!mtu)
        return std::move(mtu).error();
    nd.mtu = static_cast<unsigned>(mtu->value_or(0));
    auto address = optionalString(dir, "address");
    if (!address)
        return std::move(address).error();
    nd.address = address->value_or("");
    auto flags = readOptionalNumber(join(dir, "flags"), 16);
    if (!flags)
        return std::move(flags).error();
    if (flags->has_value()) {
        nd.up = (**flags & IFF_UP) != 0;
    } else {
        auto oper = optionalString(dir, "operstate");
        if (!oper)
            return std::move(oper).error();
        nd.up = oper->has_value() && (**oper == "up" || **oper == "unknown");
    }
    return {};
}

// Stage 2, what it is and what it hangs on: its kind (uevent's DEVTYPE, a
// bond, or IPoIB by type), the PCI function behind it and its master.
Status readKindAndLinks(const std::string &dir, bool isBond, model::Netdev &nd)
{
    // Kind as sysfs shows it; rtnetlink's IFLA_INFO_KIND replaces it live.
    auto uevent = optionalString(dir, "uevent");
    if (!uevent)
        return std::move(uevent).error();
    if (uevent->has_value()) {
        const std::string &u = **uevent;
        auto pos = u.find("DEVTYPE=");
        if (pos != std::string::npos) {
            auto start = pos + 8;
            nd.kind = u.substr(start, u.find('\n', start) - start);
        }
    }
    if (isBond)
        nd.kind = "bond";
    else if (nd.type == 32 && nd.kind.empty())
        nd.kind = "ipoib";

    // The PCI function behind it (device -> ../../../0000:03:00.0); none
    // for a virtual netdev or another bus, or a dump whose "device" is no
    // link.
    if (auto device = readLinkName(join(dir, "device")); device && device->has_value() && isPciAddress(**device))
        nd.pciAddress = **device;

    auto master = readLinkName(join(dir, "master"));
    if (!master)
        return std::move(master).error();
    nd.master = master->value_or("");
    return {};
}

// Stage 3, the RDMA port behind the netdev: device/infiniband/<dev>, port
// from dev_port (or dev_id on drivers such as mlx4 that use it), as
// rdma-core.
Status readRdmaPort(const std::string &dir, model::Netdev &nd)
{
    auto ibdevs = listDir(dir + "/device/infiniband");
    if (!ibdevs)
        return std::move(ibdevs).error();
    if (ibdevs->empty())
        return {};
    nd.rdmaDevice = ibdevs->front();
    auto devPort = readOptionalNumber(join(dir, "dev_port"), 10, model::kMaxRdmaPort - 1);
    if (!devPort)
        return std::move(devPort).error();
    auto devId = readOptionalNumber(join(dir, "dev_id"), 16, model::kMaxRdmaPort - 1);
    if (!devId)
        return std::move(devId).error();
    unsigned long long p = std::max(devPort->value_or(0), devId->value_or(0));
    nd.rdmaPort = static_cast<unsigned>(p + 1);
    return {};
}

// Stage 4, an IPoIB interface (type 32): its P_Key, transport mode,
// umcast and parent (a port's own interface has none), added to host.
Status readIpoibAttrs(const std::string &dir, const model::Netdev &nd, model::Host &host)
{
    model::IpoibNetdev ib;
    ib.name = nd.name;
    ib.mtu = nd.mtu;
    ib.address = nd.address;
    ib.portGuid = portGuidFromAddress(nd.address);
    auto pkey = readOptionalNumber(join(dir, "pkey"), 16, 0xffff);
    if (!pkey)
        return std::move(pkey).error();
    if (pkey->has_value()) {
        if (**pkey > 0xffff)
            return malformed(join(dir, "pkey"), std::to_string(**pkey));
        ib.pkey = static_cast<uint16_t>(**pkey);
    }
    auto mode = optionalString(dir, "mode");
    if (!mode)
        return std::move(mode).error();
    if (mode->has_value()) {
        std::optional<model::IpoibMode> m = model::modeFromName((*mode)->c_str());
        if (!m)
            return malformed(join(dir, "mode"), **mode);
        ib.mode = *m;
    }
    auto umcast = readOptionalNumber(join(dir, "umcast"), 10);
    if (!umcast)
        return std::move(umcast).error();
    ib.umcast = umcast->value_or(0) != 0;
    auto parent = optionalString(dir, "parent");
    if (!parent)
        return std::move(parent).error();
    // A port's own interface shows itself (or nothing) as parent.
    if (parent->has_value() && **parent != nd.name)
        ib.parent = **parent;
    host.ipoib.push_back(std::move(ib));
    return {};
}

// Stage 5, a bond (a bonding directory): its mode, ports, primary, active
// port, miimon and fail_over_mac, added to host.
Status readBondAttrs(const std::string &dir, const std::string &name, model::Host &host)
{
    std::string bdir = dir + "/bonding";
    model::Bond b;
    b.name = name;
    auto mode = optionalString(bdir, "mode");
    if (!mode)
        return std::move(mode).error();
    b.mode = firstWord(mode->value_or(""));
    auto slaves = optionalString(bdir, "slaves");
    if (!slaves)
        return std::move(slaves).error();
    GStrvPtr parts(g_strsplit(slaves->value_or("").c_str(), " ", -1));
    for (char **p = parts.get(); *p; ++p)
        if (**p)
            b.ports.emplace_back(*p);
    auto primary = optionalString(bdir, "primary");
    if (!primary)
        return std::move(primary).error();
    b.primary = primary->value_or("");
    auto active = optionalString(bdir, "active_slave");
    if (!active)
        return std::move(active).error();
    b.activePort = active->value_or("");
    auto miimon = readOptionalNumber(join(bdir, "miimon"), 10);
    if (!miimon)
        return std::move(miimon).error();
    b.miimon = static_cast<unsigned>(miimon->value_or(0));
    auto fom = optionalString(bdir, "fail_over_mac");
    if (!fom)
        return std::move(fom).error();
    b.failOverMac = firstWord(fom->value_or(""));
    host.bonds.push_back(std::move(b));
    return {};
}

} // namespace

// The stages in order: the link, its kind and links, the RDMA port, then
// the IPoIB or bonding attributes.
Result<model::Netdev> readNetdev(const std::string &netDir, const std::string &name, model::Host &host)
{
    std::string dir = netDir + "/" + name;
    model::Netdev nd;
    nd.name = name;
    if (Status s = readLinkAttrs(dir, nd); !s.ok())
        return std::move(s).error();
    bool isBond = g_file_test(join(dir, "bonding").c_str(), G_FILE_TEST_IS_DIR);
    if (Status s = readKindAndLinks(dir, isBond, nd); !s.ok())
        return std::move(s).error();
    if (Status s = readRdmaPort(dir, nd); !s.ok())
        return std::move(s).error();
    if (nd.type == 32)
        if (Status s = readIpoibAttrs(dir, nd, host); !s.ok())
            return std::move(s).error();
    if (isBond)
        if (Status s = readBondAttrs(dir, name, host); !s.ok())
            return std::move(s).error();
    return nd;
}

} // namespace ibnm::platform::sysfs
