// SPDX-License-Identifier: LGPL-2.1-or-later
// Library messages go through the "ibnm" text domain: with the German
// catalogue built from po/de.po, an internal error reads in German.
#include "config.h"

#include "libcore/support/boundary.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <clocale>
#include <libintl.h>
#include <stdexcept>

namespace {

std::string findCatalogue(const char *lang)
{
    for (const char *top : {IBNM_TOP_BUILDDIR, IBNM_TOP_SRCDIR}) {
        std::string p = std::string(top) + "/po/" + lang + ".gmo";
        if (g_file_test(p.c_str(), G_FILE_TEST_EXISTS))
            return p;
    }
    return {};
}

class I18n : public ::testing::Test {
protected:
    void TearDown() override
    {
        g_unsetenv("LANGUAGE");
        bindtextdomain(GETTEXT_PACKAGE, ibnm::bindTextDomain());
        std::setlocale(LC_ALL, "C.UTF-8");
    }

    // Installs po/<lang>.gmo as <tmp>/<lang>/LC_MESSAGES/ibnm.mo and binds
    // the domain there.
    void useCatalogue(const char *lang)
    {
        std::string gmo = findCatalogue(lang);
        ASSERT_FALSE(gmo.empty()) << "po/" << lang << ".gmo was not built";
        ibnm::GCharPtr contents;
        gsize len = 0;
        ASSERT_TRUE(g_file_get_contents(gmo.c_str(), ibnm::outPtr(contents), &len, nullptr));
        dir_.write(std::string(lang) + "/LC_MESSAGES/" GETTEXT_PACKAGE ".mo", std::string(contents.get(), len));
        bindtextdomain(GETTEXT_PACKAGE, dir_.path().c_str());
        g_setenv("LANGUAGE", lang, TRUE);
        std::setlocale(LC_ALL, "C.UTF-8");
    }

    std::string internalErrorMessage()
    {
        ibnm::GErrorPtr err;
        ibnm::guard(ibnm::outPtr(err), []() -> ibnm::Status { throw std::runtime_error("kaboom"); });
        return err ? err->message : "";
    }

    ibnm::test::TempDir dir_;
};

} // namespace

TEST_F(I18n, DomainIsBoundToLocaleDir)
{
    EXPECT_STREQ(ibnm::bindTextDomain(), LOCALEDIR);
    EXPECT_STREQ(bind_textdomain_codeset(GETTEXT_PACKAGE, nullptr), "UTF-8");
}

TEST_F(I18n, UntranslatedIsEnglish)
{
    EXPECT_EQ(internalErrorMessage(), "Internal error: kaboom");
}

TEST_F(I18n, GermanCatalogueTranslatesLibraryMessages)
{
    useCatalogue("de");
    EXPECT_EQ(internalErrorMessage(), "Interner Fehler: kaboom");
}

TEST_F(I18n, FrenchCatalogueTranslatesLibraryMessages)
{
    useCatalogue("fr");
    EXPECT_EQ(internalErrorMessage(), "Erreur interne : kaboom");
}
