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
// operation takes an flock on <dir>/lock, rereads <dir>/state (a host
// description too), applies itself and writes the state back atomically
// (a temporary file renamed over it) before it returns. The state is parsed
// again only when the file's bytes differ from those this instance last
// read or wrote, i.e. when another instance or process changed it.
// reset() deletes the state, so the next read starts from the host file.
//
// Fault injection: failNext()/failEvery() or IBNM_FAKE_FAIL
// ("op=addSoftLink,nth=1,errno=EBUSY", rules separated by ';') make a
// mutating operation fail with the chosen errno and change nothing.
// operationCount() counts the mutating calls (successful or not).
#pragma once

#include "libcore/internal/host-model.hpp"
#include "libcore/internal/result.hpp"
#include "libcore/platform/platform.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ibnm::platform {

struct FakeHostFile {
    std::string contents;
    unsigned mode = 0644;
};

// Everything the simulated host is. Values the kernel derives (RoCE GIDs,
// soft devices' port state, bond port lists) are recomputed by readHost().
struct FakeState {
    model::Host host;
    // Port GUID of each InfiniBand port ("mlx4_0/1" -> "0002:c903:0031:7851"):
    // its GID 0 is fe80::<guid>.
    std::map<std::string, std::string> portGuids;
    // Largest MTU a netdev takes (Ethernet NICs); absent: 65535.
    std::map<std::string, unsigned> maxMtu;
    std::map<std::string, FakeHostFile> files;
    uint64_t operations = 0;
};

// A fault rule: make the nth matching mutating call (1-based; 0: every one)
// wait delayMs, then fail with errnum (0: go on and succeed; a slow
// kernel). An empty op matches every operation.
struct FaultRule {
    std::string op;
    unsigned nth = 0;
    int errnum = EIO;
    unsigned delayMs = 0;
    unsigned seen = 0;
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
    Status setTrafficClass(const std::string &device, unsigned port, unsigned tclass) override;
    Status setTtl(const std::string &device, unsigned port, unsigned ttl) override;

    Result<std::optional<std::string>> readHostFile(const std::string &path) override;
    Status writeHostFile(const std::string &path, const std::string &contents, unsigned mode) override;
    Status removeHostFile(const std::string &path) override;

    // --- simulation controls (not kernel operations, not counted) ---

    // Adds a netdev as hardware or `ip link add ... type dummy` would (tests
    // and the contract suite's makeEthernet). Fails if the name is taken.
    Status addNetdev(model::Netdev netdev);
    // What prepare() was asked, in order (in memory only).
    const std::vector<Prerequisites> &prepared() const { return prepared_; }
    // Mutating calls made so far (persisted with the state).
    uint64_t operationCount();
    void failNext(const std::string &op, int errnum) { faults_.push_back({op, 1, errnum, 0}); }
    void failEvery(const std::string &op, int errnum) { faults_.push_back({op, 0, errnum, 0}); }
    void addFaults(std::vector<FaultRule> rules);
    void clearFaults() { faults_.clear(); }
    // Forgets everything done since the host file was loaded (deletes the
    // state file) and reloads the host file.
    Status reset();
    const std::string &stateDir() const { return stateDir_; }
    const std::string &hostFile() const { return hostFile_; }

private:
    // Runs fn on the current state: with a state directory under an flock
    // (shared to read, exclusive to change), after rereading the state file,
    // and saving it afterwards when `write`.
    template <typename Fn>
    Status transact(bool write, Fn &&fn);
    // A counted mutating operation: fault injection first, then fn.
    template <typename Fn>
    Status mutate(const char *op, const std::string &object, Fn &&fn);
    Status loadState();
    Status saveState();

    FakeState state_;
    // The file text state_ was read from or written as, and its path (the
    // state file or the host file): loadState() parses only other text.
    std::string loadedPath_;
    std::string loadedText_;
    bool loadedValid_ = false;
    std::string hostFile_;
    std::string stateDir_;
    std::vector<FaultRule> faults_;
    std::vector<Prerequisites> prepared_;
    bool discardState_ = false;
};

} // namespace ibnm::platform
