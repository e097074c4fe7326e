// SPDX-License-Identifier: LGPL-2.1-or-later
// FakePlatform: the simulated host. The whole host lives in memory as a
// FakeState (loaded from a host description file, see examples/hosts/README.md)
// and every Platform operation applies the kernel's rules to it (FACTS.md and
// the kernel lab's findings): the P_Key full-membership bit, child naming per
// kernel flavour, the datagram MTU clamp, Enhanced IPoIB refusing connected
// mode, the bonding rules for IPoIB ports, RoCE GIDs following the netdevs'
// addresses, rxe/siw links creating RDMA devices, configfs rdma_cm rules.
//
// With a state directory the host persists between processes: every
// operation takes an flock on <dir>/lock, catches up with what other
// instances did (the journal lines it has not seen, fake-journal.hpp),
// applies itself and appends one line to <dir>/journal before it returns;
// now and then it writes a new snapshot, <dir>/state (a host description
// too). The snapshot is parsed again only when another instance wrote a new
// one. No operation copies or writes the whole state (the snapshot's cost
// is spread over a number of operations that grows with the host); lookups
// scan the host. reset() deletes the state, so the next read starts from the
// host file.
//
// A refused operation changes nothing: the state is rebuilt from the last
// snapshot and the operations since (a copy only on failure).
//
// Fault injection: failNext()/failEvery() or IBNM_FAKE_FAIL
// ("op=addSoftLink,nth=1,errno=EBUSY", rules separated by ';') make a
// mutating operation fail with the chosen errno and change nothing.
// operationCount() counts the mutating calls (successful or not).
//
// Its files: fake-platform.cpp (netdev operations), fake-rdma.cpp (RDMA
// operations), fake-driver.cpp (what readHost() derives: GIDs, RoCE LAG),
// fake-faults.cpp (fault injection), fake-state-store.cpp (open, state
// directory, journal, replay), and fake-platform-private.hpp (what they
// share: transact(), mutate()). The host files ibnm writes (memlock policy,
// udev rules) are not the kernel's: settings/host-files.hpp writes them
// under <state dir>/root.
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/support/result.hpp"
#include "libcore/simulator/fake-journal.hpp"
#include "libcore/platform/platform.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ibnm::platform {

// Everything the simulated host is. Values the kernel derives (RoCE GIDs,
// soft devices' port state, bond port lists) are recomputed by readHost().
struct FakeState {
    model::Host host;
    // Port GUID of each InfiniBand port ("mlx4_0/1" -> "0002:c903:0031:7851"):
    // its GID 0 is fe80::<guid>.
    std::map<std::string, std::string> portGuids;
    // Largest MTU a netdev takes (Ethernet NICs); absent: 65535.
    std::map<std::string, unsigned> maxMtu;
    // A bond port's MTU before it joined (bond_enslave() keeps it as
    // original_mtu; release puts it back).
    std::map<std::string, unsigned> originalMtu;
    // systemd-resolved: whether it runs on the simulated host and the DNS it
    // holds per link (host file: [host] resolved=, [netdev] dns=,
    // dns-search=). Not a kernel object: readHost() leaves it out, as the
    // Linux platform does; readResolver() reads it.
    model::Resolver resolver;
    uint64_t operations = 0;
};

// A fault rule: make the nth matching call (1-based, counting every call
// the rule matches since it was added, failed ones too), or every one,
// wait delayMs, then fail with errnum (0: go on and succeed; a slow
// kernel). An empty op matches every mutating operation.
struct FaultRule {
    std::string op;
    unsigned nth = 1;
    int errnum = EIO;
    unsigned delayMs = 0;
    unsigned seen = 0;
    bool every = false;
};

// Parses IBNM_FAKE_FAIL syntax:
// "op=NAME,nth=N,errno=ENAME|NUMBER,delay=MS[;...]" (delay without errno:
// the operation is slow and succeeds).
Result<std::vector<FaultRule>> parseFaultRules(const std::string &spec);

// The operation names fault rules match (Platform method names).
const std::vector<std::string> &fakeOperationNames();

class FakePlatform : public Platform {
public:
    // An in-memory host without persistence.
    explicit FakePlatform(FakeState state);
    ~FakePlatform() override;

    // A simulated host described by hostFile. stateDir empty: no persistence;
    // otherwise the state lives there (created if missing). Also applies
    // IBNM_FAKE_FAIL.
    static Result<std::unique_ptr<FakePlatform>> open(const std::string &hostFile, const std::string &stateDir);
    // The default state directory for a host file: "<hostFile>.state".
    static std::string defaultStateDir(const std::string &hostFile);

    const char *kind() const override { return "fake"; }
    // With a state directory: <dir>/activations.lock (another file than the
    // per-operation lock, which each operation takes and drops).
    Result<UniqueFd> lockActivations(int64_t waitUntil) override;
    Result<model::Host> readHost() override;
    // The whole snapshot: the state is in memory, there is nothing to save.
    Result<model::Host> readGidTables() override { return readHost(); }

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
    Status clearTrafficClass(const std::string &device, unsigned port) override;
    Status setTrafficClass(const std::string &device, unsigned port, unsigned tclass) override;
    Status setTtl(const std::string &device, unsigned port, unsigned ttl) override;
    Status setTrafficClassRule(const std::string &device, unsigned port, const model::TcRule &rule) override;
    Status setRoceEnabled(const std::string &device, bool enabled) override;
    // systemd-resolved (fake-addresses.cpp).
    Result<model::Resolver> readResolver() override;
    Status setLinkDns(const std::string &ifname, const model::LinkDns &dns) override;
    Status revertLinkDns(const std::string &ifname) override;
    // The simulated host moves no traffic: refused, never pretended.
    Result<RdmaTestOutcome> runRdmaTest(const RdmaTestSpec &spec) override;

    // --- simulation controls (not kernel operations, not counted) ---

    // Adds a netdev as hardware or `ip link add ... type dummy` would (tests
    // and the contract suite's makeEthernet). Fails if the name is taken.
    Status addNetdev(model::Netdev netdev);
    // What prepare() was asked, in order (in memory only).
    const std::vector<Prerequisites> &prepared() const { return prepared_; }
    // Mutating calls made so far (persisted with the state).
    uint64_t operationCount();
    void failNext(const std::string &op, int errnum) { faults_.push_back({op, 1, errnum, 0, 0, false}); }
    void failEvery(const std::string &op, int errnum) { faults_.push_back({op, 1, errnum, 0, 0, true}); }
    void addFaults(std::vector<FaultRule> rules);
    void clearFaults() { faults_.clear(); }
    // Forgets everything done since the host file was loaded (deletes the
    // state file) and reloads the host file.
    Status reset();
    const std::string &stateDir() const { return stateDir_; }
    const std::string &hostFile() const { return hostFile_; }

private:
    std::optional<unsigned> takeOriginalMtu(const std::string &port);
    // Runs fn on the current state: with a state directory under an flock
    // (shared to read, exclusive to change), after rereading the state file,
    // and saving it afterwards when `write`.
    template <typename Fn>
    Status transact(bool write, Fn &&fn);
    // A counted mutating operation: fault injection first, then fn. args:
    // what replay() needs to do it again.
    template <typename Fn>
    Status mutate(const char *op, const std::string &object, std::vector<std::string> args, Fn &&fn);
    // The stored device an RDMA device name stands for (a RoCE LAG device's
    // first function); nullptr for a function hidden in a LAG or no device.
    model::Device *storedDevice(const std::string &name);
    Status loadState();
    // Writes a new snapshot of state_ and starts its journal.
    Status saveState();
    // Persists the operation just done: a journal line, or a snapshot when
    // the journal is long enough to compact.
    Status saveRecord(const journal::Record &r);
    // Does a recorded operation again on state_ (no lock, no faults, no
    // record).
    Status replay(const journal::Record &r);
    // state_ = base_ and the operations since: undoes a refused operation.
    Status restore();
    // The fault rules a call of `op` meets: counts it for each rule that
    // names it (and for rules naming no operation when `anyRule`), sleeps a
    // rule's delay, and returns the injected error, if any.
    Status injectFault(const std::string &op, bool anyRule, const std::string &object);
    // base_ = state_ (after a change no record describes, and to compact).
    void rebase();
    // Operations kept before a compaction: grows with the host, so that the
    // snapshot costs the same per operation on every host.
    size_t compactAfter() const;

    FakeState state_;
    // The state at the last snapshot (or host file), and the operations
    // done on it since: state_ is base_ with records_ replayed.
    FakeState base_;
    std::vector<journal::Record> records_;
    // The host file's text state_ was read from while there is no snapshot:
    // loadState() parses only other text.
    std::string loadedText_;
    // The snapshot state_ is built on ("": the host file), and the journal
    // offset up to which this instance has replayed it.
    std::string loadedId_;
    uint64_t journalEnd_ = 0;
    bool journalOk_ = false;
    bool loadedValid_ = false;
    // The record of the operation in progress (transact() saves it).
    std::optional<journal::Record> pending_;
    bool replaying_ = false;
    bool staleTempsRemoved_ = false;
    std::string hostFile_;
    std::string stateDir_;
    std::vector<FaultRule> faults_;
    std::vector<Prerequisites> prepared_;
    bool discardState_ = false;
};

} // namespace ibnm::platform

struct _IbnmHost;

namespace ibnm {

// The simulated host's platform (operation counter, fault injection), or
// nullptr when `host` is not simulated (libcore/simulator/ibnm-simulator.cpp).
platform::FakePlatform *hostFakePlatform(struct _IbnmHost *host);

} // namespace ibnm
