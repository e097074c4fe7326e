// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/simulator/fake-platform.hpp"

#include "libcore/support/files.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/support/file-lock.hpp"

#include <glib/gstdio.h>

#include <algorithm>
#include <set>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <unordered_map>
#include <utility>

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace ibnm::platform {

using model::GidType;
using model::IpoibMode;
using model::LinkLayer;
using model::RoceMode;
using model::SoftLinkType;

namespace {

constexpr unsigned kIpoibCmMtu = 65520;
constexpr uint16_t kFullMembership = 0x8000;

// An error as the kernel reports it: errno, the object named first.
Error kernelError(int errnum, const std::string &object, IbnmError code = IBNM_ERROR_PLATFORM,
                  const std::string &detail = {})
{
    std::string msg = detail.empty() ? std::string(g_strerror(errnum)) : detail + " (" + g_strerror(errnum) + ")";
    return Error(code, std::move(msg), errnum).withContext(object);
}

// A journal record's arguments (fake-journal.hpp): numbers, enums and
// booleans in decimal; an optional is "" when absent, "=" and the value
// when set.
template <typename T>
std::string num(T v)
{
    return std::to_string(static_cast<unsigned long long>(v));
}

template <typename T>
std::string optNum(const std::optional<T> &v)
{
    return v ? "=" + num(*v) : std::string();
}

std::string optText(const std::optional<std::string> &v)
{
    return v ? "=" + *v : std::string();
}

Error noSuchNetdev(const std::string &name)
{
    return kernelError(ENODEV, name, IBNM_ERROR_NOT_FOUND);
}

model::Netdev *findNetdev(model::Host &h, const std::string &name)
{
    for (auto &n : h.netdevs)
        if (n.name == name)
            return &n;
    return nullptr;
}

model::IpoibNetdev *findIpoib(model::Host &h, const std::string &name)
{
    for (auto &n : h.ipoib)
        if (n.name == name)
            return &n;
    return nullptr;
}

model::Device *findDevice(model::Host &h, const std::string &name)
{
    for (auto &d : h.devices)
        if (d.name == name)
            return &d;
    return nullptr;
}

model::Bond *findBond(model::Host &h, const std::string &name)
{
    for (auto &b : h.bonds)
        if (b.name == name)
            return &b;
    return nullptr;
}

const model::SoftLink *findSoftLink(const model::Host &h, const std::string &name)
{
    for (const auto &l : h.softLinks)
        if (l.name == name)
            return &l;
    return nullptr;
}

bool parseMac(const std::string &mac, unsigned m[6])
{
    return std::sscanf(mac.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) == 6;
}

std::string linkLocalGid(const std::string &mac)
{
    unsigned m[6];
    if (!parseMac(mac, m))
        return {};
    return strprintf("fe80:0000:0000:0000:%02x%02x:%02xff:fe%02x:%02x%02x", m[0] ^ 0x02, m[1], m[2], m[3], m[4],
                     m[5]);
}

std::string siwGid(const std::string &mac)
{
    unsigned m[6];
    if (!parseMac(mac, m))
        return {};
    return strprintf("%02x%02x:%02x%02x:%02x%02x:0000:0000:0000:0000:0000", m[0], m[1], m[2], m[3], m[4], m[5]);
}

// The GID of an address ("192.0.2.1/24", "2001:db8::1/64") as sysfs prints
// it; empty for IPv6 link-local addresses (the default GID covers them).
std::string addressGid(const std::string &cidr)
{
    std::string addr = cidr.substr(0, cidr.find('/'));
    unsigned char b[16] = {};
    if (addr.find(':') == std::string::npos) {
        if (inet_pton(AF_INET, addr.c_str(), b + 12) != 1)
            return {};
        b[10] = b[11] = 0xff;
    } else {
        if (inet_pton(AF_INET6, addr.c_str(), b) != 1)
            return {};
        if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
            return {};
    }
    std::string out;
    for (int i = 0; i < 16; i += 2)
        out += strprintf("%s%02x%02x", i ? ":" : "", b[i], b[i + 1]);
    return out;
}

bool isIpv4(const std::string &cidr)
{
    return cidr.find(':') == std::string::npos;
}

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

unsigned ibMtuFor(unsigned netdevMtu)
{
    // rxe/siw: the largest IB MTU that fits the Ethernet MTU with the
    // RoCE v2 headers.
    for (unsigned m : {4096u, 2048u, 1024u, 512u})
        if (netdevMtu >= m + 80)
            return m;
    return 256;
}

// RoCE LAG, as the mlx5 driver's lag code does it (NVIDIA's RoCE page): a
// bond in active-backup, balance-xor or 802.3ad whose only ports are the
// Ethernet netdevs of the two functions of one dual-port mlx5 card makes the
// card's two RDMA devices one, mlx5_bond_<n>, built on the first function
// and serving the bond; any other bond leaves the devices per port. Worked
// out from the stored state, where the per-port devices stay.
struct Lag {
    std::string name, primary, secondary, bond;
};

std::vector<Lag> lagsOf(const model::Host &h)
{
    std::vector<Lag> out;
    for (const auto &b : h.bonds) {
        if (b.mode != "active-backup" && b.mode != "balance-xor" && b.mode != "802.3ad")
            continue;
        std::vector<const model::Device *> devs;
        unsigned ports = 0;
        for (const auto &n : h.netdevs) {
            if (n.master != b.name)
                continue;
            ports++;
            const model::Device *d = h.findDevice(n.rdmaDevice);
            if (d && d->driver == "mlx5_core" && d->ports.size() == 1 &&
                d->ports[0].linkLayer == LinkLayer::Ethernet && !d->pciAddress.empty())
                devs.push_back(d);
        }
        if (ports != 2 || devs.size() != 2 || devs[0] == devs[1])
            continue;
        auto slot = [](const std::string &pci) { return pci.substr(0, pci.rfind('.')); };
        if (slot(devs[0]->pciAddress) != slot(devs[1]->pciAddress) || devs[0]->pciAddress == devs[1]->pciAddress)
            continue;
        if (devs[1]->pciAddress < devs[0]->pciAddress)
            std::swap(devs[0], devs[1]);
        out.push_back({"mlx5_bond_" + std::to_string(out.size()), devs[0]->name, devs[1]->name, b.name});
    }
    return out;
}

// The host as the kernel shows it in LAG mode: the bonded device in place
// of the first function's, the second hidden, the bond its netdev.
void applyLags(model::Host &h)
{
    for (const auto &l : lagsOf(h)) {
        for (auto &d : h.devices)
            if (d.name == l.primary)
                d.name = l.name;
        h.devices.erase(std::remove_if(h.devices.begin(), h.devices.end(),
                                       [&](const model::Device &d) { return d.name == l.secondary; }),
                        h.devices.end());
        for (auto &n : h.netdevs) {
            if (n.name == l.bond) {
                n.rdmaDevice = l.name;
                n.rdmaPort = 1;
            } else if (n.rdmaDevice == l.primary || n.rdmaDevice == l.secondary) {
                n.rdmaDevice.clear();
                n.rdmaPort = 0;
            }
        }
    }
}

// The values the kernel derives, filled into a snapshot.
void derive(model::Host &h)
{
    for (auto &b : h.bonds) {
        b.ports.clear();
        for (const auto &n : h.netdevs)
            if (n.master == b.name)
                b.ports.push_back(n.name);
    }
    applyLags(h);
    // One index of the netdevs, not a scan per IPoIB netdev (issue 17).
    std::unordered_map<std::string, const model::Netdev *> netdevs;
    for (const auto &n : h.netdevs)
        netdevs.emplace(n.name, &n);
    for (auto &ib : h.ipoib) {
        auto it = netdevs.find(ib.name);
        if (const auto *n = it == netdevs.end() ? nullptr : it->second) {
            ib.mtu = n->mtu;
            ib.address = n->address;
            ib.portGuid = portGuidFromIpoibAddress(n->address);
        }
    }
    for (auto &d : h.devices) {
        const model::SoftLink *soft = findSoftLink(h, d.name);
        for (auto &p : d.ports) {
            if (p.linkLayer != LinkLayer::Ethernet)
                continue;
            std::vector<const model::Netdev *> base;
            if (soft) {
                if (const auto *n = h.findNetdev(soft->netdev))
                    base.push_back(n);
            } else {
                for (const auto &n : h.netdevs)
                    if (n.rdmaDevice == d.name && n.rdmaPort == p.number && n.link.empty())
                        base.push_back(&n);
            }
            std::vector<const model::Netdev *> all = base;
            for (const auto &n : h.netdevs)
                for (const auto *b : base)
                    if (n.link == b->name && n.kind == "vlan")
                        all.push_back(&n);

            p.gids.clear();
            // roce_enable 0: "there will be no GID tables" (NVIDIA's RoCE page).
            if (d.roceEnabled == false)
                continue;
            if (soft && soft->type == SoftLinkType::Siw) {
                if (!base.empty())
                    p.gids.push_back({0, siwGid(base.front()->address), GidType::IbRoceV1, ""});
            } else {
                std::vector<GidType> types;
                if (!soft)
                    types.push_back(GidType::IbRoceV1);
                types.push_back(GidType::RoceV2);
                unsigned idx = 0;
                auto add = [&](const std::string &gid, const std::string &netdev) {
                    if (gid.empty())
                        return;
                    for (auto t : types)
                        p.gids.push_back({idx++, gid, t, netdev});
                };
                for (const auto *n : base)
                    add(linkLocalGid(n->address), n->name);
                for (const auto *n : all)
                    for (const auto &a : n->addresses)
                        if (isIpv4(a))
                            add(addressGid(a), n->name);
                for (const auto *n : all)
                    for (const auto &a : n->addresses)
                        if (!isIpv4(a))
                            add(addressGid(a), n->name);
            }
            if (soft) {
                bool up = !base.empty() && base.front()->up;
                p.state = up ? "4: ACTIVE" : "1: DOWN";
                p.physState = up ? "5: LinkUp" : "3: Disabled";
                p.activeMtu = std::min(p.maxMtu.value_or(4096), base.empty() ? 1024 : ibMtuFor(base.front()->mtu));
            }
        }
    }
    // VLANs over a RoCE netdev map to its port, as gid_attrs/ndevs shows.
    for (auto &n : h.netdevs) {
        if (n.kind == "vlan" && n.rdmaDevice.empty()) {
            if (const auto *lower = h.findNetdev(n.link)) {
                n.rdmaDevice = lower->rdmaDevice;
                n.rdmaPort = lower->rdmaPort;
            }
        }
    }
}

// dev_valid_name(): at most 15 bytes, not "." or "..", no "/", ":" or
// blank; and one the state file can hold.
bool validNetdevName(const std::string &name)
{
    return name.size() <= 15 && name != "." && name != ".." &&
           name.find_first_of("/: \t\n\v\f\r") == std::string::npos && isStorableId(name);
}

unsigned nextIfindex(const model::Host &h)
{
    unsigned next = 1;
    for (const auto &n : h.netdevs)
        next = std::max(next, n.ifindex + 1);
    return next;
}

const model::Port *portOf(const model::Host &h, const model::Netdev &n)
{
    const model::Device *d = h.findDevice(n.rdmaDevice);
    if (d == nullptr || n.rdmaPort == 0 || n.rdmaPort > d->ports.size())
        return nullptr;
    return &d->ports[n.rdmaPort - 1];
}

// Datagram MTU limits of an IPoIB netdev: (maximum accepted, effective
// ceiling): IPOIB_UD_MTU(port max MTU) and min(active, broadcast group) - 4.
std::pair<unsigned, unsigned> datagramLimits(const model::Host &h, const model::Netdev &n)
{
    const model::Port *p = portOf(h, n);
    unsigned max = p && p->maxMtu ? *p->maxMtu : 4096;
    unsigned link = p && p->activeMtu ? *p->activeMtu : max;
    unsigned bcast = p && p->broadcastMtu ? *p->broadcastMtu : link;
    return {max - 4, std::min(link, bcast) - 4};
}

struct ErrnoName {
    const char *name;
    int value;
};
const ErrnoName kErrnos[] = {
    {"EPERM", EPERM},   {"ENOENT", ENOENT},       {"EIO", EIO},           {"ENXIO", ENXIO},
    {"EAGAIN", EAGAIN}, {"ENOMEM", ENOMEM},       {"EACCES", EACCES},     {"EBUSY", EBUSY},
    {"EEXIST", EEXIST}, {"ENODEV", ENODEV},       {"EINVAL", EINVAL},     {"ENOSPC", ENOSPC},
    {"ERANGE", ERANGE}, {"EOPNOTSUPP", EOPNOTSUPP}, {"ETIMEDOUT", ETIMEDOUT}, {"ENOTUNIQ", ENOTUNIQ},
    {"EADDRNOTAVAIL", EADDRNOTAVAIL}, {"ENOBUFS", ENOBUFS}, {"EPROTO", EPROTO},
};

} // namespace

const std::vector<std::string> &fakeOperationNames()
{
    static const std::vector<std::string> names = {
        "createIpoibChild", "deleteIpoibChild", "setIpoibMode",   "setIpoibUmcast",     "setMtu",
        "setUp",            "createBond",       "setBondOptions", "enslave",            "release",
        "deleteLink",       "addAddress",       "removeAddress",  "addRoute",           "removeRoute",
        "addSoftLink",      "deleteSoftLink",   "setDefaultRoceMode", "setDefaultRoceTos", "removeRoceDefaults",
        "setTrafficClass",  "clearTrafficClass", "setTtl",        "writeHostFile",    "removeHostFile",
        "prepare",          "setTrafficClassRule", "setRoceEnabled",
    };
    return names;
}

Result<std::vector<FaultRule>> parseFaultRules(const std::string &spec)
{
    std::vector<FaultRule> rules;
    GStrvPtr items(g_strsplit(spec.c_str(), ";", -1));
    for (char **item = items.get(); *item; item++) {
        std::string text = g_strstrip(*item);
        if (text.empty())
            continue;
        FaultRule r;
        r.nth = 1;
        bool errnoGiven = false;
        GStrvPtr fields(g_strsplit(text.c_str(), ",", -1));
        for (char **f = fields.get(); *f; f++) {
            std::string kv = g_strstrip(*f);
            size_t eq = kv.find('=');
            std::string key = kv.substr(0, eq);
            std::string val = eq == std::string::npos ? std::string() : kv.substr(eq + 1);
            if (key == "op") {
                const auto &ops = fakeOperationNames();
                if (val != "*" && std::find(ops.begin(), ops.end(), val) == ops.end())
                    return Error(IBNM_ERROR_INVALID_ARGUMENT, strprintf(_("unknown operation “%s”"), val.c_str()))
                        .withContext("IBNM_FAKE_FAIL");
                r.op = val == "*" ? std::string() : val;
            } else if (key == "nth") {
                guint64 n = 0;
                // nth counts from 1: 0 names no call (it used to mean
                // every one, which "every" says).
                if (val == "every" || val == "all")
                    r.every = true;
                else if (g_ascii_string_to_unsigned(val.c_str(), 10, 1, G_MAXUINT, &n, nullptr))
                    r.nth = static_cast<unsigned>(n);
                else
                    return Error(IBNM_ERROR_INVALID_ARGUMENT,
                                 strprintf(_("nth must be a number from 1 or “every”, not “%s”"), val.c_str()))
                        .withContext("IBNM_FAKE_FAIL");
            } else if (key == "errno") {
                int found = 0;
                for (const auto &e : kErrnos)
                    if (val == e.name)
                        found = e.value;
                guint64 n = 0;
                if (found == 0 && g_ascii_string_to_unsigned(val.c_str(), 10, 1, 4095, &n, nullptr))
                    found = static_cast<int>(n);
                if (found == 0)
                    return Error(IBNM_ERROR_INVALID_ARGUMENT, strprintf(_("unknown errno “%s”"), val.c_str()))
                        .withContext("IBNM_FAKE_FAIL");
                r.errnum = found;
                errnoGiven = true;
            } else if (key == "delay") {
                guint64 n = 0;
                if (!g_ascii_string_to_unsigned(val.c_str(), 10, 0, 600000, &n, nullptr))
                    return Error(IBNM_ERROR_INVALID_ARGUMENT,
                                 strprintf(_("delay must be a number of milliseconds, not “%s”"), val.c_str()))
                        .withContext("IBNM_FAKE_FAIL");
                r.delayMs = static_cast<unsigned>(n);
            } else {
                return Error(IBNM_ERROR_INVALID_ARGUMENT,
                             strprintf(_("unknown field “%s” (expected op, nth, errno, delay)"), key.c_str()))
                    .withContext("IBNM_FAKE_FAIL");
            }
        }
        // A delay alone slows the operation down and lets it succeed.
        if (r.delayMs > 0 && !errnoGiven)
            r.errnum = 0;
        rules.push_back(std::move(r));
    }
    return rules;
}

FakePlatform::FakePlatform(FakeState state) : state_(std::move(state)), base_(state_) {}

FakePlatform::~FakePlatform() = default;

std::string FakePlatform::defaultStateDir(const std::string &hostFile)
{
    return hostFile + ".state";
}

Result<std::unique_ptr<FakePlatform>> FakePlatform::open(const std::string &hostFile, const std::string &stateDir)
{
    auto st = loadHostDescription(hostFile);
    if (!st.ok())
        return std::move(st).error();
    auto fake = std::make_unique<FakePlatform>(std::move(st).value());
    fake->hostFile_ = hostFile;
    fake->stateDir_ = stateDir;
    if (!stateDir.empty()) {
        if (g_mkdir_with_parents(stateDir.c_str(), 0755) != 0)
            return Error::fromErrno(errno, stateDir);
        auto loaded = fake->transact(false, [] { return Status(); });
        if (!loaded.ok())
            return std::move(loaded).error();
    }
    if (const char *env = g_getenv("IBNM_FAKE_FAIL")) {
        auto rules = parseFaultRules(env);
        if (!rules.ok())
            return std::move(rules).error();
        fake->addFaults(std::move(rules).value());
    }
    return fake;
}

void FakePlatform::addFaults(std::vector<FaultRule> rules)
{
    for (auto &r : rules)
        faults_.push_back(std::move(r));
}

Status FakePlatform::loadState()
{
    std::string statePath = stateDir_ + "/state";
    std::string journalPath = stateDir_ + "/journal";
    auto id = journal::snapshotId(statePath);
    if (!id.ok())
        return std::move(id).error();
    if (!id->has_value()) {
        // No snapshot: the host as described. Its bytes are compared with
        // those this instance parsed (only until the first operation
        // writes a snapshot).
        auto text = readHostDescriptionText(hostFile_);
        if (!text.ok())
            return std::move(text).error();
        if (loadedValid_ && loadedId_.empty() && *text == loadedText_)
            return {};
        auto st = parseHostDescription(*text, hostFile_);
        if (!st.ok())
            return std::move(st).error();
        state_ = std::move(st).value();
        rebase();
        loadedText_ = std::move(text).value();
        loadedId_.clear();
        journalEnd_ = 0;
        journalOk_ = false;
        loadedValid_ = true;
        return {};
    }
    if (!loadedValid_ || **id != loadedId_ || loadedId_.empty()) {
        // Another instance wrote a new snapshot (or this one has none yet).
        // A file without an id (older ibnm) is a snapshot without journal.
        auto text = readHostDescriptionText(statePath);
        if (!text.ok())
            return std::move(text).error();
        auto st = parseHostDescription(*text, statePath);
        if (!st.ok())
            return std::move(st).error();
        state_ = std::move(st).value();
        rebase();
        loadedText_.clear();
        loadedId_ = **id;
        journalEnd_ = 0;
        journalOk_ = false;
        loadedValid_ = true;
        if (loadedId_.empty())
            return {};
    }
    // The operations other instances did since this one last looked.
    auto tail = journal::readFrom(journalPath, loadedId_, journalEnd_);
    if (!tail.ok()) {
        loadedValid_ = false;
        return std::move(tail).error();
    }
    journalOk_ = tail->sameId;
    for (const auto &r : tail->records) {
        if (auto st = replay(r); !st.ok()) {
            loadedValid_ = false;
            return std::move(st).withContext(journalPath + ": " + r.op);
        }
        if (r.ok)
            records_.push_back(r);
    }
    journalEnd_ = tail->end;
    return {};
}


Status FakePlatform::saveState()
{
    std::string path = stateDir_ + "/state";
    std::string id = journal::newId();
    std::string text = "# The simulated host's state (ibnm). Delete this directory to reset it.\n" +
                       journal::snapshotLine(id) + formatHostDescription(state_);
    // A temporary file renamed over the old one: readers see the old or the
    // new state, never half of one (not durable: see kSimulatorFile).
    if (Status s = atomicWriteFile(path, text, journal::kSimulatorFile); !s.ok())
        return s;
    rebase();
    loadedText_.clear();
    loadedId_ = std::move(id);
    loadedValid_ = true;
    // The snapshot holds everything: if the new journal cannot be started,
    // the old one (another id) is ignored, and the next operation writes a
    // snapshot again.
    auto end = journal::create(stateDir_ + "/journal", loadedId_);
    journalOk_ = end.ok();
    journalEnd_ = end.ok() ? *end : 0;
    return {};
}

Status FakePlatform::saveRecord(const journal::Record &r)
{
    if (loadedId_.empty() || !journalOk_ || records_.size() >= compactAfter())
        return saveState();
    std::string line = journal::encode(r);
    if (auto st = journal::append(stateDir_ + "/journal", journalEnd_, line); !st.ok())
        return st;
    journalEnd_ += line.size();
    return {};
}

size_t FakePlatform::compactAfter() const
{
    const auto &h = state_.host;
    return std::max<size_t>(256, h.netdevs.size() + h.ipoib.size() + h.devices.size() + h.bonds.size() +
                                     h.softLinks.size() + state_.files.size());
}

void FakePlatform::rebase()
{
    base_ = state_;
    records_.clear();
}

Status FakePlatform::restore()
{
    state_ = base_;
    for (const auto &r : records_)
        if (auto st = replay(r); !st.ok())
            return st;
    return {};
}

namespace {

// Removes "state.XXXXXX" and "journal.XXXXXX": the temporary files of a
// process killed while it wrote a snapshot. Called under the exclusive lock,
// which every writer holds while its temporary file exists.
void removeStaleTempFiles(const std::string &dir)
{
    GDirPtr d(g_dir_open(dir.c_str(), 0, nullptr));
    if (!d)
        return;
    while (const char *name = g_dir_read_name(d.get())) {
        std::string n = name;
        for (const char *prefix : {"state.", "journal."}) {
            size_t len = std::char_traits<char>::length(prefix);
            if (n.size() != len + 6 || n.compare(0, len, prefix) != 0)
                continue;
            if (std::all_of(n.begin() + len, n.end(), [](char c) { return g_ascii_isalnum(c); }))
                g_unlink((dir + "/" + n).c_str());
        }
    }
}

} // namespace

template <typename Fn>
Status FakePlatform::transact(bool write, Fn &&fn)
{
    if (replaying_)
        return fn();
    if (stateDir_.empty()) {
        Status result = fn();
        // A change no record describes (addNetdev, reset) is the new base.
        if (write && !pending_)
            rebase();
        else if (records_.size() >= compactAfter())
            rebase();
        pending_.reset();
        return result;
    }
    std::string lockPath = stateDir_ + "/lock";
    UniqueFd fd(::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (!fd)
        return Error::fromErrno(errno, lockPath);
    while (flock(fd.get(), write ? LOCK_EX : LOCK_SH) != 0) {
        if (errno != EINTR)
            return Error::fromErrno(errno, lockPath);
    }
    // Once per process: under the lock (even a shared one) no writer is
    // between creating its temporary file and renaming it.
    if (!staleTempsRemoved_) {
        staleTempsRemoved_ = true;
        removeStaleTempFiles(stateDir_);
    }
    if (auto s = loadState(); !s.ok())
        return s;
    if (!write)
        return fn();
    pending_.reset();
    Status result = fn();
    std::optional<journal::Record> record = std::move(pending_);
    pending_.reset();
    if (discardState_) {
        discardState_ = false;
        loadedValid_ = false; // the next operation reads the host file
        for (const char *name : {"/state", "/journal"}) {
            std::string path = stateDir_ + name;
            if (g_unlink(path.c_str()) != 0 && errno != ENOENT)
                return Error::fromErrno(errno, path);
        }
    } else if (auto s = record ? saveRecord(*record) : saveState(); !s.ok()) {
        // Nothing was written: the next operation reads the files again
        // instead of this instance's unsaved state.
        loadedValid_ = false;
        return s;
    }
    return result;
}

template <typename Fn>
Status FakePlatform::mutate(const char *op, const std::string &object, std::vector<std::string> args, Fn &&fn)
{
    // Entering or leaving RoCE LAG, the driver re-creates the card's RDMA
    // devices: their configfs directories and mlx5 tc/ settings are gone.
    auto withLag = [&]() -> Status {
        auto key = [](const model::Host &h) {
            std::set<std::string> k;
            for (const auto &l : lagsOf(h))
                k.insert(l.name + "=" + l.primary + "+" + l.secondary);
            return k;
        };
        auto before = key(state_.host);
        Status s = fn();
        if (!s.ok() || key(state_.host) == before)
            return s;
        std::set<std::string> changed;
        std::set<std::string> all = before;
        for (const auto &k : key(state_.host))
            all.insert(k);
        for (const auto &k : all) {
            auto eq = k.find('='), plus = k.find('+');
            changed.insert(k.substr(eq + 1, plus - eq - 1));
            changed.insert(k.substr(plus + 1));
        }
        for (auto &d : state_.host.devices)
            if (changed.count(d.name))
                for (auto &p : d.ports) {
                    p.defaultRoceMode.reset();
                    p.defaultRoceTos.reset();
                    p.trafficClass.reset();
                    p.tcRules.clear();
                    p.ttl.reset();
                }
        return s;
    };
    return transact(true, [&]() -> Status {
        state_.operations++;
        if (replaying_)
            return withLag();
        pending_ = journal::Record{false, op, {}};
        if (Status f = injectFault(op, true, object); !f.ok())
            return f;
        Status s = withLag();
        if (!s.ok()) {
            // A refusal halfway changes nothing: back to the last base and
            // the operations since (no copy of the state on success).
            uint64_t ops = state_.operations;
            if (auto r = restore(); !r.ok())
                loadedValid_ = false;
            state_.operations = ops;
            return s;
        }
        pending_->ok = true;
        pending_->args = std::move(args);
        records_.push_back(*pending_);
        return s;
    });
}

std::string FakePlatform::storedDevice(const std::string &name) const
{
    for (const auto &l : lagsOf(state_.host)) {
        if (name == l.name)
            return l.primary;
        if (name == l.primary || name == l.secondary)
            return {};
    }
    return name;
}

Status FakePlatform::injectFault(const std::string &op, bool anyRule, const std::string &object)
{
    for (auto &r : faults_) {
        if (r.op.empty() ? !anyRule : r.op != op)
            continue;
        r.seen++;
        if (!r.every && r.seen != r.nth)
            continue;
        if (r.delayMs > 0)
            g_usleep(gulong(r.delayMs) * 1000);
        if (r.errnum != 0)
            return kernelError(r.errnum, object);
    }
    return {};
}

Status FakePlatform::prepare(const Prerequisites &needs)
{
    // Modules and mounts are no objects of the simulated host: recorded,
    // neither counted nor persisted. Only a rule naming "prepare" fails it
    // ("op=*" rules keep counting the kernel operations alone).
    if (needs.empty())
        return {};
    if (Status f = injectFault("prepare", false, "prepare"); !f.ok())
        return f;
    prepared_.push_back(needs);
    return {};
}

uint64_t FakePlatform::operationCount()
{
    (void)transact(false, [] { return Status(); });
    return state_.operations;
}

Status FakePlatform::reset()
{
    if (stateDir_.empty()) {
        if (hostFile_.empty())
            return Error(IBNM_ERROR_NOT_SUPPORTED, _("this simulated host has no host file to reset to"));
        auto st = loadHostDescription(hostFile_);
        if (!st.ok())
            return std::move(st).error();
        state_ = std::move(st).value();
        rebase();
        return {};
    }
    return transact(true, [&]() -> Status {
        auto st = loadHostDescription(hostFile_);
        if (!st.ok())
            return std::move(st).error();
        state_ = std::move(st).value();
        discardState_ = true; // transact() deletes the state file
        return {};
    });
}

Status FakePlatform::addNetdev(model::Netdev netdev)
{
    return transact(true, [&]() -> Status {
        if (!validNetdevName(netdev.name))
            return kernelError(EINVAL, netdev.name);
        if (state_.host.findNetdev(netdev.name))
            return kernelError(EEXIST, netdev.name, IBNM_ERROR_EXISTS);
        if (netdev.ifindex == 0)
            netdev.ifindex = nextIfindex(state_.host);
        if (netdev.type == 0)
            netdev.type = 1;
        if (netdev.mtu == 0)
            netdev.mtu = 1500;
        if (netdev.address.empty()) {
            guint hash = g_str_hash(netdev.name.c_str());
            netdev.address = strprintf("02:%02x:%02x:%02x:%02x:%02x", netdev.ifindex & 0xff, (hash >> 24) & 0xff,
                                       (hash >> 16) & 0xff, (hash >> 8) & 0xff, hash & 0xff);
        }
        state_.host.netdevs.push_back(std::move(netdev));
        return {};
    });
}

Result<UniqueFd> FakePlatform::lockActivations()
{
    if (stateDir_.empty())
        return UniqueFd();
    return lockFileExclusive(stateDir_ + "/activations.lock");
}

Result<model::Host> FakePlatform::readHost()
{
    auto s = transact(false, [] { return Status(); });
    if (!s.ok())
        return std::move(s).error();
    model::Host h = state_.host;
    derive(h);
    for (auto &n : h.netdevs)
        if (auto it = state_.maxMtu.find(n.name); it != state_.maxMtu.end())
            n.maxMtu = it->second;
    return h;
}

// --- IPoIB ------------------------------------------------------------------

Result<std::string> FakePlatform::createIpoibChild(const IpoibChildSpec &spec)
{
    std::string created;
    auto s = mutate("createIpoibChild", spec.parent, {spec.parent, num(spec.pkey), optNum(spec.mode), optNum(spec.umcast)}, [&]() -> Status {
        auto &h = state_.host;
        model::Netdev *parentNd = findNetdev(h, spec.parent);
        if (parentNd == nullptr)
            return noSuchNetdev(spec.parent);
        model::IpoibNetdev *parent = findIpoib(h, spec.parent);
        if (parentNd->type != 32 || parent == nullptr)
            return kernelError(ENODEV, spec.parent, IBNM_ERROR_NOT_SUPPORTED, _("not an IPoIB interface"));
        if (!parent->parent.empty())
            return kernelError(EINVAL, spec.parent, IBNM_ERROR_PLATFORM, _("a P_Key child cannot have children"));
        if (spec.pkey == 0 || spec.pkey == kFullMembership)
            return kernelError(EINVAL, spec.parent, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("P_Key 0x%04x is not valid"), spec.pkey));
        uint16_t full = spec.pkey | kFullMembership;
        if (parent->pkey == full)
            return kernelError(ENOTUNIQ, spec.parent, IBNM_ERROR_EXISTS,
                               strprintf(_("P_Key 0x%04x is the interface's own"), full));
        for (const auto &ib : h.ipoib)
            if (ib.parent == spec.parent && ib.pkey == full)
                return kernelError(ENOTUNIQ, spec.parent, IBNM_ERROR_EXISTS,
                                   strprintf(_("%s has P_Key 0x%04x already"), ib.name.c_str(), full));
        uint16_t shown = h.childNaming == model::ChildNaming::Upstream ? spec.pkey : full;
        std::string name = strprintf("%s.%04x", spec.parent.c_str(), shown).substr(0, 15);
        if (h.findNetdev(name))
            return kernelError(EEXIST, name, IBNM_ERROR_EXISTS);
        const model::Device *dev = h.findDevice(parentNd->rdmaDevice);
        bool cmSupported = dev != nullptr && dev->connectedModeSupported && !dev->enhancedIpoib;
        IpoibMode mode = spec.mode.value_or(IpoibMode::Datagram);
        if (mode == IpoibMode::Connected && !cmSupported)
            return kernelError(EINVAL, name, IBNM_ERROR_NOT_SUPPORTED,
                               dev && dev->enhancedIpoib ? _("Enhanced IPoIB supports datagram mode only")
                                                         : _("connected mode is not supported"));
        model::Netdev nd;
        nd.name = name;
        nd.ifindex = nextIfindex(h);
        nd.type = 32;
        nd.kind = "ipoib";
        nd.rdmaDevice = parentNd->rdmaDevice;
        nd.rdmaPort = parentNd->rdmaPort;
        // Same GID, another QP number.
        nd.address = parentNd->address;
        if (nd.address.size() == 59) {
            // Byte 3 is the low byte of the QP number.
            unsigned count = 1;
            for (const auto &ib : h.ipoib)
                count += ib.parent == spec.parent;
            unsigned low = static_cast<unsigned>(std::stoul(nd.address.substr(9, 2), nullptr, 16));
            nd.address.replace(9, 2, strprintf("%02x", (low + count) & 0xff));
        }
        nd.mtu = mode == IpoibMode::Connected ? kIpoibCmMtu : datagramLimits(h, *parentNd).second;
        model::IpoibNetdev ib;
        ib.name = name;
        ib.parent = spec.parent;
        ib.pkey = full;
        ib.mode = mode;
        ib.umcast = spec.umcast.value_or(false);
        h.netdevs.push_back(std::move(nd));
        h.ipoib.push_back(std::move(ib));
        created = name;
        return {};
    });
    if (!s.ok())
        return std::move(s).error();
    return created;
}

Status FakePlatform::deleteIpoibChild(const std::string &parent, uint16_t pkey)
{
    return mutate("deleteIpoibChild", parent, {parent, num(pkey)}, [&]() -> Status {
        auto &h = state_.host;
        if (h.findIpoib(parent) == nullptr)
            return noSuchNetdev(parent);
        uint16_t full = pkey | kFullMembership;
        for (const auto &ib : h.ipoib) {
            if (ib.parent == parent && ib.pkey == full) {
                std::string name = ib.name;
                h.ipoib.erase(std::remove_if(h.ipoib.begin(), h.ipoib.end(),
                                             [&](const auto &x) { return x.name == name; }),
                              h.ipoib.end());
                h.netdevs.erase(std::remove_if(h.netdevs.begin(), h.netdevs.end(),
                                               [&](const auto &x) { return x.name == name; }),
                                h.netdevs.end());
                return {};
            }
        }
        return kernelError(ENODEV, parent, IBNM_ERROR_NOT_FOUND,
                           strprintf(_("no child with P_Key 0x%04x"), full));
    });
}

Status FakePlatform::setIpoibMode(const std::string &ifname, IpoibMode mode)
{
    return mutate("setIpoibMode", ifname, {ifname, num(mode)}, [&]() -> Status {
        auto &h = state_.host;
        model::Netdev *nd = findNetdev(h, ifname);
        if (nd == nullptr)
            return noSuchNetdev(ifname);
        model::IpoibNetdev *ib = findIpoib(h, ifname);
        if (ib == nullptr)
            return kernelError(ENOENT, ifname, IBNM_ERROR_NOT_SUPPORTED, _("not an IPoIB interface"));
        if (ib->mode == mode)
            return {};
        const model::Device *dev = h.findDevice(nd->rdmaDevice);
        if (mode == IpoibMode::Connected && (dev == nullptr || !dev->connectedModeSupported || dev->enhancedIpoib))
            return kernelError(EINVAL, ifname, IBNM_ERROR_NOT_SUPPORTED,
                               dev && dev->enhancedIpoib ? _("Enhanced IPoIB supports datagram mode only")
                                                         : _("connected mode is not supported"));
        // FACTS.md: changing the mode needs the link down.
        if (nd->up)
            return kernelError(EBUSY, ifname, IBNM_ERROR_PLATFORM, _("the link must be down to change the mode"));
        ib->mode = mode;
        if (mode == IpoibMode::Connected)
            nd->mtu = kIpoibCmMtu;
        else
            nd->mtu = std::min(nd->mtu, datagramLimits(h, *nd).second);
        return {};
    });
}

Status FakePlatform::setIpoibUmcast(const std::string &ifname, bool umcast)
{
    return mutate("setIpoibUmcast", ifname, {ifname, num(umcast)}, [&]() -> Status {
        auto &h = state_.host;
        if (h.findNetdev(ifname) == nullptr)
            return noSuchNetdev(ifname);
        model::IpoibNetdev *ib = findIpoib(h, ifname);
        if (ib == nullptr)
            return kernelError(ENOENT, ifname, IBNM_ERROR_NOT_SUPPORTED, _("not an IPoIB interface"));
        ib->umcast = umcast;
        return {};
    });
}

// --- links --------------------------------------------------------------------

namespace {

// dev_set_mtu() on one netdev: IPoIB's ipoib_change_mtu() limits, an
// Ethernet NIC's maximum, a bond's bond_change_mtu() passing the MTU on to
// every port (all or none).
Status setNetdevMtu(FakeState &st, model::Netdev &nd, unsigned mtu)
{
    auto &h = st.host;
    const std::string &ifname = nd.name;
    if (const model::IpoibNetdev *ib = h.findIpoib(ifname)) {
        if (ib->mode == IpoibMode::Connected) {
            if (mtu > kIpoibCmMtu || mtu < 68)
                return kernelError(EINVAL, ifname, IBNM_ERROR_INVALID_ARGUMENT,
                                   strprintf(_("MTU %u is out of range (at most %u in connected mode)"), mtu,
                                             kIpoibCmMtu));
            nd.mtu = mtu;
            return {};
        }
        auto [max, ceiling] = datagramLimits(h, nd);
        if (mtu > max || mtu < 68)
            return kernelError(EINVAL, ifname, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("MTU %u is out of range (at most %u in datagram mode)"), mtu, max));
        // The kernel clamps silently to the broadcast group's MTU.
        nd.mtu = std::min(mtu, ceiling);
        return {};
    }
    if (findBond(h, ifname)) {
        std::vector<std::pair<model::Netdev *, unsigned>> done;
        for (auto &port : h.netdevs) {
            if (port.master != ifname)
                continue;
            unsigned old = port.mtu;
            if (Status s = setNetdevMtu(st, port, mtu); !s.ok()) {
                for (auto &[p, m] : done)
                    p->mtu = m;
                return s;
            }
            done.emplace_back(&port, old);
        }
        if (mtu < 68 || mtu > 65535)
            return kernelError(EINVAL, ifname, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("MTU %u is out of range (68 to %u)"), mtu, 65535u));
        nd.mtu = mtu;
        return {};
    }
    auto mm = st.maxMtu.find(ifname);
    unsigned max = mm != st.maxMtu.end() ? mm->second : 65535;
    if (mtu < 68 || mtu > max)
        return kernelError(EINVAL, ifname, IBNM_ERROR_INVALID_ARGUMENT,
                           strprintf(_("MTU %u is out of range (68 to %u)"), mtu, max));
    nd.mtu = mtu;
    return {};
}

} // namespace

Status FakePlatform::setMtu(const std::string &ifname, unsigned mtu)
{
    return mutate("setMtu", ifname, {ifname, num(mtu)}, [&]() -> Status {
        model::Netdev *nd = findNetdev(state_.host, ifname);
        if (nd == nullptr)
            return noSuchNetdev(ifname);
        return setNetdevMtu(state_, *nd, mtu);
    });
}

Status FakePlatform::setUp(const std::string &ifname, bool up)
{
    return mutate("setUp", ifname, {ifname, num(up)}, [&]() -> Status {
        model::Netdev *nd = findNetdev(state_.host, ifname);
        if (nd == nullptr)
            return noSuchNetdev(ifname);
        nd->up = up;
        // The kernel flushes the routes through a link that goes down, and
        // its IPv6 addresses (keep_addr_on_down defaults to 0); IPv4
        // addresses stay.
        if (!up) {
            nd->routes.clear();
            nd->addresses.erase(std::remove_if(nd->addresses.begin(), nd->addresses.end(),
                                               [](const std::string &a) { return a.find(':') != std::string::npos; }),
                                nd->addresses.end());
        }
        return {};
    });
}

Status FakePlatform::createBond(const BondSpec &spec)
{
    return mutate("createBond", spec.name, {spec.name, spec.mode, optNum(spec.miimon), spec.primary, spec.failOverMac}, [&]() -> Status {
        auto &h = state_.host;
        if (!validNetdevName(spec.name))
            return kernelError(EINVAL, spec.name, IBNM_ERROR_INVALID_ARGUMENT, _("not a valid interface name"));
        if (!spec.primary.empty() && !validNetdevName(spec.primary))
            return kernelError(EINVAL, spec.primary, IBNM_ERROR_INVALID_ARGUMENT, _("not a valid interface name"))
                .withContext(spec.name);
        if (h.findNetdev(spec.name))
            return kernelError(EEXIST, spec.name, IBNM_ERROR_EXISTS);
        // The bonding driver takes options by name or by number.
        static const char *modes[] = {"balance-rr", "active-backup", "balance-xor", "broadcast",
                                      "802.3ad",    "balance-tlb",   "balance-alb"};
        static const char *fomNames[] = {"none", "active", "follow"};
        auto byNameOrNumber = [](const std::string &v, const char *const *names, size_t n) -> std::string {
            for (size_t i = 0; i < n; i++)
                if (v == names[i] || v == std::to_string(i))
                    return names[i];
            return {};
        };
        std::string mode = byNameOrNumber(spec.mode, modes, G_N_ELEMENTS(modes));
        if (mode.empty())
            return kernelError(EINVAL, spec.name, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("unknown bonding mode “%s”"), spec.mode.c_str()));
        std::string failOverMac =
            spec.failOverMac.empty() ? "none" : byNameOrNumber(spec.failOverMac, fomNames, G_N_ELEMENTS(fomNames));
        if (failOverMac.empty())
            return kernelError(EINVAL, spec.name, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("unknown fail_over_mac “%s”"), spec.failOverMac.c_str()));
        model::Netdev nd;
        nd.name = spec.name;
        nd.kind = "bond";
        nd.type = 1;
        nd.mtu = 1500;
        nd.ifindex = nextIfindex(h);
        guint hash = g_str_hash(spec.name.c_str());
        nd.address = strprintf("02:%02x:%02x:%02x:%02x:%02x", nd.ifindex & 0xff, (hash >> 24) & 0xff,
                               (hash >> 16) & 0xff, (hash >> 8) & 0xff, hash & 0xff);
        h.netdevs.push_back(std::move(nd));
        model::Bond b;
        b.name = spec.name;
        b.mode = mode;
        b.miimon = spec.miimon.value_or(0);
        b.primary = spec.primary;
        b.failOverMac = failOverMac;
        h.bonds.push_back(std::move(b));
        return {};
    });
}

Status FakePlatform::setBondOptions(const std::string &bondName, std::optional<unsigned> miimon,
                                    std::optional<std::string> primary)
{
    return mutate("setBondOptions", bondName, {bondName, optNum(miimon), optText(primary)}, [&]() -> Status {
        auto &h = state_.host;
        model::Bond *bond = findBond(h, bondName);
        if (bond == nullptr)
            return noSuchNetdev(bondName);
        if (primary && !primary->empty() && !validNetdevName(*primary))
            return kernelError(EINVAL, *primary, IBNM_ERROR_INVALID_ARGUMENT, _("not a valid interface name"))
                .withContext(bondName);
        if (miimon)
            bond->miimon = *miimon;
        if (primary) {
            bond->primary = *primary;
            // primary_reselect "always": a primary that is a port takes over
            // (ports are the netdevs whose master is the bond).
            const model::Netdev *nd = primary->empty() ? nullptr : findNetdev(h, *primary);
            if (nd && nd->master == bondName)
                bond->activePort = *primary;
        }
        return {};
    });
}

Status FakePlatform::enslave(const std::string &port, const std::string &bondName)
{
    return mutate("enslave", port, {port, bondName}, [&]() -> Status {
        auto &h = state_.host;
        model::Netdev *nd = findNetdev(h, port);
        if (nd == nullptr)
            return noSuchNetdev(port);
        model::Bond *bond = findBond(h, bondName);
        model::Netdev *bondNd = findNetdev(h, bondName);
        if (bondNd == nullptr)
            return noSuchNetdev(bondName);
        if (bond == nullptr)
            return kernelError(EOPNOTSUPP, bondName, IBNM_ERROR_NOT_SUPPORTED, _("not a bond"));
        if (port == bondName)
            return kernelError(EPERM, port);
        if (!nd->master.empty())
            return kernelError(EBUSY, port, IBNM_ERROR_PLATFORM,
                               strprintf(_("already a port of %s"), nd->master.c_str()));
        // bond_enslave's order: link type, then the IPoIB mode rule, then
        // fail_over_mac.
        bool hasPorts = false;
        for (const auto &n : h.netdevs)
            hasPorts = hasPorts || n.master == bondName;
        if (hasPorts && bondNd->type != nd->type)
            return kernelError(EINVAL, port, IBNM_ERROR_PLATFORM,
                               _("its link type differs from the bond's other ports"));
        if (nd->type == 32) {
            if (bond->mode != "active-backup")
                return kernelError(EOPNOTSUPP, port, IBNM_ERROR_NOT_SUPPORTED,
                                   _("Only active-backup mode is supported for infiniband slaves"));
            if (bond->failOverMac != "active") {
                // IPoIB cannot take a MAC: the kernel switches the bond to
                // fail_over_mac=active for its first port, refuses later.
                if (hasPorts)
                    return kernelError(EOPNOTSUPP, port, IBNM_ERROR_NOT_SUPPORTED,
                                       _("the port cannot change its MAC address, but fail_over_mac is not active"));
                bond->failOverMac = "active";
            }
        }
        // bond_enslave(): the port takes the bond's MTU (dev_set_mtu(); a
        // datagram IPoIB port refuses one above its maximum), then a first
        // port of another link type gives the bond its type and address.
        unsigned original = nd->mtu;
        if (Status s = setNetdevMtu(state_, *nd, bondNd->mtu); !s.ok())
            return s;
        state_.originalMtu[port] = original;
        if (!hasPorts) {
            bondNd->type = nd->type;
            if (nd->type == 32)
                bondNd->address = nd->address;
        }
        nd->master = bondName;
        if (bond->activePort.empty() || bond->primary == port)
            bond->activePort = port;
        return {};
    });
}

Status FakePlatform::release(const std::string &port)
{
    return mutate("release", port, {port}, [&]() -> Status {
        auto &h = state_.host;
        model::Netdev *nd = findNetdev(h, port);
        if (nd == nullptr)
            return noSuchNetdev(port);
        if (nd->master.empty())
            return {}; // as `ip link set PORT nomaster`: nothing to do
        if (model::Bond *b = findBond(h, nd->master)) {
            if (b->activePort == port) {
                b->activePort.clear();
                for (const auto &n : h.netdevs)
                    if (n.master == b->name && n.name != port) {
                        b->activePort = n.name;
                        break;
                    }
            }
        }
        nd->master.clear();
        // __bond_release_one() puts the port's own MTU back.
        if (auto it = state_.originalMtu.find(port); it != state_.originalMtu.end()) {
            if (Status s = setNetdevMtu(state_, *nd, it->second); !s.ok())
                return s;
            state_.originalMtu.erase(it);
        }
        return {};
    });
}

Status FakePlatform::deleteLink(const std::string &ifname)
{
    return mutate("deleteLink", ifname, {ifname}, [&]() -> Status {
        auto &h = state_.host;
        model::Netdev *nd = findNetdev(h, ifname);
        if (nd == nullptr)
            return noSuchNetdev(ifname);
        const model::IpoibNetdev *ib = h.findIpoib(ifname);
        if (nd->kind.empty() || (ib != nullptr && ib->parent.empty()))
            return kernelError(EOPNOTSUPP, ifname, IBNM_ERROR_NOT_SUPPORTED,
                               _("a hardware interface cannot be deleted"));
        // What goes with it: VLANs on it, soft RDMA links over it, bond
        // membership (its own ports, or its place in a bond).
        std::vector<std::string> gone = {ifname};
        for (const auto &n : h.netdevs)
            if (n.link == ifname && n.kind == "vlan")
                gone.push_back(n.name);
        auto isGone = [&](const std::string &n) { return std::find(gone.begin(), gone.end(), n) != gone.end(); };
        std::vector<std::string> softGone;
        for (const auto &l : h.softLinks)
            if (isGone(l.netdev))
                softGone.push_back(l.name);
        h.softLinks.erase(std::remove_if(h.softLinks.begin(), h.softLinks.end(),
                                         [&](const auto &l) { return isGone(l.netdev); }),
                          h.softLinks.end());
        h.devices.erase(std::remove_if(h.devices.begin(), h.devices.end(),
                                       [&](const auto &d) {
                                           return std::find(softGone.begin(), softGone.end(), d.name) !=
                                                  softGone.end();
                                       }),
                        h.devices.end());
        // Deleting a bond releases its ports, each with its own MTU back.
        for (auto &n : h.netdevs) {
            if (!isGone(n.master))
                continue;
            n.master.clear();
            if (auto it = state_.originalMtu.find(n.name); it != state_.originalMtu.end()) {
                n.mtu = it->second;
                state_.originalMtu.erase(it);
            }
        }
        for (auto &b : h.bonds)
            if (isGone(b.activePort))
                b.activePort.clear();
        h.bonds.erase(std::remove_if(h.bonds.begin(), h.bonds.end(), [&](const auto &b) { return isGone(b.name); }),
                      h.bonds.end());
        h.ipoib.erase(std::remove_if(h.ipoib.begin(), h.ipoib.end(), [&](const auto &x) { return isGone(x.name); }),
                      h.ipoib.end());
        h.netdevs.erase(
            std::remove_if(h.netdevs.begin(), h.netdevs.end(), [&](const auto &x) { return isGone(x.name); }),
            h.netdevs.end());
        state_.maxMtu.erase(ifname);
        state_.originalMtu.erase(ifname);
        return {};
    });
}

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

// Whether `ip` lies in the subnet of the address `cidr` ("192.0.2.10/24").
bool inSubnet(const std::string &ip, const std::string &cidr)
{
    size_t slash = cidr.find('/');
    if (slash == std::string::npos)
        return false;
    bool v6 = ip.find(':') != std::string::npos;
    if (v6 != (cidr.find(':') != std::string::npos))
        return false;
    unsigned char a[16], b[16];
    if (inet_pton(v6 ? AF_INET6 : AF_INET, ip.c_str(), a) != 1 ||
        inet_pton(v6 ? AF_INET6 : AF_INET, cidr.substr(0, slash).c_str(), b) != 1)
        return false;
    unsigned len = static_cast<unsigned>(std::strtoul(cidr.c_str() + slash + 1, nullptr, 10));
    for (unsigned bit = 0; bit < len; bit++) {
        unsigned char m = static_cast<unsigned char>(0x80 >> (bit % 8));
        if ((a[bit / 8] & m) != (b[bit / 8] & m))
            return false;
    }
    return true;
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
        if (!r.gateway.empty() &&
            std::none_of(nd->addresses.begin(), nd->addresses.end(),
                         [&](const std::string &a) { return inSubnet(r.gateway, a); }))
            return kernelError(ENETUNREACH, ifname, IBNM_ERROR_PLATFORM,
                               strprintf(_("the gateway %s is not on a subnet of %s"), r.gateway.c_str(),
                                         ifname.c_str()));
        if (std::find(nd->routes.begin(), nd->routes.end(), r) != nd->routes.end())
            return kernelError(EEXIST, ifname, IBNM_ERROR_EXISTS, r.dest);
        nd->routes.push_back(r);
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

// --- RDMA -----------------------------------------------------------------------

Status FakePlatform::addSoftLink(const std::string &name, SoftLinkType type, const std::string &netdev)
{
    return mutate("addSoftLink", name, {name, num(type), netdev}, [&]() -> Status {
        auto &h = state_.host;
        if (name.size() >= 64 || name.find_first_of("/% ") != std::string::npos || !isStorableId(name))
            return kernelError(EINVAL, name, IBNM_ERROR_INVALID_ARGUMENT, _("not a valid RDMA device name"));
        const model::Netdev *nd = h.findNetdev(netdev);
        if (nd == nullptr)
            return noSuchNetdev(netdev).withContext(name);
        if (h.findDevice(name))
            return kernelError(EEXIST, name, IBNM_ERROR_EXISTS);
        if (nd->type != 1)
            return kernelError(EINVAL, name, IBNM_ERROR_NOT_SUPPORTED,
                               strprintf(_("%s is not an Ethernet interface"), netdev.c_str()));
        if (type == SoftLinkType::Rxe && nd->kind == "vlan")
            return kernelError(EPERM, name, IBNM_ERROR_NOT_SUPPORTED,
                               _("rxe creation allowed on top of a real device only"));
        for (const auto &l : h.softLinks)
            if (l.netdev == netdev && l.type == type)
                return kernelError(EEXIST, name, IBNM_ERROR_EXISTS,
                                   strprintf(_("%s already runs on %s"), l.name.c_str(), netdev.c_str()));
        h.devices.push_back(softLinkDevice(name, type, *nd));
        h.softLinks.push_back({name, type, netdev});
        return {};
    });
}

Status FakePlatform::deleteSoftLink(const std::string &name)
{
    return mutate("deleteSoftLink", name, {name}, [&]() -> Status {
        auto &h = state_.host;
        if (findSoftLink(h, name) == nullptr)
            return kernelError(ENODEV, name, IBNM_ERROR_NOT_FOUND, _("no such RDMA link"));
        h.softLinks.erase(std::remove_if(h.softLinks.begin(), h.softLinks.end(),
                                         [&](const auto &l) { return l.name == name; }),
                          h.softLinks.end());
        h.devices.erase(
            std::remove_if(h.devices.begin(), h.devices.end(), [&](const auto &d) { return d.name == name; }),
            h.devices.end());
        return {};
    });
}

namespace {

// The GID types a port supports (roce_gid_type_mask_support): InfiniBand
// and iWARP ports only "IB/RoCE v1", rxe only RoCE v2, RoCE NICs both.
bool roceModeSupported(const model::Host &h, const model::Device &d, const model::Port &p, RoceMode mode)
{
    if (const auto *l = findSoftLink(h, d.name))
        return l->type == SoftLinkType::Rxe ? mode == RoceMode::V2 : mode == RoceMode::V1;
    if (p.linkLayer != LinkLayer::Ethernet)
        return mode == RoceMode::V1;
    return true;
}

// The configfs rdma_cm port of device/port: mkdir of the device directory
// fails with ENODEV for an unknown device; a port outside the device with
// EINVAL.
Result<model::Port *> configfsPort(model::Host &h, const std::string &device, unsigned port)
{
    model::Device *d = findDevice(h, device);
    if (d == nullptr)
        return kernelError(ENODEV, device, IBNM_ERROR_NOT_FOUND, _("no such RDMA device"));
    if (port == 0 || port > d->ports.size())
        return kernelError(EINVAL, device, IBNM_ERROR_INVALID_ARGUMENT, strprintf(_("no port %u"), port));
    model::Port *p = &d->ports[port - 1];
    if (!p->defaultRoceMode) {
        // The directory appears with the kernel's default: RoCE v2 where the
        // port supports it (CMA_PREFERRED_ROCE_GID_TYPE), else IB/RoCE v1.
        p->defaultRoceMode = roceModeSupported(h, *d, *p, RoceMode::V2) ? RoceMode::V2 : RoceMode::V1;
        p->defaultRoceTos = p->defaultRoceTos.value_or(0);
    }
    return p;
}

Status mlx5Only(const model::Host &h, const std::string &device, unsigned port, const char *file)
{
    const model::Device *d = h.findDevice(device);
    if (d == nullptr)
        return kernelError(ENODEV, device, IBNM_ERROR_NOT_FOUND, _("no such RDMA device"));
    if (d->driver != "mlx5_core")
        return kernelError(ENOENT, device, IBNM_ERROR_NOT_SUPPORTED,
                           strprintf(_("%s exists on mlx5 devices only"), file));
    if (port == 0 || port > d->ports.size())
        return kernelError(EINVAL, device, IBNM_ERROR_INVALID_ARGUMENT, strprintf(_("no port %u"), port));
    return {};
}

} // namespace

Status FakePlatform::setDefaultRoceMode(const std::string &device, unsigned port, RoceMode mode)
{
    return mutate("setDefaultRoceMode", device, {device, num(port), num(mode)}, [&]() -> Status {
        const std::string dev = storedDevice(device);
        if (dev.empty())
            return kernelError(ENODEV, device, IBNM_ERROR_NOT_FOUND, _("no such RDMA device"));
        auto &h = state_.host;
        auto p = configfsPort(h, dev, port);
        if (!p.ok())
            return std::move(p).error();
        if (!roceModeSupported(h, *h.findDevice(dev), **p, mode))
            return kernelError(EINVAL, device, IBNM_ERROR_NOT_SUPPORTED,
                               strprintf(_("port %u does not support %s"), port, roceModeName(mode)));
        (*p)->defaultRoceMode = mode;
        return {};
    });
}

Status FakePlatform::setDefaultRoceTos(const std::string &device, unsigned port, unsigned tos)
{
    return mutate("setDefaultRoceTos", device, {device, num(port), num(tos)}, [&]() -> Status {
        const std::string dev = storedDevice(device);
        if (dev.empty())
            return kernelError(ENODEV, device, IBNM_ERROR_NOT_FOUND, _("no such RDMA device"));
        auto p = configfsPort(state_.host, dev, port);
        if (!p.ok())
            return std::move(p).error();
        if (tos > 255)
            return kernelError(ERANGE, device, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("ToS %u is out of range (0 to 255)"), tos));
        (*p)->defaultRoceTos = tos;
        return {};
    });
}

Status FakePlatform::removeRoceDefaults(const std::string &device)
{
    return mutate("removeRoceDefaults", device, {device}, [&]() -> Status {
        model::Device *d = findDevice(state_.host, storedDevice(device));
        if (d == nullptr)
            return {}; // rmdir of a directory that is not there: ENOENT, nothing to do
        for (auto &p : d->ports) {
            p.defaultRoceMode.reset();
            p.defaultRoceTos.reset();
        }
        return {};
    });
}

Status FakePlatform::setTrafficClass(const std::string &device, unsigned port, unsigned tclass)
{
    return mutate("setTrafficClass", device, {device, num(port), num(tclass)}, [&]() -> Status {
        const std::string dev = storedDevice(device);
        if (dev.empty())
            return kernelError(ENODEV, device, IBNM_ERROR_NOT_FOUND, _("no such RDMA device"));
        if (auto s = mlx5Only(state_.host, dev, port, "tc/<port>/traffic_class"); !s.ok())
            return s;
        if (tclass > 255)
            return kernelError(EINVAL, device, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("traffic class %u is out of range (0 to 255)"), tclass));
        findDevice(state_.host, dev)->ports[port - 1].trafficClass = tclass;
        return {};
    });
}

Status FakePlatform::clearTrafficClass(const std::string &device, unsigned port)
{
    return mutate("clearTrafficClass", device, {device, num(port)}, [&]() -> Status {
        const std::string dev = storedDevice(device);
        if (dev.empty())
            return kernelError(ENODEV, device, IBNM_ERROR_NOT_FOUND, _("no such RDMA device"));
        if (auto s = mlx5Only(state_.host, dev, port, "tc/<port>/traffic_class"); !s.ok())
            return s;
        findDevice(state_.host, dev)->ports[port - 1].trafficClass.reset();
        return {};
    });
}

Status FakePlatform::setTtl(const std::string &device, unsigned port, unsigned ttl)
{
    return mutate("setTtl", device, {device, num(port), num(ttl)}, [&]() -> Status {
        const std::string dev = storedDevice(device);
        if (dev.empty())
            return kernelError(ENODEV, device, IBNM_ERROR_NOT_FOUND, _("no such RDMA device"));
        if (auto s = mlx5Only(state_.host, dev, port, "tc/<port>/ttl"); !s.ok())
            return s;
        if (ttl > 255)
            return kernelError(EINVAL, device, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("TTL %u is out of range (0 to 255)"), ttl));
        findDevice(state_.host, dev)->ports[port - 1].ttl = ttl;
        return {};
    });
}

Status FakePlatform::setTrafficClassRule(const std::string &device, unsigned port, const model::TcRule &rule)
{
    return mutate("setTrafficClassRule", device,
                  {device, num(port), std::to_string(rule.tclass), rule.srcIp, rule.dstIp}, [&]() -> Status {
        const std::string dev = storedDevice(device);
        if (dev.empty())
            return kernelError(ENODEV, device, IBNM_ERROR_NOT_FOUND, _("no such RDMA device"));
        if (auto s = mlx5Only(state_.host, dev, port, "tc/<port>/traffic_class"); !s.ok())
            return s;
        // As the MLNX_OFED driver keeps them: one rule per (src, dst) match;
        // a rule for a match that has one replaces it, tclass -1 deletes it.
        if (rule.srcIp.empty() && rule.dstIp.empty())
            return kernelError(EINVAL, device, IBNM_ERROR_INVALID_ARGUMENT, _("a rule needs an address"));
        if (rule.tclass < -1 || rule.tclass > 255)
            return kernelError(EINVAL, device, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("traffic class %d is out of range (0 to 255)"), rule.tclass));
        auto &rules = findDevice(state_.host, dev)->ports[port - 1].tcRules;
        auto it = std::find_if(rules.begin(), rules.end(), [&](const model::TcRule &r) {
            return r.srcIp == rule.srcIp && r.dstIp == rule.dstIp;
        });
        if (rule.tclass < 0) {
            if (it == rules.end())
                return kernelError(EINVAL, device, IBNM_ERROR_NOT_FOUND, _("no such traffic class rule"));
            rules.erase(it);
        } else if (it != rules.end()) {
            it->tclass = rule.tclass;
        } else {
            rules.push_back(rule);
        }
        return {};
    });
}

Status FakePlatform::setRoceEnabled(const std::string &device, bool enabled)
{
    return mutate("setRoceEnabled", device, {device, num(enabled)}, [&]() -> Status {
        const std::string dev = storedDevice(device);
        if (dev.empty())
            return kernelError(ENODEV, device, IBNM_ERROR_NOT_FOUND, _("no such RDMA device"));
        model::Device *d = findDevice(state_.host, dev);
        if (d == nullptr)
            return kernelError(ENODEV, device, IBNM_ERROR_NOT_FOUND, _("no such RDMA device"));
        if (d->driver != "mlx5_core" || !d->roceEnabled)
            return kernelError(ENOENT, device, IBNM_ERROR_NOT_SUPPORTED, _("roce_enable exists on mlx5 PCI functions only"));
        // The GID tables follow on the next read (derive()).
        d->roceEnabled = enabled;
        return {};
    });
}

// --- host files -------------------------------------------------------------------

Result<std::optional<std::string>> FakePlatform::readHostFile(const std::string &path)
{
    auto s = transact(false, [] { return Status(); });
    if (!s.ok())
        return std::move(s).error();
    auto it = state_.files.find(path);
    if (it == state_.files.end())
        return std::optional<std::string>();
    return std::optional<std::string>(it->second.contents);
}

Status FakePlatform::writeHostFile(const std::string &path, const std::string &contents, unsigned mode)
{
    return mutate("writeHostFile", path, {path, contents, num(mode)}, [&]() -> Status {
        if (path.empty() || path[0] != '/')
            return kernelError(EINVAL, path, IBNM_ERROR_INVALID_ARGUMENT, _("not an absolute path"));
        // What the state file (a GLib key file) holds and reads back.
        if (!isStorableId(path) ||
            !g_utf8_validate(contents.data(), static_cast<gssize>(contents.size()), nullptr))
            return kernelError(EINVAL, path, IBNM_ERROR_INVALID_ARGUMENT,
                               _("the simulated host keeps only UTF-8 text files whose paths are UTF-8 without “[”, "
                                 "“]”, control characters or blanks at either end"));
        state_.files[path] = {contents, mode & 07777};
        return {};
    });
}

Status FakePlatform::removeHostFile(const std::string &path)
{
    return mutate("removeHostFile", path, {path}, [&]() -> Status {
        if (state_.files.erase(path) == 0)
            return kernelError(ENOENT, path, IBNM_ERROR_NOT_FOUND);
        return {};
    });
}

// --- the journal's records, done again ----------------------------------------

namespace {

unsigned long long toNum(const std::string &s)
{
    return g_ascii_strtoull(s.c_str(), nullptr, 10);
}

template <typename T>
std::optional<T> toOptNum(const std::string &s)
{
    if (s.empty())
        return std::nullopt;
    return static_cast<T>(toNum(s.substr(1)));
}

std::optional<std::string> toOptText(const std::string &s)
{
    if (s.empty())
        return std::nullopt;
    return s.substr(1);
}

} // namespace

Status FakePlatform::replay(const journal::Record &r)
{
    if (!r.ok) {
        state_.operations++; // refused: it only counted
        return {};
    }
    using Args = std::vector<std::string>;
    struct Op {
        size_t args;
        Status (*run)(FakePlatform &p, const Args &a);
    };
    static const std::map<std::string, Op> ops = {
        {"createIpoibChild", {4, [](FakePlatform &p, const Args &a) -> Status {
             IpoibChildSpec spec{a[0], static_cast<uint16_t>(toNum(a[1])), std::nullopt, std::nullopt};
             if (auto m = toOptNum<unsigned>(a[2]))
                 spec.mode = static_cast<IpoibMode>(*m);
             if (auto u = toOptNum<unsigned>(a[3]))
                 spec.umcast = *u != 0;
             auto created = p.createIpoibChild(spec);
             return created.ok() ? Status() : Status(std::move(created).error());
         }}},
        {"deleteIpoibChild", {2, [](FakePlatform &p, const Args &a) {
             return p.deleteIpoibChild(a[0], static_cast<uint16_t>(toNum(a[1])));
         }}},
        {"setIpoibMode", {2, [](FakePlatform &p, const Args &a) {
             return p.setIpoibMode(a[0], static_cast<IpoibMode>(toNum(a[1])));
         }}},
        {"setIpoibUmcast", {2, [](FakePlatform &p, const Args &a) { return p.setIpoibUmcast(a[0], toNum(a[1]) != 0); }}},
        {"setMtu", {2, [](FakePlatform &p, const Args &a) { return p.setMtu(a[0], static_cast<unsigned>(toNum(a[1]))); }}},
        {"setUp", {2, [](FakePlatform &p, const Args &a) { return p.setUp(a[0], toNum(a[1]) != 0); }}},
        {"createBond", {5, [](FakePlatform &p, const Args &a) {
             return p.createBond(BondSpec{a[0], a[1], toOptNum<unsigned>(a[2]), a[3], a[4]});
         }}},
        {"setBondOptions", {3, [](FakePlatform &p, const Args &a) {
             return p.setBondOptions(a[0], toOptNum<unsigned>(a[1]), toOptText(a[2]));
         }}},
        {"enslave", {2, [](FakePlatform &p, const Args &a) { return p.enslave(a[0], a[1]); }}},
        {"release", {1, [](FakePlatform &p, const Args &a) { return p.release(a[0]); }}},
        {"deleteLink", {1, [](FakePlatform &p, const Args &a) { return p.deleteLink(a[0]); }}},
        {"addAddress", {2, [](FakePlatform &p, const Args &a) { return p.addAddress(a[0], a[1]); }}},
        {"removeAddress", {2, [](FakePlatform &p, const Args &a) { return p.removeAddress(a[0], a[1]); }}},
        {"addRoute", {4, [](FakePlatform &p, const Args &a) {
             return p.addRoute(a[0], model::Route{a[1], a[2], static_cast<unsigned>(toNum(a[3]))});
         }}},
        {"removeRoute", {4, [](FakePlatform &p, const Args &a) {
             return p.removeRoute(a[0], model::Route{a[1], a[2], static_cast<unsigned>(toNum(a[3]))});
         }}},
        {"addSoftLink", {3, [](FakePlatform &p, const Args &a) {
             return p.addSoftLink(a[0], static_cast<SoftLinkType>(toNum(a[1])), a[2]);
         }}},
        {"deleteSoftLink", {1, [](FakePlatform &p, const Args &a) { return p.deleteSoftLink(a[0]); }}},
        {"setDefaultRoceMode", {3, [](FakePlatform &p, const Args &a) {
             return p.setDefaultRoceMode(a[0], static_cast<unsigned>(toNum(a[1])), static_cast<RoceMode>(toNum(a[2])));
         }}},
        {"setDefaultRoceTos", {3, [](FakePlatform &p, const Args &a) {
             return p.setDefaultRoceTos(a[0], static_cast<unsigned>(toNum(a[1])), static_cast<unsigned>(toNum(a[2])));
         }}},
        {"setTrafficClass", {3, [](FakePlatform &p, const Args &a) {
             return p.setTrafficClass(a[0], static_cast<unsigned>(toNum(a[1])), static_cast<unsigned>(toNum(a[2])));
         }}},
        {"removeRoceDefaults", {1, [](FakePlatform &p, const Args &a) { return p.removeRoceDefaults(a[0]); }}},
        {"clearTrafficClass", {2, [](FakePlatform &p, const Args &a) {
             return p.clearTrafficClass(a[0], static_cast<unsigned>(toNum(a[1])));
         }}},
        {"setTtl", {3, [](FakePlatform &p, const Args &a) {
             return p.setTtl(a[0], static_cast<unsigned>(toNum(a[1])), static_cast<unsigned>(toNum(a[2])));
         }}},
        {"writeHostFile", {3, [](FakePlatform &p, const Args &a) {
             return p.writeHostFile(a[0], a[1], static_cast<unsigned>(toNum(a[2])));
         }}},
        {"removeHostFile", {1, [](FakePlatform &p, const Args &a) { return p.removeHostFile(a[0]); }}},
        {"setTrafficClassRule", {5, [](FakePlatform &p, const Args &a) {
             return p.setTrafficClassRule(a[0], static_cast<unsigned>(toNum(a[1])),
                                          model::TcRule{static_cast<int>(g_ascii_strtoll(a[2].c_str(), nullptr, 10)), a[3], a[4]});
         }}},
        {"setRoceEnabled", {2, [](FakePlatform &p, const Args &a) { return p.setRoceEnabled(a[0], toNum(a[1]) != 0); }}},
    };
    auto it = ops.find(r.op);
    if (it == ops.end() || it->second.args != r.args.size())
        return Error(IBNM_ERROR_PARSE, _("not a journal record"));
    bool was = replaying_;
    replaying_ = true;
    Status s = it->second.run(*this, r.args);
    replaying_ = was;
    return s;
}

} // namespace ibnm::platform
