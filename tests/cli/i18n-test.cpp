// SPDX-License-Identifier: LGPL-2.1-or-later
// The CLI's messages in German: a catalogue built in the test from
// po/de.po, installed in a temporary locale directory the binary is pointed at.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <gtest/gtest.h>

using ibnm::test::Result;
using ibnm::test::TempDir;

namespace {

std::string findProgram(const char *name)
{
    char *p = g_find_program_in_path(name);
    std::string s = p ? p : "";
    g_free(p);
    return s;
}

TEST(CliI18n, GermanErrorMessage)
{
    std::string msgfmt = findProgram("msgfmt");
    if (msgfmt.empty())
        GTEST_SKIP() << "msgfmt is needed to build the test catalogue";
    if (!g_file_test("/usr/lib/locale/C.utf8", G_FILE_TEST_EXISTS) &&
        !g_file_test("/usr/lib/locale/C.UTF-8", G_FILE_TEST_EXISTS))
        GTEST_SKIP() << "no C.UTF-8 locale";
    TempDir tmp;
    // po/de.po is the source of the German catalogue.
    std::string po = IBNM_TOP_SRCDIR "/po/de.po";
    tmp.mkdir("locale/de/LC_MESSAGES");
    Result fmt = ibnm::test::spawn({msgfmt, "-c", "-o", tmp / "locale/de/LC_MESSAGES/" GETTEXT_PACKAGE ".mo", po});
    ASSERT_EQ(fmt.status, 0) << fmt.err;

    Result r = ibnm::test::spawn({ibnm::test::cliPath(), "frobnicate"},
                              {{"LC_ALL", "C.UTF-8"}, {"LANGUAGE", "de"}, {"IBNM_LOCALEDIR", tmp / "locale"}});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("Fehler: Objekt „frobnicate“ unbekannt."), std::string::npos) << r.err;
}

} // namespace
