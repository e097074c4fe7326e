// SPDX-License-Identifier: LGPL-2.1-or-later
// Apply: brings every profile of KEYFILE_DIR up on the simulated host
// HOSTFILE with one ibnm_apply_up(), then does it again. Prints, for each
// apply, the platform operations the report counts, the steps by action and
// state, and the time.
//   apply-bench HOSTFILE STATE_DIR KEYFILE_DIR   state persisted in STATE_DIR
//                                                (reset first), as the CLI does
//   apply-bench HOSTFILE - KEYFILE_DIR           the same host in memory
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/simulator/ibnm-simulator.h"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/simulator/fake-platform.hpp"
#include "libcore/support/raii.hpp"
#include "settings/ibnm-settings.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <sys/resource.h>

namespace {

int apply(IbnmHost *host, GPtrArray *profiles, const char *label)
{
    ibnm::GErrorPtr error;
    gint64 t0 = g_get_monotonic_time();
    IbnmApplyReport *report = ibnm_apply_up(host, profiles, profiles, IBNM_APPLY_FLAGS_NONE);
    gint64 t1 = g_get_monotonic_time();
    ibnm::GObjectPtr<IbnmApplyReport> owned = ibnm::GObjectPtr<IbnmApplyReport>::adopt(report);
    gboolean ok = ibnm_apply_report_propagate_error(report, ibnm::outPtr(error));
    if (!ok) {
        fprintf(stderr, "%s: %s\n", label, error ? error->message : "failed");
        return 1;
    }
    std::vector<std::string> order;
    std::map<std::string, unsigned> counts;
    GPtrArray *steps = ibnm_apply_report_get_steps(report);
    for (guint i = 0; i < steps->len; i++) {
        auto *s = static_cast<IbnmStep *>(g_ptr_array_index(steps, i));
        std::string key = std::string(ibnm_step_action_to_string(ibnm_step_get_action(s))) + "/" + std::to_string(ibnm_step_get_state(s));
        if (counts[key]++ == 0)
            order.push_back(key);
    }
    printf("%s: operations=%u steps=%u seconds=%.6f steps_by_action=", label,
           ibnm_apply_report_get_operations(report), steps->len, static_cast<double>(t1 - t0) / 1e6);
    for (size_t i = 0; i < order.size(); i++)
        printf("%s%s:%u", i ? "," : "", order[i].c_str(), counts[order[i]]);
    printf("\n");
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s HOSTFILE STATE_DIR|- KEYFILE_DIR\n", argv[0]);
        return 2;
    }
    ibnm::GErrorPtr error;
    IbnmHost *raw = nullptr;
    if (strcmp(argv[2], "-") == 0) {
        auto fake = ibnm::platform::FakePlatform::open(argv[1], "");
        if (!fake) {
            fprintf(stderr, "host: %s\n", fake.error().message().c_str());
            return 1;
        }
        raw = ibnm::hostNewFromPlatform(std::move(fake).value(), IBNM_HOST_KIND_SIMULATED, argv[1]);
    } else {
        raw = ibnm_simulator_new_host(argv[1], argv[2], ibnm::outPtr(error));
        if (raw && !ibnm_simulator_reset(raw, ibnm::outPtr(error))) {
            g_object_unref(raw);
            raw = nullptr;
        }
    }
    if (!raw) {
        fprintf(stderr, "host: %s\n", error ? error->message : "failed");
        return 1;
    }
    auto host = ibnm::GObjectPtr<IbnmHost>::adopt(raw);
    auto settings = ibnm::GObjectPtr<IbnmSettings>::adopt(ibnm_settings_new_keyfile(argv[3]));
    if (!ibnm_settings_load(settings.get(), ibnm::outPtr(error))) {
        fprintf(stderr, "load: %s\n", error->message);
        return 1;
    }
    GPtrArray *profiles = ibnm_settings_get_connections(settings.get());
    printf("profiles=%u\n", profiles->len);
    int rc = apply(host.get(), profiles, "first");
    if (rc == 0)
        rc = apply(host.get(), profiles, "second");
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("maxrss_kb=%ld\n", ru.ru_maxrss);
    g_ptr_array_unref(profiles);
    return rc;
}
