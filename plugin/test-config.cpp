// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "plugin/test-config.hpp"

#include "libcore/simulator/loader.hpp"

#include <cstring>

namespace ibnm::plugin {

namespace {

bool readTestConfig(const char *path, TestConfig &config, GError **error)
{
    GKeyFile *kf = g_key_file_new();
    bool ok = g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, error);
    if (ok) {
        auto str = [&](const char *key, std::string &out) {
            if (char *v = g_key_file_get_string(kf, "test", key, nullptr)) {
                out = v;
                g_free(v);
            }
        };
        str("simulate", config.simulate);
        str("simulate-state", config.simulateState);
        str("fake-fail", config.fakeFail);
        str("log", config.log);
        if (g_key_file_has_key(kf, "test", "timeout-ms", nullptr))
            config.timeoutMs = unsigned(g_key_file_get_uint64(kf, "test", "timeout-ms", nullptr));
    }
    g_key_file_unref(kf);
    return ok;
}

} // namespace

bool takeTestConfig(int &argc, char **&argv, TestConfig &config, GError **error)
{
    if (argc < 3 || std::strcmp(argv[1], "--test-config") != 0)
        return true;
    if (!readTestConfig(argv[2], config, error))
        return false;
    argc -= 2;
    argv += 2;
    argv[0] = argv[-2];
    return true;
}

IbnmHost *hostFor(const TestConfig &config, GError **error)
{
    // The simulator is loaded only when a test configuration names a
    // simulated host; NetworkManager's runs never map it.
    if (config.simulate.empty())
        return ibnm_host_new_system();
    const ibnm::simulator::Api *sim = ibnm::simulator::load(error);
    if (sim == nullptr)
        return nullptr;
    IbnmHost *host = sim->newHost(config.simulate.c_str(),
                                  config.simulateState.empty() ? nullptr : config.simulateState.c_str(), error);
    if (host && !config.fakeFail.empty() && !sim->addFaults(host, config.fakeFail.c_str(), error))
        g_clear_object(&host);
    return host;
}

HostSetup setupFor(const TestConfig &config)
{
    HostSetup setup;
    setup.newHost = [](const void *data, GError **error) {
        return hostFor(*static_cast<const TestConfig *>(data), error);
    };
    setup.data = &config;
    setup.log = config.log;
    setup.timeoutMs = config.timeoutMs;
    return setup;
}

} // namespace ibnm::plugin
