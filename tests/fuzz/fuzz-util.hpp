// SPDX-License-Identifier: LGPL-2.1-or-later
// Shared by the fuzz harnesses: each defines LLVMFuzzerTestOneInput(). Built
// with clang -fsanitize=fuzzer (./configure --enable-fuzzers, .ci/run) they
// fuzz; in a plain build replay-main.cpp runs them over their corpora under
// `make check`. An invariant the harness checks (what ibnm writes, it reads
// back) aborts, so libFuzzer saves the input as a crash.
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace ibnm::fuzz {

#define IBNM_FUZZ_ASSERT(cond, what)                                                                                   \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            std::fprintf(stderr, "fuzz invariant broken: %s (%s:%d)\n", std::string(what).c_str(), __FILE__, __LINE__); \
            std::abort();                                                                                              \
        }                                                                                                              \
    } while (0)

// Under AddressSanitizer (the libFuzzer build) an input that makes libnm
// parse JSON is skipped: libnm dlopen()s libjansson with RTLD_DEEPBIND,
// which ASan refuses by aborting. Team settings are JSON; ibnm has none.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAsan = true;
#else
inline constexpr bool kAsan = false;
#endif
#else
inline constexpr bool kAsan = false;
#endif
inline bool mayLoadJansson(std::string_view text)
{
    if (!kAsan)
        return false;
    std::string lower(text);
    for (auto &c : lower)
        c = g_ascii_tolower(c);
    return lower.find("team") != std::string::npos;
}

inline std::string_view asText(const uint8_t *data, size_t size)
{
    return std::string_view(reinterpret_cast<const char *>(data), size);
}

// `text` cut at each occurrence of `sep`.
inline std::vector<std::string> split(std::string_view text, std::string_view sep)
{
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        size_t at = text.find(sep, start);
        out.emplace_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos)
            return out;
        start = at + sep.size();
    }
}

// A temporary directory, removed with everything in it.
class ScratchDir {
public:
    ScratchDir()
    {
        char *d = g_dir_make_tmp("ibnm-fuzz-XXXXXX", nullptr);
        path_ = d ? d : "";
        g_free(d);
    }
    ~ScratchDir() { removeTree(path_); }
    ScratchDir(const ScratchDir &) = delete;
    ScratchDir &operator=(const ScratchDir &) = delete;
    const std::string &path() const { return path_; }

private:
    static void removeTree(const std::string &p)
    {
        if (p.empty())
            return;
        if (g_file_test(p.c_str(), G_FILE_TEST_IS_DIR) && !g_file_test(p.c_str(), G_FILE_TEST_IS_SYMLINK)) {
            if (GDir *d = g_dir_open(p.c_str(), 0, nullptr)) {
                while (const char *n = g_dir_read_name(d))
                    removeTree(p + "/" + n);
                g_dir_close(d);
            }
            g_rmdir(p.c_str());
        } else {
            g_unlink(p.c_str());
        }
    }
    std::string path_;
};

} // namespace ibnm::fuzz
