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

// A message printed after the full CLI and libibnm.so were loaded (the
// simulated host runs there) is translated too: loading the library does
// not bind the domain back to the installed catalogues.
TEST(CliI18n, GermanAfterTheLibraryIsLoaded)
{
    std::string msgfmt = findProgram("msgfmt");
    if (msgfmt.empty())
        GTEST_SKIP() << "msgfmt is needed to build the test catalogue";
    if (!g_file_test("/usr/lib/locale/C.utf8", G_FILE_TEST_EXISTS) &&
        !g_file_test("/usr/lib/locale/C.UTF-8", G_FILE_TEST_EXISTS))
        GTEST_SKIP() << "no C.UTF-8 locale";
    if (!g_file_test("/dev/full", G_FILE_TEST_EXISTS))
        GTEST_SKIP() << "/dev/full is absent";
    TempDir tmp;
    tmp.mkdir("locale/de/LC_MESSAGES");
    Result fmt = ibnm::test::spawn({msgfmt, "-c", "-o", tmp / "locale/de/LC_MESSAGES/" GETTEXT_PACKAGE ".mo",
                                    IBNM_TOP_SRCDIR "/po/de.po"});
    ASSERT_EQ(fmt.status, 0) << fmt.err;
    std::string line = "'" + ibnm::test::cliPath() + "' --simulate '" + ibnm::test::hostFile("mlx4-dual-port.host") +
                       "' device status >/dev/full";
    Result r = ibnm::test::spawn({"/bin/sh", "-c", line},
                                 {{"LC_ALL", "C.UTF-8"}, {"LANGUAGE", "de"}, {"IBNM_LOCALEDIR", tmp / "locale"},
                                  {"IBNM_SIMULATE_STATE", tmp / "state"}});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("Fehler: die Ausgabe konnte nicht geschrieben werden: "), std::string::npos) << r.err;
}

} // namespace
