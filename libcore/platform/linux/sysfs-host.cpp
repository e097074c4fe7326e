// SPDX-License-Identifier: LGPL-2.1-or-later
// The host as sysfs shows it: the RDMA devices of class/infiniband with
// their ports, P_Keys, GID tables, traffic class and rdma_cm defaults, the
// netdevs of class/net (sysfs-netdev.cpp), and the netdev <-> RDMA port map.
#include "config.h"

#include "libcore/platform/linux/sysfs-private.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/model/ipoib.hpp"
#include "libcore/model/rdma.hpp"

#include <algorithm>
#include <map>
#include <string_view>
#include <cerrno>
#include <cstring>

#include <fcntl.h>

namespace ibnm::platform::sysfs {

namespace {

model::LinkLayer parseLinkLayer(const std::string &s)
{
    if (s == "InfiniBand")
        return model::LinkLayer::InfiniBand;
    if (s == "Ethernet")
        return model::LinkLayer::Ethernet;
    return model::LinkLayer::Unknown;
}

// mlx5 tc/<port>/traffic_class and ttl print a plain number or
// "Global tclass=N" / "Global ttl=N", possibly followed by rules.
Result<std::optional<unsigned>> readTcValue(const std::string &path, const char *key)
{
    auto text = readOptionalAttr(path);
    if (!text)
        return std::move(text).error();
    if (!text->has_value())
        return std::optional<unsigned>();
    std::string s = **text;
    std::string digits = s;
    std::string k = std::string(key) + "=";
    auto pos = s.find(k);
    if (pos != std::string::npos) {
        auto start = pos + k.size();
        auto end = start;
        while (end < s.size() && s[end] >= '0' && s[end] <= '9')
            end++;
        digits = s.substr(start, end - start);
    }
    if (!isNumber(digits))
        return malformed(path, s);
    auto v = parseNumber(digits, path, 10);
    if (!v)
        return std::move(v).error();
    if (*v > 255)
        return malformed(path, s);
    return std::optional<unsigned>(static_cast<unsigned>(*v));
}

constexpr char kZeroGid[] = "0000:0000:0000:0000:0000:0000:0000:0000";

// The used entries of ports/<n>/gids, with type and netdev. Per entry: one
// openat/read/close relative to the directory (no fstat when the listing
// says it is a regular file), no string built unless for an error or a
// used entry.
Status readGids(const std::string &portDir, std::vector<model::Gid> &out)
{
    std::string gidsDir = portDir + "/gids";
    // One lookup of each directory (the listing and the reads share the
    // gids one), then one path component per file.
    UniqueFd gidsFd(openConfined(gidsDir.c_str(), O_RDONLY | O_DIRECTORY));
    if (!gidsFd) {
        if (errno == ENOENT || errno == ENOTDIR)
            return {};
        return readError(-errno, gidsDir);
    }
    auto listing = listDirEntriesAt(gidsFd.get(), gidsDir);
    if (!listing)
        return std::move(listing).error();
    if (listing->entries.empty())
        return {};
    char buf[kMaxAttrSize];
    UniqueFd typesFd(openConfined((portDir + "/gid_attrs/types").c_str(), O_RDONLY | O_DIRECTORY));
    UniqueFd ndevsFd(openConfined((portDir + "/gid_attrs/ndevs").c_str(), O_RDONLY | O_DIRECTORY));
    auto pathOf = [&](const char *sub, std::string_view e) { return portDir + sub + std::string(e); };
    for (const auto &entry : listing->entries) {
        const char *name = listing->name(entry);
        std::string_view e(name, entry.length);
        if (!entry.plainNumber && !isNumber(std::string(e)))
            return Error(IBNM_ERROR_PARSE, _("unexpected entry")).withContext(gidsDir + "/" + std::string(e));
        ssize_t n = readRawAt(gidsFd.get(), name, buf, entry.type);
        if (n < 0)
            return readError(n, pathOf("/gids/", e));
        if (static_cast<size_t>(n) == sizeof(kZeroGid) - 1 && memcmp(buf, kZeroGid, sizeof(kZeroGid) - 1) == 0)
            continue;
        if (static_cast<size_t>(n) != sizeof(kZeroGid) - 1)
            return malformed(pathOf("/gids/", e), std::string(buf, static_cast<size_t>(n)));
        // All digits (checked above): the value, or more than UINT32_MAX.
        unsigned long long index = 0;
        for (char c : e) {
            index = index * 10 + static_cast<unsigned>(c - '0');
            if (index > UINT32_MAX)
                return malformed(pathOf("/gids/", e), std::string(e));
        }
        model::Gid g;
        g.index = static_cast<unsigned>(index);
        g.gid.assign(buf, static_cast<size_t>(n));

        // An entry the kernel has no attributes for reads EINVAL (or, on
        // older kernels, is absent): no type, no netdev.
        n = typesFd ? readRawAt(typesFd.get(), name, buf) : -ENOENT;
        if (n == -EFBIG)
            return tooLarge(pathOf("/gid_attrs/types/", e));
        if (n >= 0) {
            std::string_view t(buf, static_cast<size_t>(n));
            auto type = model::gidTypeFromName(t);
            if (!type)
                return malformed(pathOf("/gid_attrs/types/", e), std::string(t));
            g.type = *type;
        } else if (n != -EINVAL && n != -ENOENT) {
            return readError(n, pathOf("/gid_attrs/types/", e));
        }
        n = ndevsFd ? readRawAt(ndevsFd.get(), name, buf) : -ENOENT;
        if (n == -EFBIG)
            return tooLarge(pathOf("/gid_attrs/ndevs/", e));
        if (n >= 0)
            g.netdev.assign(buf, static_cast<size_t>(n));
        else if (n != -EINVAL && n != -ENOENT)
            return readError(n, pathOf("/gid_attrs/ndevs/", e));
        out.push_back(std::move(g));
    }
    return {};
}

// ports/<n>/pkeys: as the GID table, listed and read through one
// descriptor of the directory, a regular file without fstat(2); an entry
// the listing shows as anything else (a symlink) is read by its path as
// before.
Status readPkeys(const std::string &portDir, std::vector<uint16_t> &out)
{
    std::string dir = portDir + "/pkeys";
    UniqueFd dirFd(openConfined(dir.c_str(), O_RDONLY | O_DIRECTORY));
    if (!dirFd) {
        if (errno == ENOENT || errno == ENOTDIR)
            return {};
        return readError(-errno, dir);
    }
    auto listing = listDirEntriesAt(dirFd.get(), dir);
    if (!listing)
        return std::move(listing).error();
    char buf[kMaxAttrSize];
    std::string path, text; // one buffer each for all entries
    for (const auto &entry : listing->entries) {
        path.assign(dir).append("/").append(listing->name(entry), entry.length);
        if (entry.type == DT_REG) {
            ssize_t n = readRawAt(dirFd.get(), listing->name(entry), buf, entry.type);
            if (n < 0)
                return readError(n, path);
            text.assign(buf, static_cast<size_t>(n));
        } else {
            auto t = readAttr(path);
            if (!t)
                return std::move(t).error();
            text = std::move(t).value();
        }
        auto v = parseNumber(text, path, 16);
        if (!v)
            return std::move(v).error();
        if (*v > 0xffff)
            return malformed(path, text);
        if (*v != 0)
            out.push_back(static_cast<uint16_t>(*v));
    }
    return {};
}

Status readRoceDefaults(const std::string &configfsRoot, model::Device &dev)
{
    std::string devDir = configfsRoot + "/rdma_cm/" + dev.name;
    for (auto &port : dev.ports) {
        std::string portDir = devDir + "/ports/" + std::to_string(port.number);
        auto mode = readOptionalAttr(portDir + "/default_roce_mode");
        if (!mode)
            return std::move(mode).error();
        if (mode->has_value()) {
            port.defaultRoceMode = model::roceModeFromName(**mode);
            if (!port.defaultRoceMode)
                return malformed(portDir + "/default_roce_mode", **mode);
        }
        auto tos = readOptionalNumber(portDir + "/default_roce_tos", 10, 255);
        if (!tos)
            return std::move(tos).error();
        if (tos->has_value())
            port.defaultRoceTos = static_cast<unsigned>(**tos);
    }
    return {};
}

// The RDMA devices under class/infiniband (directories), in natural order.
// mlx5's per-PCI-function RoCE switch (<dev>/device/roce_enable), where the
// device has one: for readHost and for the GID-index advice (no GIDs when off).
Status readRoceEnabled(const std::string &deviceDir, model::Device &d)
{
    auto roce = readOptionalNumber(deviceDir + "/device/roce_enable", 10);
    if (!roce)
        return std::move(roce).error();
    if (roce->has_value())
        d.roceEnabled = **roce != 0;
    return {};
}

Result<std::vector<std::string>> deviceNames(const std::string &sysfsRoot)
{
    std::string ibDir = sysfsRoot + "/class/infiniband";
    auto names = listDir(ibDir);
    if (!names)
        return std::move(names).error();
    std::vector<std::string> out;
    for (auto &name : *names)
        if (g_file_test((ibDir + "/" + name).c_str(), G_FILE_TEST_IS_DIR))
            out.push_back(std::move(name));
    return out;
}

// The port numbers of a device's ports/ directory; any other entry is an
// error naming it.
Result<std::vector<unsigned>> portNumbers(const std::string &deviceDir)
{
    auto entries = listDir(deviceDir + "/ports");
    if (!entries)
        return std::move(entries).error();
    std::vector<unsigned> out;
    for (const auto &pn : *entries) {
        if (!isNumber(pn))
            return Error(IBNM_ERROR_PARSE, _("unexpected entry")).withContext(deviceDir + "/ports/" + pn);
        auto n = parseNumber(pn, deviceDir + "/ports/" + pn, 10);
        if (!n)
            return std::move(n).error();
        if (*n < 1 || *n > model::kMaxRdmaPort)
            return Error(IBNM_ERROR_PARSE, strprintf(_("port number %s is out of range (1 to %u)"), pn.c_str(),
                                                     model::kMaxRdmaPort))
                .withContext(deviceDir + "/ports/" + pn);
        out.push_back(static_cast<unsigned>(*n));
    }
    return out;
}

} // namespace

Result<model::Port> readPort(const std::string &deviceDir, unsigned number, bool gidTables)
{
    std::string dir = deviceDir + "/ports/" + std::to_string(number);
    model::Port p;
    p.number = number;
    struct {
        const char *file;
        std::string *out;
    } strings[] = {{"state", &p.state}, {"phys_state", &p.physState}, {"rate", &p.rate}};
    for (auto &s : strings) {
        auto v = optionalString(dir, s.file);
        if (!v)
            return std::move(v).error();
        *s.out = v->value_or("");
    }
    auto ll = optionalString(dir, "link_layer");
    if (!ll)
        return std::move(ll).error();
    if (ll->has_value()) {
        p.linkLayer = parseLinkLayer(**ll);
        if (p.linkLayer == model::LinkLayer::Unknown)
            return malformed(join(dir, "link_layer"), **ll);
    }
    auto lid = readOptionalNumber(join(dir, "lid"), 16);
    if (!lid)
        return std::move(lid).error();
    if (lid->has_value())
        p.lid = static_cast<uint32_t>(**lid);
    auto smLid = readOptionalNumber(join(dir, "sm_lid"), 16);
    if (!smLid)
        return std::move(smLid).error();
    if (smLid->has_value())
        p.smLid = static_cast<uint32_t>(**smLid);
    if (auto st = readPkeys(dir, p.pkeys); !st)
        return std::move(st).error();
    if (gidTables)
        if (auto st = readGids(dir, p.gids); !st)
            return std::move(st).error();
    return p;
}

Result<model::Device> readDevice(const std::string &sysfsRoot, const std::string &name, bool gidTables)
{
    std::string dir = sysfsRoot + "/class/infiniband/" + name;
    model::Device d;
    d.name = name;
    struct {
        const char *file;
        std::string *out;
    } strings[] = {{"node_guid", &d.nodeGuid}, {"node_type", &d.nodeType}, {"fw_ver", &d.fwVersion},
                   {"hca_type", &d.hcaType},    {"board_id", &d.boardId}};
    for (auto &s : strings) {
        auto v = optionalString(dir, s.file);
        if (!v)
            return std::move(v).error();
        *s.out = v->value_or("");
    }
    // The PCI function behind the device (RoCE LAG pairs the two of one
    // card); a dump whose "device" is no link just has none.
    auto pci = readLinkName(dir + "/device");
    d.pciAddress = pci ? pci->value_or("") : "";
    auto driver = readLinkName(dir + "/device/driver");
    if (!driver)
        return std::move(driver).error();
    d.driver = driver->value_or("");
    if (d.driver.empty()) {
        // Soft devices have no parent device: rxe shows its netdev in
        // "parent"; siw names its node type RNIC.
        if (g_file_test(join(dir, "parent").c_str(), G_FILE_TEST_EXISTS))
            d.driver = model::softLinkDriver(model::SoftLinkType::Rxe);
        else if (g_str_has_prefix(d.nodeType.c_str(), "4:") && d.hcaType.empty())
            d.driver = model::softLinkDriver(model::SoftLinkType::Siw);
    }
    if (Status st = readRoceEnabled(dir, d); !st.ok())
        return std::move(st).error();

    auto ports = portNumbers(dir);
    if (!ports)
        return std::move(ports).error();
    for (unsigned number : *ports) {
        auto port = readPort(dir, number, gidTables);
        if (!port)
            return std::move(port).error();
        std::string tcDir = dir + "/tc/" + std::to_string(number);
        auto tcText = readOptionalAttr(tcDir + "/traffic_class");
        if (!tcText)
            return std::move(tcText).error();
        if (tcText->has_value()) {
            // The global value and the rules (model::parseTrafficClassFile).
            auto tc = model::parseTrafficClassFile(**tcText);
            if (!tc)
                return malformed(tcDir + "/traffic_class", **tcText);
            port->trafficClass = tc->global;
            port->tcRules = tc->rules;
        }
        auto ttl = readTcValue(tcDir + "/ttl", "ttl");
        if (!ttl)
            return std::move(ttl).error();
        port->ttl = *ttl;
        d.ports.push_back(std::move(port).value());
    }
    // mlx5 IPoIB is Enhanced IPoIB (datagram only) on InfiniBand ports.
    bool ib = std::any_of(d.ports.begin(), d.ports.end(),
                          [](const model::Port &p) { return p.linkLayer == model::LinkLayer::InfiniBand; });
    d.enhancedIpoib = ib && model::enhancedIpoibDriver(d.driver);
    d.connectedModeSupported = !d.enhancedIpoib;
    return d;
}

Result<model::Host> readHost(const ReadOptions &options)
{
    ConfineTo confine(options.sysfsRoot);
    model::Host host;
    auto devices = deviceNames(options.sysfsRoot);
    if (!devices)
        return std::move(devices).error();
    for (const auto &name : *devices) {
        auto dev = readDevice(options.sysfsRoot, name, options.gidTables);
        if (!dev)
            return std::move(dev).error();
        if (!options.configfsRoot.empty())
            if (auto st = readRoceDefaults(options.configfsRoot, *dev); !st)
                return std::move(st).error();
        host.devices.push_back(std::move(dev).value());
    }

    std::string netDir = options.sysfsRoot + "/class/net";
    auto netdevs = listDir(netDir);
    if (!netdevs)
        return std::move(netdevs).error();
    for (const auto &name : *netdevs) {
        // class/net also holds files such as bonding_masters.
        if (!g_file_test((netDir + "/" + name).c_str(), G_FILE_TEST_IS_DIR))
            continue;
        auto nd = readNetdev(netDir, name, host);
        if (!nd)
            return std::move(nd).error();
        host.netdevs.push_back(std::move(nd).value());
    }

    if (options.gidTables)
        mapNetdevsByGids(host);
    return host;
}

void mapNetdevsByGids(model::Host &host)
{
    // One pass over the GID tables (the first port naming a netdev wins, as
    // the scan per netdev did), then one lookup per netdev.
    std::map<std::string, std::pair<const std::string *, unsigned>> byNetdev;
    for (const auto &dev : host.devices)
        for (const auto &port : dev.ports)
            for (const auto &gid : port.gids)
                if (!gid.netdev.empty())
                    byNetdev.emplace(gid.netdev, std::make_pair(&dev.name, port.number));
    for (auto &nd : host.netdevs) {
        if (!nd.rdmaDevice.empty())
            continue;
        auto it = byNetdev.find(nd.name);
        if (it != byNetdev.end()) {
            nd.rdmaDevice = *it->second.first;
            nd.rdmaPort = it->second.second;
        }
    }
}

Status readPortGids(const std::string &sysfsRoot, const std::string &device, unsigned port,
                    std::vector<model::Gid> &out)
{
    ConfineTo confine(sysfsRoot);
    return readGids(sysfsRoot + "/class/infiniband/" + device + "/ports/" + std::to_string(port), out);
}

Result<model::Host> readGidTables(const std::string &sysfsRoot, bool gidTables)
{
    ConfineTo confine(sysfsRoot);
    model::Host host;
    auto devices = deviceNames(sysfsRoot);
    if (!devices)
        return std::move(devices).error();
    for (const auto &name : *devices) {
        std::string dir = sysfsRoot + "/class/infiniband/" + name;
        model::Device d;
        d.name = name;
        // What GID-index advice needs besides the tables: which ports are
        // RoCE, and whether RoCE is disabled (no GIDs then).
        if (Status st = readRoceEnabled(dir, d); !st.ok())
            return std::move(st).error();
        auto ports = portNumbers(dir);
        if (!ports)
            return std::move(ports).error();
        for (unsigned number : *ports) {
            model::Port p;
            p.number = number;
            std::string portDir = dir + "/ports/" + std::to_string(number);
            auto ll = readOptionalAttr(portDir + "/link_layer");
            if (!ll)
                return std::move(ll).error();
            if (ll->has_value())
                p.linkLayer = parseLinkLayer(**ll);
            if (gidTables)
                if (auto st = readGids(dir + "/ports/" + std::to_string(number), p.gids); !st)
                    return std::move(st).error();
            d.ports.push_back(std::move(p));
        }
        host.devices.push_back(std::move(d));
    }
    return host;
}

} // namespace ibnm::platform::sysfs
