// SPDX-License-Identifier: LGPL-2.1-or-later
// Fault injection: IBNM_FAKE_FAIL's rules ("op=addSoftLink,nth=1,errno=EBUSY",
// fake-platform.hpp), the operation names they match, and the hook every
// counted operation meets first (FakePlatform::injectFault()).
#include "config.h"

#include "libcore/simulator/fake-platform-private.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>
#include <cerrno>

namespace ibnm::platform {


using namespace fake;

namespace {

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
        "setTrafficClass",  "clearTrafficClass", "setTtl",        "prepare",          "setTrafficClassRule",
        "setRoceEnabled",   "setLinkDns",       "revertLinkDns",
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

void FakePlatform::addFaults(std::vector<FaultRule> rules)
{
    for (auto &r : rules)
        faults_.push_back(std::move(r));
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

} // namespace ibnm::platform
