// SPDX-License-Identifier: LGPL-2.1-or-later
// The CLI's messages in German: a catalogue built in the test from
// po/de.po, installed in a temporary locale directory the binary is pointed at.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

using ibnm::test::Result;
using ibnm::test::TempDir;

namespace {

// Each test: the German catalogue built from po/de.po (its source) into a
// temporary locale directory, and the environment that points the binary
// at it; skipped without msgfmt or the C.UTF-8 locale.
class CliI18n : public ::testing::Test {
protected:
    void SetUp() override
    {
        std::string msgfmt = ibnm::test::findProgram("msgfmt");
        if (msgfmt.empty())
            GTEST_SKIP() << "msgfmt is needed to build the test catalogue";
        if (!g_file_test("/usr/lib/locale/C.utf8", G_FILE_TEST_EXISTS) &&
            !g_file_test("/usr/lib/locale/C.UTF-8", G_FILE_TEST_EXISTS))
            GTEST_SKIP() << "no C.UTF-8 locale";
        tmp_.mkdir("locale/de/LC_MESSAGES");
        Result fmt = ibnm::test::spawn({msgfmt, "-c", "-o", tmp_ / "locale/de/LC_MESSAGES/" GETTEXT_PACKAGE ".mo",
                                        IBNM_TOP_SRCDIR "/po/de.po"});
        ASSERT_EQ(fmt.status, 0) << fmt.err;
    }

    std::map<std::string, std::string> german() const
    {
        return {{"LC_ALL", "C.UTF-8"}, {"LANGUAGE", "de"}, {"IBNM_LOCALEDIR", tmp_ / "locale"}};
    }

    TempDir tmp_;
};

TEST_F(CliI18n, GermanErrorMessage)
{
    Result r = ibnm::test::spawn({ibnm::test::cliPath(), "frobnicate"}, german());
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "Fehler: Argument „frobnicate“ nicht verstanden. Versuchen Sie stattdessen --help.\n");
    r = ibnm::test::spawn({ibnm::test::cliPath(), "conection"}, german());
    EXPECT_EQ(r.err, "Fehler: Argument „conection“ nicht verstanden. Meinten Sie „connection“? Versuchen Sie stattdessen "
                     "--help.\n");
}

// A message printed after the full CLI and libibnm.so were loaded (the
// simulated host runs there) is translated too: loading the library does
// not bind the domain back to the installed catalogues.
TEST_F(CliI18n, GermanAfterTheLibraryIsLoaded)
{
    if (!g_file_test("/dev/full", G_FILE_TEST_EXISTS))
        GTEST_SKIP() << "/dev/full is absent";
    std::string line = "'" + ibnm::test::cliPath() + "' --simulate '" + ibnm::test::hostFile("mlx4-dual-port.host") +
                       "' device status >/dev/full";
    auto env = german();
    env["IBNM_SIMULATE_STATE"] = tmp_ / "state";
    Result r = ibnm::test::spawn({"/bin/sh", "-c", line}, env);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("Fehler: die Ausgabe konnte nicht geschrieben werden: "), std::string::npos) << r.err;
}

} // namespace
