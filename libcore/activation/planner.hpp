// SPDX-License-Identifier: LGPL-2.1-or-later
// The activation's private parts, shared by its files and not installed: a
// plan's steps (Step, Op) and the Planner that emits them, and the functions
// the files call of each other. The planner is planner.cpp (interfaces,
// bonds, addresses; the whole plan's order), planner-rdma.cpp (RDMA devices)
// and planner-down.cpp (taking down); engine.cpp runs, verifies and undoes
// the steps; host-files.cpp plans and runs the writes of files
// (writeFiles(), for settings/host-files.cpp).
#pragma once

#include "libcore/activation/engine.hpp"

#include "libcore/model/host-index.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/model/bond.hpp"
#include "libcore/model/ipoib.hpp"
#include "libcore/model/netdev.hpp"
#include "libcore/model/rdma.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

namespace ibnm::activation::detail {

using model::Host;
using model::IpoibMode;
using platform::Platform;

using Op = std::function<Status(Platform &)>;

struct Step {
    StepRecord rec;
    Op run;
    Op undo; // empty: nothing to undo of its own
    // Set for the steps of a new object (a P_Key child, a bond, a soft RDMA
    // link): the name the kernel gave it, for the report, and whether the
    // object's own undo (its deletion) ran, which undoes these steps too.
    std::shared_ptr<std::string> kernelName;
    std::shared_ptr<bool> removed;
};

inline std::string pkeyHex(uint16_t p)
{
    return strprintf("0x%04x", p);
}

// The bond to create as `name` with the options of `b`: a DesiredBond, or the
// model::Bond read from the host (re-created when deleting it is undone).
template <typename BondOptions>
platform::BondSpec bondSpec(const std::string &name, const BondOptions &b)
{
    platform::BondSpec spec;
    spec.name = name;
    spec.mode = b.mode;
    spec.miimon = b.miimon;
    spec.primary = b.primary;
    spec.failOverMac = b.failOverMac;
    return spec;
}

// planner-rdma.cpp: the device and port a DesiredRdma's keys go to.
struct RdmaTarget;

class Planner {
public:
    // `record` false: the verdict only (Options::verdictOnly): every
    // decision is made as always, but add() and note() keep nothing.
    Planner(const Host &host, Report &report, bool rdmaOnly = false, const model::HostIndex *index = nullptr,
        bool record = true)
        : host_(host), ownIndex_(index ? std::nullopt : std::optional<model::HostIndex>(std::in_place, host)),
          index_(index ? *index : *ownIndex_), report_(report), rdmaOnly_(rdmaOnly), record_(record)
    {
    }

    std::vector<Step> steps;

    // Whether the steps are kept (false: only the verdict is asked).
    bool recording() const { return record_; }

    // One step. `detail` is the text or a function that makes it: made,
    // like the step's operations, only when the steps are kept (a plan
    // made for its verdict alone, such as each of the 10,000 that `ibnm
    // check` makes, builds no step).
    template <typename Detail, typename Run, typename Undo = Op>
    void add(IbnmStepAction action, const std::string &object, Detail &&detail, const std::string &origin, Run &&run,
        Undo &&undo = Op{})
    {
        if (!record_)
            return;
        Step s;
        s.rec.action = action;
        s.rec.object = object;
        if constexpr (std::is_invocable_v<Detail &>)
            s.rec.detail = detail();
        else
            s.rec.detail = std::forward<Detail>(detail);
        s.rec.origin = origin;
        s.run = std::forward<Run>(run);
        s.undo = std::forward<Undo>(undo);
        steps.push_back(std::move(s));
    }

    // The steps from `first` on configure the object that steps[first]
    // creates: deleting it (its undo) undoes them. A plan kept only for its
    // verdict has no steps to cover.
    void coverFrom(size_t first)
    {
        if (!record_)
            return;
        g_assert(first < steps.size());
        auto removed = std::make_shared<bool>(false);
        Op undo = std::move(steps[first].undo);
        steps[first].undo = [undo, removed](Platform &p) -> Status {
            Status s = undo(p);
            *removed = s.ok();
            return s;
        };
        for (size_t i = first; i < steps.size(); i++)
            steps[i].removed = removed;
    }

    // `message`: the text or a function that makes it (made only when
    // recording, as a step's detail).
    template <typename Message>
    void note(const std::string &origin, const std::string &object, Message &&message)
    {
        if (!record_)
            return;
        if constexpr (std::is_invocable_v<Message &>)
            report_.notes.push_back({origin, object, message()});
        else
            report_.notes.push_back({origin, object, std::forward<Message>(message)});
    }

    const model::IpoibNetdev *findBase(const activation::DesiredIpoib &x) const
    {
        if (!x.ifname.empty())
            return index_.findIpoib(x.ifname);
        for (const auto &ib : host_.ipoib)
            if (ib.parent.empty() && model::sameIpoibPort(ib.address, x.macAddress))
                return &ib;
        return nullptr;
    }

    const model::IpoibNetdev *find(const activation::DesiredIpoib &x) const
    {
        return x.pkey ? index_.child(x.parent, *x.pkey) : findBase(x);
    }

    // The MTU the bond `name` has once `up` has run: what its profile asks,
    // else what it has, else the driver's default.
    // The MTU of the first desired bond of that name that sets one, else
    // the netdev's. Looked up, not scanned: `ibnm check` plans every
    // profile at once, and a scan of the bonds per port was quadratic.
    unsigned bondMtu(const std::string &name) const
    {
        if (auto it = desiredBondMtus_.find(name); it != desiredBondMtus_.end())
            return it->second;
        const auto *nd = index_.findNetdev(name);
        return nd ? nd->mtu : model::kBondDefaultMtu;
    }

    void setDesiredBonds(const std::vector<DesiredBond> &bonds)
    {
        for (const auto &b : bonds) {
            desiredBondNames_.insert(b.ifname);
            if (b.mtu != 0)
                desiredBondMtus_.emplace(b.ifname, b.mtu); // the first stays
        }
    }
    // Whether this plan creates (or re-creates) the bond.
    bool bondPlanned(const std::string &name) const { return desiredBondNames_.count(name) > 0; }

    // The RoCE LAG devices the desired bonds make (model::predictRoceLag),
    // by bond: rdma.* keys of such a bond's profile go to that device.
    void predictRoceLags(const Desired &desired)
    {
        // The Ethernet ports of each bond, in order, found in one pass (a
        // pass per bond was quadratic in a plan of every profile).
        std::unordered_map<std::string, std::vector<std::string>> portsOf;
        if (!desired.bonds.empty())
            for (const auto &e : desired.ethernet)
                portsOf[e.master].push_back(e.ifname);
        for (const auto &b : desired.bonds) {
            if (const auto *n = index_.findNetdev(b.ifname); n && !n->rdmaDevice.empty())
                continue; // in LAG mode already
            auto it = portsOf.find(b.ifname);
            const std::vector<std::string> ports = it == portsOf.end() ? std::vector<std::string>{} : it->second;
            if (auto lag = model::predictRoceLag(host_, b.mode, ports)) {
                for (const auto &port : ports)
                    lagPorts_[port] = {b.ifname, *lag};
                // Built on the card's first function (the lower PCI address).
                const model::Device *first = nullptr;
                for (const auto &port : ports)
                    if (const auto *n = index_.findNetdev(port))
                        if (const auto *d = index_.findDevice(n->rdmaDevice))
                            if (!first || d->pciAddress < first->pciAddress)
                                first = d;
                lagDevices_[b.ifname] = {*lag, first};
            }
        }
    }

    Status planIpoib(const DesiredIpoib &x);
    Status planBond(const DesiredBond &x);
    Status planEthernet(const DesiredEthernet &x);
    Status planRdma(const DesiredRdma &x, const std::set<std::string> &newNetdevs);
    // Addresses and routes of ifname as `ip` says. `flushed`: an earlier step
    // takes the link down, which removes its routes and IPv6 addresses.
    void planIp(const std::string &origin, const std::string &ifname, const DesiredIp &ip, bool flushed);
    // The DNS servers and search domains of ifname, given to systemd-resolved
    // where it runs (planIp() asks it); where it does not, a note says they
    // are not applied. dnsApplies(): whether they are (false with the note).
    void planDns(const std::string &origin, const std::string &ifname, const model::LinkDns &dns);
    bool dnsApplies(const std::string &origin, const std::string &ifname, const model::LinkDns &dns);
    // Down: gives the link back to systemd-resolved's own configuration
    // (RevertLink), when a profile gave it `dns`.
    void planDnsRevert(const std::string &origin, const std::string &ifname, const model::LinkDns &dns);
    void planUp(const std::string &origin, const std::string &ifname, bool isUp);
    // Takes ifname down; the undo brings it up with the addresses and routes
    // the kernel flushed.
    void planDown(const std::string &origin, const std::string &ifname, std::string detail);
    // Enslaves ifname (whose MTU is `mtu` now, up or not as `wasUp`, its
    // IPv6 addresses and routes already flushed by an earlier step when
    // `flushed`) into bond; the undo releases it, puts the MTU back that
    // enslaving replaced with the bond's, and brings it up as it was.
    void planEnslave(const std::string &origin, const std::string &ifname, const std::string &bond, unsigned mtu,
                     bool wasUp, bool flushed);
    // Takes `nd` out of its bond (nd.master); the undo enslaves it again and
    // puts its MTU back.
    // Takes `nd` out of its bond; what then holds for it (model::portAfterRelease).
    model::PortAfterRelease planRelease(const std::string &origin, const model::Netdev &nd);

    // The P_Key children of `parent` as the steps so far leave them (at
    // first as on the host): a step that takes the parent down or up moves
    // them (model::childAfterParentLink).
    std::vector<model::Netdev> &children(const std::string &parent);
    // After a step that brought `parent` up: steps that put each of its
    // children back as it is on the host (its link, the addresses and
    // routes it lost), so that a plan that takes a parent down and up
    // leaves its children as they were.
    void planChildrenBack(const std::string &origin, const std::string &parent);
    // Options::childrenBefore.
    void setChildrenBefore(const std::unordered_map<std::string, model::Netdev> *before) { childrenBefore_ = before; }

    // Interfaces whose final "up" is planned after their configuration.
    std::vector<std::pair<std::string, std::string>> pendingUp; // origin, ifname

private:
    Status planIpoibExtras(const DesiredIpoib &x);
    // The stages of planIpoib() (planner.cpp), in order.
    Status findIpoib(const DesiredIpoib &x, const model::IpoibNetdev *&cur) const;
    Status checkIpoibMtu(const DesiredIpoib &x, const model::Port *port, const model::Device *dev, unsigned &eff);
    Status checkIpoibBond(const DesiredIpoib &x, const model::IpoibNetdev *cur, const std::string &base,
                          const model::Port *port) const;
    void planIpoibChild(const DesiredIpoib &x);
    void planIpoibExisting(const DesiredIpoib &x, const model::IpoibNetdev &cur, const model::Port *port,
                           unsigned eff);
    // The stages of planRdma() (planner-rdma.cpp), in order.
    Status planRdmaTarget(const DesiredRdma &x, const std::set<std::string> &newNetdevs, RdmaTarget &t);
    Status planRdmaSoftLink(const DesiredRdma &x, bool netdevKnown, RdmaTarget &t);
    Status planRdmaNetdevDevice(const DesiredRdma &x, const std::set<std::string> &newNetdevs, RdmaTarget &t);
    Status checkRdmaSupport(const DesiredRdma &x, const RdmaTarget &t) const;
    void planRdmaRoceDefaults(const DesiredRdma &x, const RdmaTarget &t);
    void planRdmaTrafficClass(const DesiredRdma &x, const RdmaTarget &t);
    // The port's MTU once it joins its bond, refused as the kernel refuses it.
    Status checkPortMtu(const std::string &origin, const std::string &port, const std::string &bond,
                        IpoibMode mode, const model::Port *rdmaPort) const;

    const Host &host_;
    // Lookups by name in constant time: planning a large host stays linear.
    // The caller's index of host_ (Options::index), else the planner's own.
    std::optional<model::HostIndex> ownIndex_;
    const model::HostIndex &index_;
    Report &report_;
    bool rdmaOnly_ = false;
    bool record_ = true;
    std::unordered_set<std::string> desiredBondNames_;
    std::unordered_map<std::string, unsigned> desiredBondMtus_;
    std::map<std::string, std::pair<std::string, const model::Device *>> lagDevices_;
    // The ports of the bonds this plan puts into RoCE LAG mode: their bond
    // and the LAG device that replaces their own RDMA devices.
    std::map<std::string, std::pair<std::string, std::string>> lagPorts_;
    // The RDMA device each port of a RoCE LAG this plan releases a port of
    // gets back (model::roceLagSplit), by port.
    std::map<std::string, model::Device> splitDevices_;
    std::unordered_map<std::string, std::vector<model::Netdev>> childLinks_; // by parent
    const std::unordered_map<std::string, model::Netdev> *childrenBefore_ = nullptr;
};

// planner.cpp: the steps that bring `desired` onto `host`, in order; a
// planning error (a fact that refuses) fails before anything is changed.
// `record` false: the verdict only, no steps (Options::verdictOnly).
Result<std::vector<Step>> makePlan(
    const Host &host, const Desired &desired, const Options &options, Report &report, bool record = true);

// planner-down.cpp: the steps that take down what up() of `desired` made on
// `host`, in order (the reverse of up).
std::vector<Step> makeDownPlan(const Host &host, const Desired &desired, const Options &options, Report &report);

// planner.cpp: P_Key children `children` after their parent's link went
// down (parentUp false) or up (model::childAfterParentLink); the op that
// brings each child from `now` to `target` (link, addresses, routes it
// lacks); `undo`, then `more`.
std::vector<model::Netdev> followParent(std::vector<model::Netdev> children, bool parentUp);
Op convergeChildren(std::vector<model::Netdev> now, const std::vector<model::Netdev> &target);
Op andThen(Op undo, Op more);

// The step text of giving `dns` to systemd-resolved (planner.cpp).
std::string dnsDetail(const model::LinkDns &dns);

// planner-teardown.cpp: the steps that deactivate the active connections
// of `records` on `host` (what they created deleted, what they changed put
// back), and the host as the kernel leaves it after them.
struct TeardownPlan {
    std::vector<Step> steps;
    Host after;
};
TeardownPlan makeTeardownPlan(const Host &host, const std::vector<ActiveRecord> &records, Report &report);

// engine.cpp: runs the steps in order; the first failure stops the run and
// undoes the steps done so far, and given the host as it was (`before`),
// reads it back to say whether it is so again. Returns false on failure
// (report says why).
bool execute(Platform &platform, std::vector<Step> &steps, Report &report, const Host *before = nullptr);
// engine.cpp: undoes the steps before `end` that ran, in reverse order, and
// says in the report whether the host is as before.
void rollback(Platform &platform, std::vector<Step> &steps, size_t end, Report &report, const Host *before = nullptr);
// engine.cpp: reads `h` for what `d` asks; the first mismatch is the error.
Status verifyUp(const Host &h, const Desired &d, bool rdmaOnly);
// Moves the steps' records into the report, named as the kernel named them.
void finish(std::vector<Step> &steps, Report &report);
// The report of a plan that failed before anything changed.
Report planningFailed(Report report, Error e);

} // namespace ibnm::activation::detail
