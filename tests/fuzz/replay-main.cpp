// SPDX-License-Identifier: LGPL-2.1-or-later
// The main() of a fuzz harness in a plain build: runs every file named on
// the command line, or found in a directory named there, once through
// LLVMFuzzerTestOneInput() and says how many it ran. Arguments starting with
// '-' are libFuzzer's options and are ignored, so one command line replays a
// corpus in both builds.
#include "config.h"

#include "tests/fuzz/fuzz-util.hpp"

#include <algorithm>

namespace {

bool runFile(const std::string &path)
{
    char *data = nullptr;
    gsize len = 0;
    GError *err = nullptr;
    if (!g_file_get_contents(path.c_str(), &data, &len, &err)) {
        std::fprintf(stderr, "%s\n", err->message);
        g_error_free(err);
        return false;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(data), len);
    g_free(data);
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    unsigned runs = 0;
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        if (!arg.empty() && arg[0] == '-')
            continue;
        std::vector<std::string> files;
        if (g_file_test(arg.c_str(), G_FILE_TEST_IS_DIR)) {
            GDir *d = g_dir_open(arg.c_str(), 0, nullptr);
            while (const char *n = d ? g_dir_read_name(d) : nullptr)
                if (n[0] != '.' && g_strcmp0(n, "README") != 0)
                    files.push_back(arg + "/" + n);
            if (d)
                g_dir_close(d);
            std::sort(files.begin(), files.end());
        } else {
            files.push_back(arg);
        }
        for (const auto &f : files) {
            if (!runFile(f))
                return 1;
            runs++;
        }
    }
    std::printf("%s: %u inputs replayed\n", argv[0], runs);
    return 0;
}
