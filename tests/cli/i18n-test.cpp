// SPDX-License-Identifier: LGPL-2.1-or-later
// The CLI's messages in German: a catalogue built in the test from
// tools/translations/de/cli.py (the lead merges it into po/de.po), installed
// in a temporary locale directory the binary is pointed at.
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
    std::string python = findProgram("python3"), msgfmt = findProgram("msgfmt");
    if (python.empty() || msgfmt.empty())
        GTEST_SKIP() << "python3 and msgfmt are needed to build the test catalogue";
    if (!g_file_test("/usr/lib/locale/C.utf8", G_FILE_TEST_EXISTS) &&
        !g_file_test("/usr/lib/locale/C.UTF-8", G_FILE_TEST_EXISTS))
        GTEST_SKIP() << "no C.UTF-8 locale";
    TempDir tmp;
    std::string po = tmp / "de.po";
    // tools/translations/de/cli.py is a dict T = {msgid: msgstr}: write a po file.
    std::string script = "import sys\n"
                         "ns = {}\n"
                         "exec(open(sys.argv[1]).read(), ns)\n"
                         "def q(s): return '\"' + s.replace('\\\\', '\\\\\\\\').replace('\"', '\\\\\"')"
                         ".replace('\\n', '\\\\n') + '\"'\n"
                         "out = open(sys.argv[2], 'w')\n"
                         "out.write('msgid \"\"\\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\\\n\"\\n\\n')\n"
                         "for k, v in ns['T'].items():\n"
                         "    out.write('msgid ' + q(k) + '\\nmsgstr ' + q(v) + '\\n\\n')\n";
    tmp.write("topo.py", script);
    Result conv = ibnm::test::spawn({python, tmp / "topo.py", IBNM_TOP_SRCDIR "/tools/translations/de/cli.py", po});
    ASSERT_EQ(conv.status, 0) << conv.err;
    tmp.mkdir("locale/de/LC_MESSAGES");
    Result fmt = ibnm::test::spawn({msgfmt, "-c", "-o", tmp / "locale/de/LC_MESSAGES/" GETTEXT_PACKAGE ".mo", po});
    ASSERT_EQ(fmt.status, 0) << fmt.err;

    Result r = ibnm::test::spawn({ibnm::test::cliPath(), "frobnicate"},
                              {{"LC_ALL", "C.UTF-8"}, {"LANGUAGE", "de"}, {"IBNM_LOCALEDIR", tmp / "locale"}});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("Fehler: Objekt „frobnicate“ unbekannt."), std::string::npos) << r.err;
}

} // namespace
