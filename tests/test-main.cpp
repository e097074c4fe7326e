// SPDX-License-Identifier: LGPL-2.1-or-later
// The one main of every test binary: GLib warnings and criticals (including
// failed g_return_if_fail checks) become test failures instead of lines on
// stderr that nobody reads, and a run whose every test skipped exits 77, so
// automake reports SKIP and a missing lab never looks like PASS.
#include "config.h"

#include <glib.h>
#include <gtest/gtest.h>

#include <clocale>
#include <cstring>
#include <string>

namespace {

std::string field(const GLogField *fields, gsize n, const char *key)
{
    for (gsize i = 0; i < n; i++) {
        if (std::strcmp(fields[i].key, key) == 0 && fields[i].value != nullptr) {
            if (fields[i].length < 0)
                return static_cast<const char *>(fields[i].value);
            return std::string(static_cast<const char *>(fields[i].value), fields[i].length);
        }
    }
    return {};
}

GLogWriterOutput failOnWarnings(GLogLevelFlags level, const GLogField *fields, gsize n, gpointer)
{
    if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) {
        const char *what = (level & G_LOG_LEVEL_WARNING) ? "warning" : "critical";
        ADD_FAILURE() << "GLib " << what << " [" << field(fields, n, "GLIB_DOMAIN") << "]: "
                      << field(fields, n, "MESSAGE");
        if (level & G_LOG_LEVEL_ERROR)
            return g_log_writer_default(level, fields, n, nullptr);
        return G_LOG_WRITER_HANDLED;
    }
    return g_log_writer_default(level, fields, n, nullptr);
}

} // namespace

int main(int argc, char **argv)
{
    std::setlocale(LC_ALL, "C.UTF-8");
    g_log_set_writer_func(failOnWarnings, nullptr, nullptr);
    testing::InitGoogleTest(&argc, argv);
    int rc = RUN_ALL_TESTS();
    // 77 (SKIP) when tests were to run and every one of them skipped.
    const auto &run = *testing::UnitTest::GetInstance();
    if (rc == 0 && run.test_to_run_count() > 0 && run.skipped_test_count() == run.test_to_run_count())
        return 77;
    return rc;
}
