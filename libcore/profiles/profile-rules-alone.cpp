// SPDX-License-Identifier: LGPL-2.1-or-later
// Rules 1 and 5: one profile by itself, whatever the host: NetworkManager's
// verify(), and ibnm's [user] options that the kernel refuses or ignores.
#include "config.h"

#include "libcore/profiles/profile-rules-private.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/profiles/nmcli-args.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/profiles/user-keys.hpp"
#include "libcore/model/netdev.hpp"
#include "libcore/model/rdma.hpp"

namespace ibnm::rules {

namespace {

// Rule 5: ibnm's [user] options that the kernel refuses together whatever
// the host, so that activation is bound to fail and roll back. One row a
// refusal: the option the message names and when it applies.
struct OptionConflict {
    const char *property;
    bool (*applies)(const userkeys::Options &);
    const char *message; // N_(): make() prefixes the property
    const char *hint;    // N_()
};

const OptionConflict kOptionConflicts[] = {
    // rxe's ports have RoCE v2 GIDs only: the kernel refuses the RDMA-CM
    // default mode "IB/RoCE v1" with EINVAL (tests/kernel:
    // KernelRefusalOfRoceV1RollsBackTheLink).
    {"rdma.roce-mode",
     [](const userkeys::Options &o) {
         return o.linkType == model::SoftLinkType::Rxe && o.roceMode &&
                !model::roceModeSupported(o.linkType, model::LinkLayer::Ethernet, *o.roceMode);
     },
     N_("an rxe (Soft-RoCE) link has RoCE v2 only; the kernel refuses v1 (IB/RoCE v1) at "
        "activation"),
     N_("Set rdma.roce-mode v2, or remove it (rxe uses RoCE v2).")},
    // siw is iWARP: its GIDs are "IB/RoCE v1"-typed MAC GIDs and the kernel
    // refuses the default mode "RoCE v2" with EINVAL (platform contract:
    // SiwRefusesRoceV2, on Debian's kernel in the kernel lab).
    {"rdma.roce-mode",
     [](const userkeys::Options &o) {
         return o.linkType == model::SoftLinkType::Siw && o.roceMode &&
                !model::roceModeSupported(o.linkType, model::LinkLayer::Ethernet, *o.roceMode);
     },
     N_("a siw (Soft-iWARP) link is iWARP, not RoCE; the kernel refuses RoCE v2 at activation"),
     N_("Remove rdma.roce-mode: RoCE modes do not apply to iWARP.")},
};

} // namespace

std::vector<Finding> checkNetworkManager(NMConnection *profile)
{
    auto st = nmcli::verify(profile);
    if (st)
        return {};
    return {makeWhole(profile, st.error().property(), IBNM_SEVERITY_ERROR, st.error().toString())};
}

std::vector<Finding> checkOptions(NMConnection *profile)
{
    std::vector<Finding> out;
    // A value that does not parse is refused where the profile is read.
    auto options = userkeys::parse(profile);
    if (!options)
        return out;
    for (const auto &c : kOptionConflicts)
        if (c.applies(*options))
            out.push_back(make(profile, c.property, IBNM_SEVERITY_ERROR, _(c.message), _(c.hint)));
    // Options that would be silently ignored are refused, naming the key:
    // umcast is an IPoIB interface's (/sys/class/net/<if>/umcast), and a
    // link name names the link rdma.link-type creates.
    if (options->umcast && typeOf(profile) != NM_SETTING_INFINIBAND_SETTING_NAME)
        out.push_back(make(profile, "ipoib.umcast", IBNM_SEVERITY_ERROR,
                           strprintf(_("only an infiniband profile's interface has IPoIB multicast; "
                                       "this is a %s profile"),
                                     typeOf(profile).c_str()),
                           _("Remove ipoib.umcast, or set it on the profile of the IPoIB interface.")));
    if (options->linkName && !options->linkType)
        out.push_back(make(profile, "rdma.link-name", IBNM_SEVERITY_ERROR,
                           _("names the soft RDMA link rdma.link-type creates; without "
                             "rdma.link-type there is no link to name"),
                           _("Add rdma.link-type rxe or siw, or remove rdma.link-name.")));
    // NVIDIA's RoCE page: with RoCE disabled "there will be no GID tables"
    // (model::hasRoceEnableFile).
    if (options->roceEnable == false)
        out.push_back(make(profile, std::string(userkeys::kRoceEnable), IBNM_SEVERITY_WARNING,
                           _("disabling RoCE drops the RoCE GIDs of every port of the device's PCI "
                             "function; RDMA over Ethernet stops there, for every application"),
                           _("Disable RoCE only on functions that carry Ethernet traffic alone.")));
    return out;
}

std::vector<Finding> checkLinkMtu(NMConnection *profile)
{
    // The MTU ibnm sets on the profile's own interface: an Ethernet NIC's
    // (not a bond port's, which takes its bond's) or a bond's.
    std::string type = typeOf(profile);
    std::string property;
    guint32 mtu = 0;
    if (type == NM_SETTING_BOND_SETTING_NAME) {
        if (auto *ib = nm_connection_get_setting_infiniband(profile); ib && nm_setting_infiniband_get_mtu(ib)) {
            property = "infiniband.mtu";
            mtu = nm_setting_infiniband_get_mtu(ib);
        }
    } else if (type != NM_SETTING_WIRED_SETTING_NAME || !masterOf(profile).empty()) {
        return {};
    }
    if (mtu == 0)
        if (auto *wired = nm_connection_get_setting_wired(profile); wired && nm_setting_wired_get_mtu(wired)) {
            property = "802-3-ethernet.mtu";
            mtu = nm_setting_wired_get_mtu(wired);
        }
    if (mtu == 0)
        return {};
    // NetworkManager stores the profile and, activating it, leaves the MTU
    // as it was (FACTS.md); ibnm refuses it, so that check, dry run and up
    // agree (docs/differences-from-nmcli.md).
    std::optional<unsigned> max;
    if (type == NM_SETTING_BOND_SETTING_NAME)
        max = model::kBondMaxMtu;
    Status st = model::linkMtuAccepted(ifnameOf(profile), mtu, max);
    if (st.ok())
        return {};
    std::string hint = max ? strprintf(_("Set %s between %u and %u, or 0 for the automatic MTU."), property.c_str(),
                                       model::kEthMinMtu, *max)
                           : strprintf(_("Set %s to %u or more, or 0 for the automatic MTU."), property.c_str(),
                                       model::kEthMinMtu);
    return {make(profile, property, IBNM_SEVERITY_ERROR, st.error().message(), hint)};
}

} // namespace ibnm::rules
