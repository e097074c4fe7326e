// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/platform/linux/sysfs.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/model/ipoib.hpp"
#include "libcore/model/rdma.hpp"

#include <algorithm>
#include <map>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <net/if.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace ibnm::platform::sysfs {

namespace {

// The tree a public entry point reads (readHost, readGidTables,
// readPortGids): a sysfs dump may come from another machine, so no path
// under it may lead out of it. Files and directories under the root are
// opened with openat2(RESOLVE_BENEATH): a symlink such as
// fw_ver -> /etc/shadow, or ../../.. out of the tree, fails with EXDEV. The
// kernel's own sysfs links are relative and stay inside /sys.
struct Confinement {
    std::string prefix; // root + "/"
    UniqueFd fd;
};
thread_local const Confinement *tlConfinement = nullptr;

class ConfineTo {
public:
    explicit ConfineTo(const std::string &root) : outer_(tlConfinement)
    {
        if (outer_ != nullptr)
            return; // a nested entry point: the outer root holds
        c_.prefix = root;
        while (c_.prefix.size() > 1 && c_.prefix.back() == '/')
            c_.prefix.pop_back();
        c_.prefix += '/';
        c_.fd.reset(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
        tlConfinement = &c_;
    }
    ~ConfineTo()
    {
        if (tlConfinement == &c_)
            tlConfinement = outer_;
    }
    ConfineTo(const ConfineTo &) = delete;
    ConfineTo &operator=(const ConfineTo &) = delete;

private:
    const Confinement *outer_;
    Confinement c_;
};

// open(2) of `path`, beneath the current confinement's root when it is
// under it. -1 with errno set on failure.
int openConfined(const char *path, int flags)
{
    const Confinement *c = tlConfinement;
    size_t n = c ? c->prefix.size() : 0;
    if (c != nullptr && c->fd && std::strncmp(path, c->prefix.c_str(), n) == 0) {
        struct open_how how {};
        how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
        long fd = ::syscall(SYS_openat2, c->fd.get(), path + n, &how, sizeof how);
        if (fd >= 0 || errno != ENOSYS)
            return static_cast<int>(fd);
    }
    return ::open(path, flags | O_CLOEXEC);
}

// What readRawAt() returns for a FIFO, socket, device or directory: never
// read (a FIFO would block for ever).
constexpr int kNotRegular = EMEDIUMTYPE;

// Reads the file into buf (size kMaxAttrSize): returns the length, or -errno.
// A file that does not fit gives -EFBIG; one that is not a regular file
// -kNotRegular. dirfd: a directory opened by openConfined(), and path one
// name in it (no symlink followed).
ssize_t readRawAt(int dirfd, const char *path, char *buf)
{
    UniqueFd fd(dirfd == AT_FDCWD ? openConfined(path, O_RDONLY | O_NONBLOCK)
                                  : ::openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW));
    if (!fd)
        return -errno;
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        return -errno;
    if (S_ISDIR(st.st_mode))
        return -EISDIR;
    if (!S_ISREG(st.st_mode))
        return -kNotRegular;
    size_t len = 0;
    for (;;) {
        ssize_t n = ::read(fd.get(), buf + len, kMaxAttrSize - len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            break;
        len += static_cast<size_t>(n);
        // A sysfs attribute comes whole in one read (kernfs fills up to a
        // page), and a regular file returns less only at its end: a short
        // read is the end, which saves the extra read(2) per file.
        if (len < kMaxAttrSize)
            break;
        if (len == kMaxAttrSize) {
            char extra;
            ssize_t m;
            do
                m = ::read(fd.get(), &extra, 1);
            while (m < 0 && errno == EINTR);
            if (m < 0)
                return -errno;
            if (m > 0)
                return -EFBIG;
            break;
        }
    }
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\t' || buf[len - 1] == '\r'))
        len--;
    return static_cast<ssize_t>(len);
}

ssize_t readRaw(const char *path, char *buf)
{
    return readRawAt(AT_FDCWD, path, buf);
}

Error tooLarge(const std::string &path)
{
    return Error(IBNM_ERROR_PARSE, strprintf(_("the file is larger than %zu bytes"), kMaxAttrSize)).withContext(path);
}

// The error of a failed readRawAt(), naming the file.
Error readError(ssize_t n, const std::string &path)
{
    int e = static_cast<int>(-n);
    if (e == EFBIG)
        return tooLarge(path);
    if (e == kNotRegular)
        return Error(IBNM_ERROR_PARSE, _("not a regular file (a FIFO, socket, device or directory); not read"))
            .withContext(path);
    if (e == EXDEV || e == ELOOP)
        return Error(IBNM_ERROR_PERMISSION_DENIED,
                     _("a symbolic link leads out of the sysfs tree (or is not allowed here); not followed"), e)
            .withContext(path);
    return Error::fromErrno(e, path);
}

Error malformed(const std::string &path, const std::string &text)
{
    return Error(IBNM_ERROR_PARSE, strprintf(_("unexpected contents '%s'"), text.c_str())).withContext(path);
}

bool isNumber(const std::string &s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string join(const std::string &a, const char *b)
{
    std::string r = a;
    r += '/';
    r += b;
    return r;
}

model::LinkLayer parseLinkLayer(const std::string &s)
{
    if (s == "InfiniBand")
        return model::LinkLayer::InfiniBand;
    if (s == "Ethernet")
        return model::LinkLayer::Ethernet;
    return model::LinkLayer::Unknown;
}

// "active-backup 1" -> "active-backup"; "none 0" -> "none".
std::string firstWord(const std::string &s)
{
    return s.substr(0, s.find(' '));
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

// The used entries of ports/<n>/gids, with type and netdev.
Status readGids(const std::string &portDir, std::vector<model::Gid> &out)
{
    std::string gidsDir = portDir + "/gids";
    auto entries = listDir(gidsDir);
    if (!entries)
        return std::move(entries).error();
    if (entries->empty())
        return {};
    char buf[kMaxAttrSize];
    std::string path;
    path.reserve(portDir.size() + 32);
    // One lookup of each directory, then one path component per file.
    UniqueFd gidsFd(openConfined(gidsDir.c_str(), O_RDONLY | O_DIRECTORY));
    if (!gidsFd)
        return readError(-errno, gidsDir);
    UniqueFd typesFd(openConfined((portDir + "/gid_attrs/types").c_str(), O_RDONLY | O_DIRECTORY));
    UniqueFd ndevsFd(openConfined((portDir + "/gid_attrs/ndevs").c_str(), O_RDONLY | O_DIRECTORY));
    for (const auto &e : *entries) {
        if (!isNumber(e))
            return Error(IBNM_ERROR_PARSE, _("unexpected entry")).withContext(gidsDir + "/" + e);
        path.assign(gidsDir).append("/").append(e);
        ssize_t n = readRawAt(gidsFd.get(), e.c_str(), buf);
        if (n < 0)
            return readError(n, path);
        if (static_cast<size_t>(n) == sizeof(kZeroGid) - 1 && memcmp(buf, kZeroGid, sizeof(kZeroGid) - 1) == 0)
            continue;
        std::string gid(buf, static_cast<size_t>(n));
        if (gid.size() != sizeof(kZeroGid) - 1)
            return malformed(path, gid);
        model::Gid g;
        auto index = parseNumber(e, path, 10);
        if (!index || *index > UINT32_MAX)
            return malformed(path, e);
        g.index = static_cast<unsigned>(*index);
        g.gid = std::move(gid);

        // An entry the kernel has no attributes for reads EINVAL (or, on
        // older kernels, is absent): no type, no netdev.
        path.assign(portDir).append("/gid_attrs/types/").append(e);
        n = typesFd ? readRawAt(typesFd.get(), e.c_str(), buf) : -ENOENT;
        if (n == -EFBIG)
            return tooLarge(path);
        if (n >= 0) {
            std::string t(buf, static_cast<size_t>(n));
            if (t == "IB/RoCE v1")
                g.type = model::GidType::IbRoceV1;
            else if (t == "RoCE v2")
                g.type = model::GidType::RoceV2;
            else
                return malformed(path, t);
        } else if (n != -EINVAL && n != -ENOENT) {
            return readError(n, path);
        }
        path.assign(portDir).append("/gid_attrs/ndevs/").append(e);
        n = ndevsFd ? readRawAt(ndevsFd.get(), e.c_str(), buf) : -ENOENT;
        if (n == -EFBIG)
            return tooLarge(path);
        if (n >= 0)
            g.netdev.assign(buf, static_cast<size_t>(n));
        else if (n != -EINVAL && n != -ENOENT)
            return readError(n, path);
        out.push_back(std::move(g));
    }
    return {};
}

Status readPkeys(const std::string &portDir, std::vector<uint16_t> &out)
{
    std::string dir = portDir + "/pkeys";
    auto entries = listDir(dir);
    if (!entries)
        return std::move(entries).error();
    for (const auto &e : *entries) {
        std::string path = dir + "/" + e;
        auto text = readAttr(path);
        if (!text)
            return std::move(text).error();
        auto v = parseNumber(*text, path, 16);
        if (!v)
            return std::move(v).error();
        if (*v > 0xffff)
            return malformed(path, *text);
        if (*v != 0)
            out.push_back(static_cast<uint16_t>(*v));
    }
    return {};
}

Result<std::optional<std::string>> optionalString(const std::string &dir, const char *name)
{
    return readOptionalAttr(join(dir, name));
}

Result<model::Netdev> readNetdev(const std::string &netDir, const std::string &name, model::Host &host)
{
    std::string dir = netDir + "/" + name;
    model::Netdev nd;
    nd.name = name;
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
    bool isBond = g_file_test(join(dir, "bonding").c_str(), G_FILE_TEST_IS_DIR);
    if (isBond)
        nd.kind = "bond";
    else if (nd.type == 32 && nd.kind.empty())
        nd.kind = "ipoib";

    auto master = readLinkName(join(dir, "master"));
    if (!master)
        return std::move(master).error();
    nd.master = master->value_or("");

    // The RDMA port behind the netdev: device/infiniband/<dev>, port from
    // dev_port (or dev_id on drivers such as mlx4 that use it), as rdma-core.
    auto ibdevs = listDir(dir + "/device/infiniband");
    if (!ibdevs)
        return std::move(ibdevs).error();
    if (!ibdevs->empty()) {
        nd.rdmaDevice = ibdevs->front();
        auto devPort = readOptionalNumber(join(dir, "dev_port"), 10, model::kMaxRdmaPort - 1);
        if (!devPort)
            return std::move(devPort).error();
        auto devId = readOptionalNumber(join(dir, "dev_id"), 16, model::kMaxRdmaPort - 1);
        if (!devId)
            return std::move(devId).error();
        unsigned long long p = std::max(devPort->value_or(0), devId->value_or(0));
        nd.rdmaPort = static_cast<unsigned>(p + 1);
    }

    if (nd.type == 32) {
        model::IpoibNetdev ib;
        ib.name = name;
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
            if (**mode == "datagram")
                ib.mode = model::IpoibMode::Datagram;
            else if (**mode == "connected")
                ib.mode = model::IpoibMode::Connected;
            else
                return malformed(join(dir, "mode"), **mode);
        }
        auto umcast = readOptionalNumber(join(dir, "umcast"), 10);
        if (!umcast)
            return std::move(umcast).error();
        ib.umcast = umcast->value_or(0) != 0;
        auto parent = optionalString(dir, "parent");
        if (!parent)
            return std::move(parent).error();
        // A port's own interface shows itself (or nothing) as parent.
        if (parent->has_value() && **parent != name)
            ib.parent = **parent;
        host.ipoib.push_back(std::move(ib));
    }

    if (isBond) {
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
    }
    return nd;
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
            if (**mode == "RoCE v2")
                port.defaultRoceMode = model::RoceMode::V2;
            else if (**mode == "IB/RoCE v1")
                port.defaultRoceMode = model::RoceMode::V1;
            else
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

} // namespace

Result<std::string> readAttr(const std::string &path)
{
    char buf[kMaxAttrSize];
    ssize_t n = readRaw(path.c_str(), buf);
    if (n < 0)
        return readError(n, path);
    return std::string(buf, static_cast<size_t>(n));
}

Result<std::optional<std::string>> readOptionalAttr(const std::string &path)
{
    char buf[kMaxAttrSize];
    ssize_t n = readRaw(path.c_str(), buf);
    if (n == -ENOENT)
        return std::optional<std::string>();
    if (n < 0)
        return readError(n, path);
    return std::optional<std::string>(std::string(buf, static_cast<size_t>(n)));
}

Result<unsigned long long> parseNumber(const std::string &text, const std::string &path, int base)
{
    const char *s = text.c_str();
    if (*s == '\0' || *s == '-' || *s == '+' || g_ascii_isspace(*s))
        return malformed(path, text);
    char *end = nullptr;
    errno = 0;
    unsigned long long v = strtoull(s, &end, base);
    if (errno != 0 || end == s || *end != '\0')
        return malformed(path, text);
    return v;
}

Result<std::optional<unsigned long long>> readOptionalNumber(const std::string &path, int base,
                                                             unsigned long long max)
{
    auto text = readOptionalAttr(path);
    if (!text)
        return std::move(text).error();
    if (!text->has_value())
        return std::optional<unsigned long long>();
    auto v = parseNumber(**text, path, base);
    if (!v)
        return std::move(v).error();
    if (*v > max)
        return Error(IBNM_ERROR_PARSE, strprintf(_("the value %s is out of range (at most %llu)"), text->value().c_str(), max))
            .withContext(path);
    return std::optional<unsigned long long>(*v);
}

Result<std::optional<std::string>> readLinkName(const std::string &path)
{
    char buf[PATH_MAX];
    ssize_t n = ::readlink(path.c_str(), buf, sizeof(buf));
    if (n < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return std::optional<std::string>();
        return Error::fromErrno(errno, path);
    }
    if (static_cast<size_t>(n) == sizeof(buf))
        return tooLarge(path);
    std::string target(buf, static_cast<size_t>(n));
    auto slash = target.rfind('/');
    return std::optional<std::string>(slash == std::string::npos ? target : target.substr(slash + 1));
}

Result<std::vector<std::string>> listDir(const std::string &path)
{
    std::vector<std::string> names;
    int fd = openConfined(path.c_str(), O_RDONLY | O_DIRECTORY);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return names;
        return readError(-errno, path);
    }
    std::unique_ptr<DIR, FnDeleter<closedir>> dir(::fdopendir(fd));
    if (!dir) {
        int e = errno;
        ::close(fd);
        return Error::fromErrno(e, path);
    }
    errno = 0;
    while (const dirent *d = ::readdir(dir.get())) {
        if (std::strcmp(d->d_name, ".") != 0 && std::strcmp(d->d_name, "..") != 0)
            names.emplace_back(d->d_name);
        errno = 0;
    }
    if (errno != 0)
        return Error::fromErrno(errno, path);
    // Natural order: "2" before "10", "mlx5_2" before "mlx5_10".
    std::sort(names.begin(), names.end(),
              [](const std::string &x, const std::string &y) { return ::strverscmp(x.c_str(), y.c_str()) < 0; });
    return names;
}

Status writeAttr(const std::string &path, const std::string &value)
{
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
    if (!fd)
        return Error::fromErrno(errno, path);
    ssize_t n;
    do
        n = ::write(fd.get(), value.data(), value.size());
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return Error::fromErrno(errno, path, IBNM_ERROR_PLATFORM);
    if (static_cast<size_t>(n) != value.size())
        return Error::fromErrno(EIO, path, IBNM_ERROR_PLATFORM);
    int fdv = fd.release();
    if (::close(fdv) < 0 && errno != EINTR)
        return Error::fromErrno(errno, path, IBNM_ERROR_PLATFORM);
    return {};
}

std::string formatGid(const unsigned char raw[16])
{
    char buf[40];
    snprintf(buf, sizeof(buf), "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x", raw[0], raw[1],
             raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14],
             raw[15]);
    return buf;
}

std::string portGuidFromAddress(const std::string &address)
{
    // 20 bytes "xx:" each: 59 characters.
    if (address.size() != 59)
        return {};
    std::string hex;
    for (size_t i = 12 * 3; i < address.size(); i += 3)
        hex += address.substr(i, 2);
    return hex.substr(0, 4) + ":" + hex.substr(4, 4) + ":" + hex.substr(8, 4) + ":" + hex.substr(12, 4);
}

namespace {

// The RDMA devices under class/infiniband (directories), in natural order.
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
            d.driver = "rdma_rxe";
        else if (g_str_has_prefix(d.nodeType.c_str(), "4:") && d.hcaType.empty())
            d.driver = "siw";
    }
    auto roce = readOptionalNumber(dir + "/device/roce_enable", 10);
    if (!roce)
        return std::move(roce).error();
    if (roce->has_value())
        d.roceEnabled = **roce != 0;

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
        auto roce = readOptionalNumber(dir + "/device/roce_enable", 10);
        if (!roce)
            return std::move(roce).error();
        if (roce->has_value())
            d.roceEnabled = **roce != 0;
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
