// SPDX-License-Identifier: LGPL-2.1-or-later
// openLinuxPlatform() (linux-platform.hpp): the Linux platform as libibnm and
// the read-only CLI use it, without linking libnl-3, libnl-route-3 or
// libibverbs (issue 17). A sysfs tree read from files is read here; the rest
// is LinuxPlatform, in the module ibnm-linux.so (linux-module.cpp), opened
// with GModule when the platform is first used.
#include "config.h"

#include "libcore/platform/linux/linux-platform.hpp"

#include "libcore/platform/linux/sysfs.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/module-path.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <gmodule.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace ibnm::platform {

namespace {

// The module's file name: libtool's -module -avoid-version, in $(pkglibdir)
// as the full CLI's ibnm-cli.so.
constexpr const char *kModuleName = "ibnm-linux.so";

// What linux-module.cpp exports. The module and this code pass C++ objects
// (LinuxOptions, Platform) to each other: they must come from the same
// build, which the version and kModuleAbi check (`abi` null for a module
// older than that check).
struct ModuleApi {
    const char *(*version)();
    uint64_t (*abi)();
    void *(*newPlatform)(const void *options);
};

// A build as the version mismatch names it: "0.1.0+platform1.9c1f03a2".
std::string buildId(const char *version, uint64_t abi)
{
    return strprintf("%s+platform%u.%08x", version, unsigned(abi >> 32), unsigned(abi & 0xffffffffu));
}

template <typename Fn>
bool moduleSymbol(GModule *module, const char *name, Fn *out)
{
    gpointer p = nullptr;
    if (!g_module_symbol(module, name, &p) || p == nullptr)
        return false;
    *out = reinterpret_cast<Fn>(p);
    return true;
}

// Opens the module at `path` once per process (it stays loaded: the
// platforms it makes live as long as their hosts).
Result<ModuleApi> openModule(const std::string &path)
{
    static std::mutex lock;
    static std::map<std::string, ModuleApi> opened;
    std::lock_guard<std::mutex> guard(lock);
    if (auto it = opened.find(path); it != opened.end())
        return it->second;
    std::unique_ptr<GModule, gboolean (*)(GModule *)> module(
        g_module_open(path.c_str(), GModuleFlags(G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL)), g_module_close);
    // g_module_error() names the library that is missing: the module, or
    // libnl-3, libnl-route-3 or libibverbs behind it.
    if (!module)
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("cannot open the Linux platform module %s: %s"), path.c_str(), g_module_error()));
    ModuleApi api{};
    if (!moduleSymbol(module.get(), "ibnm_linux_module_version", &api.version) ||
        !moduleSymbol(module.get(), "ibnm_linux_platform_new", &api.newPlatform))
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("the Linux platform module %s lacks its entry points"), path.c_str()));
    // Optional: a module without it is of an older build, which the check
    // below refuses as another build.
    uint64_t abi = moduleSymbol(module.get(), "ibnm_linux_module_abi", &api.abi) ? api.abi() : 0;
    if (g_strcmp0(api.version(), PACKAGE_VERSION) != 0 || abi != kModuleAbi)
        return Error(IBNM_ERROR_NOT_SUPPORTED,
            strprintf(_("the Linux platform module %s is of ibnm %s, not %s"), path.c_str(),
                buildId(api.version(), abi).c_str(), buildId(PACKAGE_VERSION, kModuleAbi).c_str()));
    g_module_make_resident(module.release());
    opened.emplace(path, api);
    return api;
}

// The installed module, or the one $IBNM_MODULE_PATH names (the build
// tree's, for the tests: support/module-path.hpp).
std::string defaultModulePath()
{
    return modulePath(kModuleName, PKGLIBDIR);
}

// The Linux platform of openLinuxPlatform(). Without netlink and verbs (a
// sysfs tree), it reads the host here as LinuxPlatform would with the same
// options; everything else is LinuxPlatform's, from the module opened on the
// first call (on a tree that is a change, which LinuxPlatform refuses).
class ModulePlatform final : public Platform {
public:
    ModulePlatform(LinuxOptions options, std::string modulePath)
        : options_(std::move(options)), modulePath_(std::move(modulePath))
    {
    }

    const char *kind() const override { return "linux"; }

    Result<UniqueFd> lockActivations(int64_t waitUntil) override
    {
        // As LinuxPlatform: a tree read from files has nothing to serialise.
        if (options_.readOnly)
            return UniqueFd();
        return call(&Platform::lockActivations, waitUntil);
    }
    Result<model::Host> readHost() override
    {
        if (sysfsAlone())
            return readSysfsHost(options_, true);
        return call(&Platform::readHost);
    }
    Result<model::Host> readHostWithoutGidTables() override
    {
        if (sysfsAlone())
            return readSysfsHost(options_, false);
        return call(&Platform::readHostWithoutGidTables);
    }
    Result<model::Host> readGidTables() override
    {
        if (sysfsAlone())
            return sysfs::readGidTables(options_.sysfsRoot, true);
        return call(&Platform::readGidTables);
    }

    Result<std::string> createIpoibChild(const IpoibChildSpec &spec) override
    {
        return call(&Platform::createIpoibChild, spec);
    }
    Status deleteIpoibChild(const std::string &parent, uint16_t pkey) override
    {
        return call(&Platform::deleteIpoibChild, parent, pkey);
    }
    Status setIpoibMode(const std::string &ifname, model::IpoibMode mode) override
    {
        return call(&Platform::setIpoibMode, ifname, mode);
    }
    Status setIpoibUmcast(const std::string &ifname, bool umcast) override
    {
        return call(&Platform::setIpoibUmcast, ifname, umcast);
    }
    Status setMtu(const std::string &ifname, unsigned mtu) override { return call(&Platform::setMtu, ifname, mtu); }
    Status setUp(const std::string &ifname, bool up) override { return call(&Platform::setUp, ifname, up); }
    Status createBond(const BondSpec &spec) override { return call(&Platform::createBond, spec); }
    Status setBondOptions(const std::string &bond, std::optional<unsigned> miimon,
                          std::optional<std::string> primary) override
    {
        return call(&Platform::setBondOptions, bond, miimon, primary);
    }
    Status enslave(const std::string &port, const std::string &bond) override
    {
        return call(&Platform::enslave, port, bond);
    }
    Status release(const std::string &port) override { return call(&Platform::release, port); }
    Status deleteLink(const std::string &ifname) override { return call(&Platform::deleteLink, ifname); }
    Status addAddress(const std::string &ifname, const std::string &cidr) override
    {
        return call(&Platform::addAddress, ifname, cidr);
    }
    Status removeAddress(const std::string &ifname, const std::string &cidr) override
    {
        return call(&Platform::removeAddress, ifname, cidr);
    }
    Status addRoute(const std::string &ifname, const model::Route &route) override
    {
        return call(&Platform::addRoute, ifname, route);
    }
    Status removeRoute(const std::string &ifname, const model::Route &route) override
    {
        return call(&Platform::removeRoute, ifname, route);
    }

    Status prepare(const Prerequisites &needs) override
    {
        // As LinuxPlatform: nothing needed is nothing to do, on any host.
        if (needs.empty())
            return {};
        return call(&Platform::prepare, needs);
    }
    Status addSoftLink(const std::string &name, model::SoftLinkType type, const std::string &netdev) override
    {
        return call(&Platform::addSoftLink, name, type, netdev);
    }
    Status deleteSoftLink(const std::string &name) override { return call(&Platform::deleteSoftLink, name); }
    Status setDefaultRoceMode(const std::string &device, unsigned port, model::RoceMode mode) override
    {
        return call(&Platform::setDefaultRoceMode, device, port, mode);
    }
    Status setDefaultRoceTos(const std::string &device, unsigned port, unsigned tos) override
    {
        return call(&Platform::setDefaultRoceTos, device, port, tos);
    }
    Status removeRoceDefaults(const std::string &device) override
    {
        return call(&Platform::removeRoceDefaults, device);
    }
    Status setTrafficClass(const std::string &device, unsigned port, unsigned tclass) override
    {
        return call(&Platform::setTrafficClass, device, port, tclass);
    }
    Status clearTrafficClass(const std::string &device, unsigned port) override
    {
        return call(&Platform::clearTrafficClass, device, port);
    }
    Status setTtl(const std::string &device, unsigned port, unsigned ttl) override
    {
        return call(&Platform::setTtl, device, port, ttl);
    }
    Status setTrafficClassRule(const std::string &device, unsigned port, const model::TcRule &rule) override
    {
        return call(&Platform::setTrafficClassRule, device, port, rule);
    }
    Status setRoceEnabled(const std::string &device, bool enabled) override
    {
        return call(&Platform::setRoceEnabled, device, enabled);
    }
    Result<model::Resolver> readResolver() override { return call(&Platform::readResolver); }
    Status setLinkDns(const std::string &ifname, const model::LinkDns &dns) override
    {
        return call(&Platform::setLinkDns, ifname, dns);
    }
    Status revertLinkDns(const std::string &ifname) override { return call(&Platform::revertLinkDns, ifname); }
    Result<RdmaTestOutcome> runRdmaTest(const RdmaTestSpec &spec) override
    {
        // A tree read from files has devices but no wire.
        if (options_.readOnly)
            return Error(IBNM_ERROR_NOT_SUPPORTED,
                         strprintf(_("the host under %s is a sysfs tree read from files: it has no RDMA data path to "
                                     "test"),
                                   options_.sysfsRoot.c_str()));
        return call(&Platform::runRdmaTest, spec);
    }

private:
    bool sysfsAlone() const { return !options_.useNetlink && !options_.useVerbs; }

    // LinuxPlatform, made by the module on first use, once, whichever
    // thread comes first: the others wait for it and share it (an IbnmHost
    // may be used from several threads). A module that cannot be opened is
    // not remembered: each call reports why and the next one tries again
    // (a long-lived process picks up a module installed later).
    Result<Platform *> live()
    {
        std::lock_guard<std::mutex> guard(liveLock_);
        if (!live_) {
            auto made = makeLive();
            if (!made.ok())
                return std::move(made).error();
            live_ = std::move(made).value();
        }
        return live_.get();
    }

    Result<std::unique_ptr<Platform>> makeLive()
    {
        std::string path = modulePath_.empty() ? defaultModulePath() : modulePath_;
        auto api = openModule(path);
        if (!api)
            return std::move(api).error();
        std::unique_ptr<Platform> made(static_cast<Platform *>(api->newPlatform(&options_)));
        if (!made)
            return Error(IBNM_ERROR_FAILED,
                strprintf(_("the Linux platform module %s could not create its platform"), path.c_str()));
        return {std::move(made)};
    }

    // Every change, and a read of this machine, through the module. A tree
    // read from files is refused a change here, as LinuxPlatform refuses it
    // (naming the tree), without opening the module: a machine without
    // rdma-core still says why (its reads never come here).
    template <typename R, typename... Params, typename... Args>
    R call(R (Platform::*method)(Params...), Args &&...args)
    {
        if (options_.readOnly)
            return readOnlyTreeError(options_.sysfsRoot);
        auto p = live();
        if (!p)
            return std::move(p).error();
        return ((*p)->*method)(std::forward<Args>(args)...);
    }

    const LinuxOptions options_;
    const std::string modulePath_; // empty: defaultModulePath()
    std::mutex liveLock_;
    std::unique_ptr<Platform> live_;
};

} // namespace

std::unique_ptr<Platform> openLinuxPlatform(const LinuxOptions &options, const std::string &modulePath)
{
    // An empty modulePath: defaultModulePath(), when the module is first needed.
    return std::make_unique<ModulePlatform>(options, modulePath);
}

std::unique_ptr<Platform> openLinuxPlatform(const LinuxOptions &options)
{
    return openLinuxPlatform(options, std::string()); // the module found when first used
}

} // namespace ibnm::platform
