// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm apply`'s documents (libcore/state): the input is a desired state in
// nmstate's schema, YAML or JSON, planned against a few stored profiles.
// Invariants: a document that parses is a mapping whose tree writes as JSON
// that parses back to the same tree, and as YAML that parses again; every
// profile the plan would store writes a keyfile that reads back.
#include "config.h"

#include "libcore/ibnm-profile.h"
#include "libcore/state/document.hpp"
#include "libcore/state/nmstate.hpp"
#include "settings/keyfile-codec.hpp"
#include "tests/fuzz/fuzz-util.hpp"

namespace {

using namespace ibnm;

// The stored profiles a document is planned against: an IPoIB port, a
// P_Key child, a bond with an IPoIB port (made once).
const std::vector<NMConnection *> &storedProfiles()
{
    static const std::vector<NMConnection *> stored = [] {
        std::vector<NMConnection *> v;
        const std::vector<std::vector<const char *>> argss = {
            {"type", "infiniband", "con-name", "mlx4_ib0", "ifname", "mlx4_ib0", "transport-mode", "connected",
             "mtu", "65520", "ipv4.method", "disabled", nullptr},
            {"type", "infiniband", "con-name", "mlx4_ib0.8002", "ifname", "mlx4_ib0.8002", "parent", "mlx4_ib0",
             "p-key", "0x8002", "ipv4.method", "disabled", nullptr},
            {"type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options", "mode=active-backup",
             "ipv4.method", "disabled", nullptr},
            {"type", "infiniband", "con-name", "mlx5_ib0", "ifname", "mlx5_ib0", "connection.master", "bond0",
             "connection.slave-type", "bond", nullptr},
        };
        for (const auto &args : argss) {
            IbnmProfile *p = ibnm_profile_new_from_args(args.data(), nullptr);
            if (p)
                v.push_back(NM_CONNECTION(g_object_ref(ibnm_profile_get_connection(p))));
            g_clear_object(&p);
        }
        return v;
    }();
    return stored;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    auto root = state::parseDocument(fuzz::asText(data, size), "fuzz.yml");
    if (!root.ok())
        return 0;
    IBNM_FUZZ_ASSERT(JSON_NODE_HOLDS_OBJECT(root->get()), "a document that parses is a mapping");
    std::string json = state::toJson(root->get());
    auto again = state::parseDocument(json, "fuzz.json");
    IBNM_FUZZ_ASSERT(again.ok(), "the tree as JSON parses back: " + (again.ok() ? "" : again.error().toString()));
    IBNM_FUZZ_ASSERT(json_node_equal(root->get(), again->get()), "the tree as JSON parses back to the same tree");
    auto yaml = state::toYaml(root->get());
    IBNM_FUZZ_ASSERT(yaml.ok(), "the tree writes as YAML");
    auto fromYaml = state::parseDocument(*yaml, "fuzz-again.yml");
    IBNM_FUZZ_ASSERT(fromYaml.ok(), "the tree as YAML parses again: " + (fromYaml.ok() ? "" : fromYaml.error().toString()));
    auto changes = state::plan(root->get(), storedProfiles(), "fuzz.yml");
    if (!changes.ok())
        return 0;
    for (const auto &ch : *changes) {
        if (!ch.desired)
            continue;
        auto text = settings::keyfileToData(ch.desired.get());
        IBNM_FUZZ_ASSERT(text.ok(), "a planned profile writes a keyfile: " + (text.ok() ? "" : text.error().toString()));
        auto back = settings::keyfileFromData(*text, "/fuzz.nmconnection");
        IBNM_FUZZ_ASSERT(back.ok(), "a planned profile's keyfile reads back: " + (back.ok() ? "" : back.error().toString()));
    }
    return 0;
}
