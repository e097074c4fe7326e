// SPDX-License-Identifier: LGPL-2.1-or-later
// The sysfs reader (libcore/platform/linux/sysfs.cpp) on a dump built from the
// input, one entry per line:
//   PATH=CONTENTS    a file (\n in CONTENTS is a newline)
//   PATH->TARGET     a symbolic link
// PATH is relative; entries with ".." or an empty component are skipped.
// The dump lives in a scratch directory; a secret file beside it must never
// appear in what the reader returns. Its contents are a token drawn at random
// for each input, so that no input can write them into the dump itself.
#include "config.h"

#include "libcore/platform/linux/sysfs.hpp"
#include "libcore/support/strings.hpp"
#include "tests/fuzz/fuzz-util.hpp"

#include <unistd.h>

namespace {

bool safePath(const std::string &p)
{
    if (p.empty() || p[0] == '/' || p.size() > 200)
        return false;
    for (const auto &c : ibnm::fuzz::split(p, "/"))
        if (c.empty() || c == "." || c == "..")
            return false;
    return true;
}

bool contains(const std::string &s, const std::string &needle)
{
    return s.find(needle) != std::string::npos;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace ibnm;
    fuzz::ScratchDir scratch;
    std::string root = scratch.path() + "/sys";
    g_mkdir(root.c_str(), 0755);
    std::string secret = scratch.path() + "/secret";
    const std::string token = strprintf("OUTSIDE-%08x%08x", g_random_int(), g_random_int());
    g_file_set_contents(secret.c_str(), (token + "\n").c_str(), -1, nullptr);
    auto lines = fuzz::split(fuzz::asText(data, size), "\n");
    for (size_t i = 0; i < lines.size() && i < 400; i++) {
        const std::string &l = lines[i];
        size_t arrow = l.find("->"), eq = l.find('=');
        bool link = arrow != std::string::npos && (eq == std::string::npos || arrow < eq);
        size_t cut = link ? arrow : eq;
        if (cut == std::string::npos)
            continue;
        std::string path = l.substr(0, cut);
        if (!safePath(path))
            continue;
        std::string full = root + "/" + path;
        char *parent = g_path_get_dirname(full.c_str());
        g_mkdir_with_parents(parent, 0755);
        g_free(parent);
        if (link) {
            std::string target = l.substr(cut + 2);
            if (target == "SECRET")
                target = secret;
            (void)symlink(target.c_str(), full.c_str());
        } else {
            std::string contents;
            std::string v = l.substr(cut + 1);
            for (size_t k = 0; k < v.size(); k++) {
                if (v[k] == '\\' && k + 1 < v.size() && v[k + 1] == 'n') {
                    contents += '\n';
                    k++;
                } else {
                    contents += v[k];
                }
            }
            g_file_set_contents(full.c_str(), contents.data(), gssize(contents.size()), nullptr);
        }
    }
    auto host = platform::sysfs::readHost({root, root + "/kernel/config"});
    if (host.ok()) {
        for (const auto &d : host->devices) {
            IBNM_FUZZ_ASSERT(!contains(d.fwVersion, token) && !contains(d.boardId, token) &&
                                 !contains(d.hcaType, token) && !contains(d.nodeGuid, token),
                             "a file outside the dump was read");
            for (const auto &p : d.ports)
                IBNM_FUZZ_ASSERT(p.number >= 1 && p.number <= 255, "port numbers are in range");
        }
        for (const auto &n : host->netdevs)
            IBNM_FUZZ_ASSERT(!contains(n.address, token), "a file outside the dump was read");
    }
    (void)platform::sysfs::readGidTables(root, true);
    return 0;
}
