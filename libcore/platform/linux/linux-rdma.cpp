// SPDX-License-Identifier: LGPL-2.1-or-later
// The Linux platform's RDMA changes: rxe/siw links (RDMA netlink), kernel
// modules (libkmod), configfs rdma_cm's default RoCE mode and ToS, mlx5
// tc/ traffic class, TTL and rules, and roce_enable.
#include "config.h"

#include "libcore/platform/linux/linux-platform-private.hpp"

#include "libcore/model/rdma.hpp"
#include "libcore/platform/linux/sysfs.hpp"

#include <cerrno>
#include <cstring>

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

namespace ibnm::platform {

// --- RDMA ------------------------------------------------------------------------

Status LinuxPlatform::addSoftLink(const std::string &name, model::SoftLinkType type, const std::string &netdev)
{
    if (auto st = writable(); !st)
        return st;
    if (!exists(netDir() + "/" + netdev))
        return noSuchInterface(netdev).withContext(name);
    auto s = rdmaSocket();
    if (!s)
        return std::move(s).error().withContext(name);
    auto msg = rdma::encodeNewLink(name, type, netdev);
    if (!msg)
        return std::move(msg).error();
    if (auto st = sendAck(**s, msg->get(), name); !st)
        return std::move(st).withContext(netdev + " (" + model::softLinkTypeName(type) + ")", " ");
    waitUntil([&] { return exists(ibDir(name)); });
    if (type == model::SoftLinkType::Rxe)
        settleRoceGids(netdev);
    return {};
}

Status LinuxPlatform::deleteSoftLink(const std::string &name)
{
    if (auto st = writable(); !st)
        return st;
    if (!exists(ibDir(name)))
        return noSuchDevice(name);
    auto s = rdmaSocket();
    if (!s)
        return std::move(s).error().withContext(name);
    auto devices = rdmaDevices(**s);
    if (!devices)
        return std::move(devices).error();
    std::optional<uint32_t> index;
    for (const auto &d : *devices)
        if (d.name == name)
            index = d.index;
    if (!index)
        return noSuchDevice(name);
    auto msg = rdma::encodeDelLink(*index);
    if (!msg)
        return std::move(msg).error();
    if (auto del = sendAck(**s, msg->get(), name); !del)
        return del;
    waitUntil([&] { return !exists(ibDir(name)); });
    return {};
}

Status LinuxPlatform::roceDir(const std::string &device, unsigned port, std::string &portDir)
{
    if (auto st = writable(); !st)
        return st;
    if (!exists(ibDir(device)))
        return noSuchDevice(device);
    std::string base = options_.configfsRoot + "/rdma_cm";
    if (!g_file_test(base.c_str(), G_FILE_TEST_IS_DIR))
        return Error(IBNM_ERROR_NOT_SUPPORTED, _("configfs rdma_cm is not available (mount configfs and load rdma_cm)"),
                     ENOENT)
            .withContext(base);
    // The values live only while this directory exists: it is created when
    // missing and left in place.
    std::string dir = base + "/" + device;
    if (::mkdir(dir.c_str(), 0755) < 0 && errno != EEXIST)
        return Error::fromErrno(errno, dir, IBNM_ERROR_PLATFORM);
    portDir = dir + "/ports/" + std::to_string(port);
    if (!exists(portDir))
        return Error(IBNM_ERROR_NOT_FOUND, _("no such port"), ENOENT).withContext(portDir);
    return {};
}

namespace {

// The module of each soft RDMA driver (drivers/infiniband/sw/rxe builds
// rdma_rxe, sw/siw builds siw), and rdma_ucm: it pulls in rdma_cm, which
// registers configfs rdma_cm/ (drivers/infiniband/core/cma_configfs.c), and
// gives user space /dev/infiniband/rdma_cm.
const char *softLinkModule(model::SoftLinkType type)
{
    return model::softLinkDriver(type); // the module is named as the driver
}
constexpr const char *kRdmaCmModule = "rdma_ucm";
// statfs(2) f_type of configfs (fs/configfs/mount.c; not in linux/magic.h).
constexpr long kConfigfsMagic = 0x62656570;

// What `modprobe NAME` does, through libkmod: the module and its
// dependencies, honouring the blacklist; nothing when it is loaded already
// or built in.
Status loadModule(kmod_ctx *ctx, const char *name)
{
    kmod_module *raw = nullptr;
    int rc = kmod_module_new_from_name(ctx, name, &raw);
    KmodModulePtr mod(raw);
    if (rc == 0) {
        int state = kmod_module_get_initstate(mod.get());
        if (state == KMOD_MODULE_LIVE || state == KMOD_MODULE_BUILTIN)
            return {};
        rc = kmod_module_probe_insert_module(mod.get(), KMOD_PROBE_APPLY_BLACKLIST, nullptr, nullptr, nullptr,
                                             nullptr);
        if (rc > 0)
            return Error(IBNM_ERROR_NOT_SUPPORTED,
                         strprintf(_("cannot load the kernel module %s: it is blacklisted"), name));
    }
    if (rc < 0)
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("cannot load the kernel module %s: %s"), name, g_strerror(-rc)), -rc);
    return {};
}

} // namespace

Status LinuxPlatform::prepare(const Prerequisites &needs)
{
    if (needs.empty())
        return {};
    if (auto st = writable(); !st)
        return st;
    // What is there already needs nothing, not even the module index: a
    // module whose initstate is "live", as kmod_module_get_initstate() reads
    // it, and configfs mounted.
    auto live = [this](const char *name) {
        GCharPtr state;
        std::string path = options_.sysfsRoot + "/module/" + name + "/initstate";
        if (!g_file_get_contents(path.c_str(), outPtr(state), nullptr, nullptr))
            return false;
        return g_str_has_prefix(state.get(), "live") != FALSE;
    };
    struct statfs mounted {};
    bool done = !needs.rdmaCmConfigfs || (::statfs(options_.configfsRoot.c_str(), &mounted) == 0 &&
                                          mounted.f_type == kConfigfsMagic && live(kRdmaCmModule));
    for (auto type : needs.softLinkDrivers)
        done = done && live(softLinkModule(type));
    if (done)
        return {};
    KmodCtxPtr ctx(kmod_new(nullptr, nullptr));
    if (!ctx)
        return Error(IBNM_ERROR_NOT_SUPPORTED, _("cannot read the kernel's module index"));
    for (auto type : needs.softLinkDrivers)
        if (auto st = loadModule(ctx.get(), softLinkModule(type)); !st)
            return st;
    if (!needs.rdmaCmConfigfs)
        return {};
    // configfs at configfsRoot, as systemd's sys-kernel-config.mount does.
    struct statfs fs {};
    if (::statfs(options_.configfsRoot.c_str(), &fs) != 0 || fs.f_type != kConfigfsMagic) {
        if (auto st = loadModule(ctx.get(), "configfs"); !st)
            return st;
        if (::mount("configfs", options_.configfsRoot.c_str(), "configfs", 0, nullptr) != 0 && errno != EBUSY)
            return Error(IBNM_ERROR_NOT_SUPPORTED,
                         strprintf(_("cannot mount configfs on %s: %s"), options_.configfsRoot.c_str(),
                                   g_strerror(errno)),
                         errno);
    }
    return loadModule(ctx.get(), kRdmaCmModule);
}

Status LinuxPlatform::setDefaultRoceMode(const std::string &device, unsigned port, model::RoceMode mode)
{
    std::string dir;
    if (auto st = roceDir(device, port, dir); !st)
        return st;
    return sysfs::writeAttr(dir + "/default_roce_mode", model::roceModeName(mode));
}

Status LinuxPlatform::removeRoceDefaults(const std::string &device)
{
    if (auto st = writable(); !st)
        return st;
    std::string dir = options_.configfsRoot + "/rdma_cm/" + device;
    if (::rmdir(dir.c_str()) < 0 && errno != ENOENT)
        return Error::fromErrno(errno, dir, IBNM_ERROR_PLATFORM);
    return {};
}

Status LinuxPlatform::setDefaultRoceTos(const std::string &device, unsigned port, unsigned tos)
{
    if (tos > 255)
        return Error(IBNM_ERROR_INVALID_ARGUMENT, strprintf(_("the ToS %u is out of range (0-255)"), tos), ERANGE)
            .withContext(device);
    std::string dir;
    if (auto st = roceDir(device, port, dir); !st)
        return st;
    return sysfs::writeAttr(dir + "/default_roce_tos", std::to_string(tos));
}

Status LinuxPlatform::tcWrite(const std::string &device, unsigned port, const char *file, unsigned value)
{
    if (auto st = writable(); !st)
        return st;
    if (value > 255 && value != kTcDisable)
        return Error(IBNM_ERROR_INVALID_ARGUMENT, strprintf(_("the value %u is out of range (0-255)"), value), ERANGE)
            .withContext(device);
    if (!exists(ibDir(device)))
        return noSuchDevice(device);
    std::string path = ibDir(device) + "/tc/" + std::to_string(port) + "/" + file;
    if (!exists(path))
        return Error(IBNM_ERROR_NOT_SUPPORTED, _("the device has no such setting (only mlx5 has it)"), ENOENT)
            .withContext(path);
    return sysfs::writeAttr(path, value == kTcDisable ? std::string("-1") : std::to_string(value));
}

Status LinuxPlatform::clearTrafficClass(const std::string &device, unsigned port)
{
    // A negative value disables the global traffic class (NVIDIA's RoCE page).
    return tcWrite(device, port, "traffic_class", kTcDisable);
}

Status LinuxPlatform::setTrafficClass(const std::string &device, unsigned port, unsigned tclass)
{
    return tcWrite(device, port, "traffic_class", tclass);
}

Status LinuxPlatform::setTtl(const std::string &device, unsigned port, unsigned ttl)
{
    return tcWrite(device, port, "ttl", ttl);
}

Status LinuxPlatform::setTrafficClassRule(const std::string &device, unsigned port, const model::TcRule &rule)
{
    if (auto st = writable(); !st)
        return st;
    if (!exists(ibDir(device)))
        return noSuchDevice(device);
    std::string path = ibDir(device) + "/tc/" + std::to_string(port) + "/traffic_class";
    if (!exists(path))
        return Error(IBNM_ERROR_NOT_SUPPORTED, _("the device has no such setting (only mlx5 has it)"), ENOENT)
            .withContext(path);
    return sysfs::writeAttr(path, model::formatTcRule(rule));
}

Status LinuxPlatform::setRoceEnabled(const std::string &device, bool enabled)
{
    if (auto st = writable(); !st)
        return st;
    if (!exists(ibDir(device)))
        return noSuchDevice(device);
    // /sys/class/infiniband/<dev>/device is the PCI function's directory,
    // /sys/devices/<pci address>.
    std::string path = ibDir(device) + "/device/roce_enable";
    if (!exists(path))
        return Error(IBNM_ERROR_NOT_SUPPORTED, _("the device has no roce_enable file (mlx5 only)"), ENOENT)
            .withContext(path);
    return sysfs::writeAttr(path, enabled ? "1" : "0");
}

} // namespace ibnm::platform
