// SPDX-License-Identifier: LGPL-2.1-or-later
// A Platform that runs another one under a deadline: once the monotonic
// clock (g_get_monotonic_time) has passed it, the next change is refused
// with IBNM_ERROR_TIMED_OUT before it reaches the kernel, as a kernel
// refusal would be. Activation then undoes what it did, in reverse, as
// after any failure: those calls pass (only one call is refused), so a
// time-out ends with the host as before, never half-done. A call that is
// already under way is not interrupted.
#pragma once

#include "libcore/platform/platform.hpp"

#include <cstdint>

namespace ibnm::platform {

class DeadlinePlatform final : public Platform {
public:
    DeadlinePlatform(Platform &inner, int64_t deadline) : inner_(inner), deadline_(deadline) {}

    const char *kind() const override { return inner_.kind(); }
    Result<UniqueFd> lockActivations(int64_t waitUntil) override { return inner_.lockActivations(waitUntil); }
    Result<model::Host> readHost() override { return inner_.readHost(); }
    Result<model::Host> readGidTables() override { return inner_.readGidTables(); }
    Result<model::Host> readHostWithoutGidTables() override { return inner_.readHostWithoutGidTables(); }
    Result<std::unique_ptr<ChangeWatch>> watchChanges(GMainContext *context, ChangeCallback onChange) override
    {
        return inner_.watchChanges(context, std::move(onChange));
    }

    Result<std::string> createIpoibChild(const IpoibChildSpec &spec) override;
    Status deleteIpoibChild(const std::string &parent, uint16_t pkey) override;
    Status setIpoibMode(const std::string &ifname, model::IpoibMode mode) override;
    Status setIpoibUmcast(const std::string &ifname, bool umcast) override;
    Status setMtu(const std::string &ifname, unsigned mtu) override;
    Status setUp(const std::string &ifname, bool up) override;
    Status createBond(const BondSpec &spec) override;
    Status setBondOptions(const std::string &bond, std::optional<unsigned> miimon,
                          std::optional<std::string> primary) override;
    Status enslave(const std::string &port, const std::string &bond) override;
    Status release(const std::string &port) override;
    Status deleteLink(const std::string &ifname) override;
    Status addAddress(const std::string &ifname, const std::string &cidr) override;
    Status removeAddress(const std::string &ifname, const std::string &cidr) override;
    Status addRoute(const std::string &ifname, const model::Route &route) override;
    Status removeRoute(const std::string &ifname, const model::Route &route) override;
    Status prepare(const Prerequisites &needs) override;
    Status addSoftLink(const std::string &name, model::SoftLinkType type, const std::string &netdev) override;
    Status deleteSoftLink(const std::string &name) override;
    Status setDefaultRoceMode(const std::string &device, unsigned port, model::RoceMode mode) override;
    Status setDefaultRoceTos(const std::string &device, unsigned port, unsigned tos) override;
    Status removeRoceDefaults(const std::string &device) override;
    Status setTrafficClass(const std::string &device, unsigned port, unsigned tclass) override;
    Status clearTrafficClass(const std::string &device, unsigned port) override;
    Status setTtl(const std::string &device, unsigned port, unsigned ttl) override;
    Status setTrafficClassRule(const std::string &device, unsigned port, const model::TcRule &rule) override;
    Status setRoceEnabled(const std::string &device, bool enabled) override;
    Result<model::Resolver> readResolver() override { return inner_.readResolver(); }
    Status setLinkDns(const std::string &ifname, const model::LinkDns &dns) override;
    Status revertLinkDns(const std::string &ifname) override;
    // Traffic changes nothing: its waits have their own bounds (RdmaTestSpec).
    Result<RdmaTestOutcome> runRdmaTest(const RdmaTestSpec &spec) override { return inner_.runRdmaTest(spec); }

    // True once a change was refused for the deadline.
    bool expired() const { return expired_; }

private:
    // The time-out error for `object` the first time the deadline has
    // passed; success otherwise.
    Status check(const std::string &object);

    Platform &inner_;
    int64_t deadline_;
    bool expired_ = false;
};

} // namespace ibnm::platform
