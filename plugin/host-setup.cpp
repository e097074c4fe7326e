// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "plugin/host-setup.hpp"

#include "libcore/support/raii.hpp"

namespace ibnm::plugin {

IbnmHost *systemHost(const void *, GError **)
{
    return ibnm_host_new_system();
}

LogCopy::LogCopy(const HostSetup &setup, FILE *&target) : target_(target)
{
    if (!setup.log.empty())
        target_ = std::fopen(setup.log.c_str(), "ae");
}

LogCopy::~LogCopy()
{
    if (target_)
        std::fclose(target_);
    target_ = nullptr;
}

void dropHostEnvironment()
{
    for (const char *name : {"IBNM_SIMULATE", "IBNM_SIMULATE_STATE", "IBNM_SYSFS_ROOT", "IBNM_FAKE_FAIL"})
        g_unsetenv(name);
}

std::string escapeLogText(const char *text)
{
    // g_strescape()'s exceptions: every byte from 0x80 (UTF-8 text stays)
    // and the double quote.
    static const char *const keep =
        "\"\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f\x90\x91\x92\x93\x94\x95\x96\x97\x98\x99"
        "\x9a\x9b\x9c\x9d\x9e\x9f\xa0\xa1\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xab\xac\xad\xae\xaf\xb0\xb1\xb2\xb3\xb4"
        "\xb5\xb6\xb7\xb8\xb9\xba\xbb\xbc\xbd\xbe\xbf\xc0\xc1\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf"
        "\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf\xe0\xe1\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea"
        "\xeb\xec\xed\xee\xef\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff";
    return GCharPtr(g_strescape(text, keep)).get();
}

} // namespace ibnm::plugin
