// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm's editor page in a GTK program, as nm-connection-editor (GTK 3) and
// GNOME Settings (GTK 4) load it: libnm loads libnm-vpn-plugin-ibnm.so from
// the build tree, which opens the page module for the toolkit of this
// process (built twice from this file: editor-tests with GTK 3,
// editor-gtk4-tests with GTK 4). The fields are found by their widget
// names, the vpn.data keys. On a private Xvfb display when there is none;
// skips without Xvfb.
#include "config.h"

#include "libcore/ibnm.h"
#include "tests/test-util.hpp"

#include <NetworkManager.h>
#include <gtk/gtk.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

// glibc's gettext caches translations by locale, not by LANGUAGE: a test
// that changes LANGUAGE says so (GNU gettext manual, "Being a gettext grok").
extern "C" int _nl_msg_cat_cntr;

namespace {

GPid gXvfb = -1;
std::string gSkip;
ibnm::test::TempDir *gLocale = nullptr;

// The catalogues of po/ compiled for the test (IBNM_LOCALEDIR), before the
// plugin and libibnm bind the text domain.
void compileCatalogues()
{
    gLocale = new ibnm::test::TempDir();
    const char *msgfmt = g_getenv("MSGFMT") && *g_getenv("MSGFMT") ? g_getenv("MSGFMT") : "msgfmt";
    for (const char *lang : {"de", "fr"}) {
        gLocale->mkdir(std::string(lang) + "/LC_MESSAGES");
        std::string mo = *gLocale / (std::string(lang) + "/LC_MESSAGES/" GETTEXT_PACKAGE ".mo");
        std::string po = ibnm::test::srcPath(std::string("po/") + lang + ".po");
        const char *argv[] = {msgfmt, "-o", mo.c_str(), po.c_str(), nullptr};
        int status = -1;
        g_spawn_sync(nullptr, const_cast<char **>(argv), nullptr, G_SPAWN_SEARCH_PATH, nullptr, nullptr, nullptr,
                     nullptr, &status, nullptr);
    }
    g_setenv("IBNM_LOCALEDIR", gLocale->path().c_str(), TRUE);
}

// Whether a label of `w`'s tree shows `text`.
bool showsLabel(GtkWidget *w, const std::string &text)
{
    if (GTK_IS_LABEL(w) && text == gtk_label_get_text(GTK_LABEL(w)))
        return true;
#if GTK_CHECK_VERSION(4, 0, 0)
    for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
        if (showsLabel(c, text))
            return true;
#else
    if (GTK_IS_CONTAINER(w)) {
        GList *children = gtk_container_get_children(GTK_CONTAINER(w));
        bool found = false;
        for (GList *l = children; l && !found; l = l->next)
            found = showsLabel(GTK_WIDGET(l->data), text);
        g_list_free(children);
        return found;
    }
#endif
    return false;
}

GtkWidget *findByName(GtkWidget *w, const char *name)
{
    if (g_strcmp0(gtk_widget_get_name(w), name) == 0)
        return w;
#if GTK_CHECK_VERSION(4, 0, 0)
    for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
        if (GtkWidget *found = findByName(c, name))
            return found;
#else
    if (GTK_IS_CONTAINER(w)) {
        GList *children = gtk_container_get_children(GTK_CONTAINER(w));
        GtkWidget *found = nullptr;
        for (GList *l = children; l && !found; l = l->next)
            found = findByName(GTK_WIDGET(l->data), name);
        g_list_free(children);
        return found;
    }
#endif
    return nullptr;
}

void setText(GtkWidget *entry, const char *text)
{
#if GTK_CHECK_VERSION(4, 0, 0)
    gtk_editable_set_text(GTK_EDITABLE(entry), text);
#else
    gtk_entry_set_text(GTK_ENTRY(entry), text);
#endif
}

// The ids a combo box offers, in order.
std::vector<std::string> comboIds(GtkWidget *combo)
{
    std::vector<std::string> ids;
    GtkTreeModel *model = gtk_combo_box_get_model(GTK_COMBO_BOX(combo));
    int column = gtk_combo_box_get_id_column(GTK_COMBO_BOX(combo));
    GtkTreeIter it;
    for (gboolean ok = gtk_tree_model_get_iter_first(model, &it); ok; ok = gtk_tree_model_iter_next(model, &it)) {
        char *id = nullptr;
        gtk_tree_model_get(model, &it, column, &id, -1);
        ids.emplace_back(id ? id : "");
        g_free(id);
    }
    return ids;
}

void iterate()
{
    while (g_main_context_iteration(nullptr, FALSE))
        ;
}

class EditorPage : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        // No accessibility bridge, and never the machine's NetworkManager:
        // the page checks the settings alone then.
        g_setenv("NO_AT_BRIDGE", "1", TRUE);
        g_setenv("GTK_A11Y", "none", TRUE); // GTK 4's accessibility wants a session bus
        g_setenv("GSETTINGS_BACKEND", "memory", TRUE);
        // No OpenGL: GTK 4 draws the page with cairo. On Xvfb its GL is
        // Mesa's llvmpipe, which the tests do not need, and which
        // LeakSanitizer finds leaking 128 bytes once Mesa has unloaded it
        // (sanitizer builds, Debian 12's Mesa 22.3).
        g_setenv("GDK_DEBUG", "gl-disable", TRUE);
        g_setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/ibnm-test-bus", TRUE);
        compileCatalogues();
        if (!g_getenv("DISPLAY") || !*g_getenv("DISPLAY")) {
            gchar *xvfb = g_find_program_in_path("Xvfb");
            if (xvfb == nullptr) {
                gSkip = "no display and no Xvfb (.ci/run installs xvfb)";
                return;
            }
            // Xvfb picks a free display itself and writes its number
            // (-displayfd): the GTK 3 and GTK 4 suites start at once in a
            // parallel make check, and two that chose the same free number
            // shared one server, which the first to end took away.
            int fds[2];
            if (pipe(fds) != 0) {
                g_free(xvfb);
                gSkip = "no pipe for Xvfb's display number";
                return;
            }
            const char *argv[] = {xvfb, "-displayfd", "1", "-screen", "0", "800x600x24", "-nolisten", "tcp", nullptr};
            gboolean spawned = g_spawn_async_with_fds(
                nullptr, const_cast<char **>(argv), nullptr,
                GSpawnFlags(G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDERR_TO_DEV_NULL), nullptr, nullptr, &gXvfb, -1,
                fds[1], -1, nullptr);
            close(fds[1]);
            g_free(xvfb);
            std::string number;
            char ch;
            while (spawned && read(fds[0], &ch, 1) == 1 && ch != '\n')
                number += ch;
            close(fds[0]);
            if (number.empty()) {
                gSkip = "Xvfb did not start";
                return;
            }
            std::string display = ":" + number;
            g_setenv("DISPLAY", display.c_str(), TRUE);
        }
#if GTK_CHECK_VERSION(4, 0, 0)
        bool ok = gtk_init_check();
#else
        bool ok = gtk_init_check(nullptr, nullptr);
#endif
        if (!ok)
            gSkip = "GTK cannot open the display";
    }

    static void TearDownTestSuite()
    {
        g_unsetenv("LANGUAGE");
        delete gLocale;
        gLocale = nullptr;
        if (gXvfb > 0) {
            kill(gXvfb, SIGTERM);
            waitpid(gXvfb, nullptr, 0);
        }
    }

    void SetUp() override
    {
        if (!gSkip.empty())
            GTEST_SKIP() << gSkip;
        std::string so = std::string(IBNM_TOP_BUILDDIR) + "/plugin/.libs/libnm-vpn-plugin-ibnm.so";
        GError *error = nullptr;
        plugin_ = nm_vpn_editor_plugin_load_from_file(so.c_str(), IBNM_SECONDARY_SERVICE_TYPE, -1, nullptr, nullptr,
                                                       &error);
        ASSERT_NE(plugin_, nullptr) << error->message;
        connection_ = nm_simple_connection_new();
        NMSetting *s = nm_setting_connection_new();
        g_object_set(s, NM_SETTING_CONNECTION_ID, "rdma-page", NM_SETTING_CONNECTION_UUID,
                     "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b", NM_SETTING_CONNECTION_TYPE, NM_SETTING_VPN_SETTING_NAME,
                     nullptr);
        nm_connection_add_setting(connection_, s);
        vpn_ = NM_SETTING_VPN(nm_setting_vpn_new());
        g_object_set(vpn_, NM_SETTING_VPN_SERVICE_TYPE, IBNM_SECONDARY_SERVICE_TYPE, nullptr);
        nm_setting_vpn_add_data_item(vpn_, "rdma.link-type", "rxe");
        nm_setting_vpn_add_data_item(vpn_, "rdma.roce-tos", "106");
        nm_connection_add_setting(connection_, NM_SETTING(vpn_));
    }

    void TearDown() override
    {
        g_clear_object(&editor_);
        g_clear_object(&connection_);
        g_clear_object(&plugin_);
    }

    GtkWidget *open()
    {
        GError *error = nullptr;
        editor_ = nm_vpn_editor_plugin_get_editor(plugin_, connection_, &error);
        EXPECT_NE(editor_, nullptr) << (error ? error->message : "");
        if (editor_ == nullptr)
            return nullptr;
        g_signal_connect(editor_, "changed", G_CALLBACK(+[](NMVpnEditor *, gpointer data) {
                             ++*static_cast<int *>(data);
                         }),
                         &changes_);
        return GTK_WIDGET(nm_vpn_editor_get_widget(editor_));
    }

    NMVpnEditorPlugin *plugin_ = nullptr;
    NMConnection *connection_ = nullptr;
    NMSettingVpn *vpn_ = nullptr;
    NMVpnEditor *editor_ = nullptr;
    int changes_ = 0;
};

} // namespace

TEST_F(EditorPage, PluginNamesItselfAndOffersNoImportOrExport)
{
    char *name = nullptr, *service = nullptr;
    g_object_get(plugin_, NM_VPN_EDITOR_PLUGIN_NAME, &name, NM_VPN_EDITOR_PLUGIN_SERVICE, &service, nullptr);
    EXPECT_STREQ(name, "RDMA provisioning (ibnm)");
    EXPECT_STREQ(service, IBNM_SECONDARY_SERVICE_TYPE);
    g_free(name);
    g_free(service);
    EXPECT_EQ(nm_vpn_editor_plugin_get_capabilities(plugin_), NM_VPN_EDITOR_PLUGIN_CAPABILITY_NONE);
}

// The page shows vpn.data, offers the RoCE versions the link type allows,
// shows ToS as DSCP and back, and a typed value reaches vpn.data.
TEST_F(EditorPage, ShowsTheSettingsAndSavesTypedValues)
{
    GtkWidget *page = open();
    ASSERT_NE(page, nullptr);
    GtkWidget *type = findByName(page, "rdma.link-type");
    GtkWidget *mode = findByName(page, "rdma.roce-mode");
    GtkWidget *tos = findByName(page, "rdma.roce-tos");
    ASSERT_TRUE(type && mode && tos);
    EXPECT_STREQ(gtk_combo_box_get_active_id(GTK_COMBO_BOX(type)), "rxe");
    // rxe: RoCE v2 only (the kernel refuses v1); siw: v1 only.
    EXPECT_EQ(comboIds(mode), (std::vector<std::string>{"", "v2"}));
    gtk_combo_box_set_active_id(GTK_COMBO_BOX(type), "siw");
    EXPECT_EQ(comboIds(mode), (std::vector<std::string>{"", "v1"}));
    gtk_combo_box_set_active_id(GTK_COMBO_BOX(type), "");
    EXPECT_EQ(comboIds(mode), (std::vector<std::string>{"", "v1", "v2"}));
    gtk_combo_box_set_active_id(GTK_COMBO_BOX(type), "rxe");
    EXPECT_GT(changes_, 0) << "the editor emits changed";

    // ToS 106 is DSCP 26 with ECN 2; DSCP 26 is ToS 104.
    auto shownNextTo = [&](GtkWidget *field) {
        GtkWidget *grid = gtk_widget_get_parent(field);
        int col = 0, row = 0;
#if GTK_CHECK_VERSION(4, 0, 0)
        gtk_grid_query_child(GTK_GRID(grid), field, &col, &row, nullptr, nullptr);
#else
        gtk_container_child_get(GTK_CONTAINER(grid), field, "left-attach", &col, "top-attach", &row, nullptr);
#endif
        GtkWidget *label = gtk_grid_get_child_at(GTK_GRID(grid), 2, row);
        return std::string(label ? gtk_label_get_text(GTK_LABEL(label)) : "");
    };
    EXPECT_EQ(shownNextTo(tos), "DSCP 26, ECN 2");
    setText(tos, "dscp:26");
    EXPECT_EQ(shownNextTo(tos), "ToS 104");

    gtk_combo_box_set_active_id(GTK_COMBO_BOX(mode), "v2");
    GError *error = nullptr;
    ASSERT_TRUE(nm_vpn_editor_update_connection(editor_, connection_, &error)) << error->message;
    EXPECT_STREQ(nm_setting_vpn_get_data_item(vpn_, "rdma.roce-tos"), "dscp:26");
    EXPECT_STREQ(nm_setting_vpn_get_data_item(vpn_, "rdma.roce-mode"), "v2");
    EXPECT_STREQ(nm_setting_vpn_get_data_item(vpn_, "rdma.link-type"), "rxe");
    EXPECT_EQ(nm_setting_vpn_get_data_item(vpn_, "rdma.ttl"), nullptr) << "an empty field is no key";
}

// A value the key does not take is refused by update_connection (the
// editor keeps Save off and shows the error), and vpn.data is unchanged.
TEST_F(EditorPage, RefusesWhatTheParserRefuses)
{
    GtkWidget *page = open();
    ASSERT_NE(page, nullptr);
    setText(findByName(page, "rdma.ttl"), "300");
    GError *error = nullptr;
    EXPECT_FALSE(nm_vpn_editor_update_connection(editor_, connection_, &error));
    ASSERT_NE(error, nullptr);
    EXPECT_NE(std::string(error->message).find("rdma.ttl"), std::string::npos) << error->message;
    g_error_free(error);
    EXPECT_EQ(nm_setting_vpn_get_data_item(vpn_, "rdma.ttl"), nullptr);
}

// A value the page does not offer (RoCE v1 on rxe, written with nmcli) is
// kept as it is, and the findings under the fields say what is wrong.
TEST_F(EditorPage, KeepsAValueItDoesNotOfferAndShowsTheFinding)
{
    nm_setting_vpn_add_data_item(vpn_, "rdma.roce-mode", "v1");
    GtkWidget *page = open();
    ASSERT_NE(page, nullptr);
    GtkWidget *mode = findByName(page, "rdma.roce-mode");
    EXPECT_STREQ(gtk_combo_box_get_active_id(GTK_COMBO_BOX(mode)), "v1");
    char *shown = gtk_combo_box_text_get_active_text(GTK_COMBO_BOX_TEXT(mode));
    EXPECT_STREQ(shown, "RoCE v1 (not on this link type)");
    g_free(shown);
    GtkWidget *findings = findByName(page, "ibnm-check-findings");
    ASSERT_NE(findings, nullptr);
    std::string text = gtk_label_get_text(GTK_LABEL(findings));
    EXPECT_NE(text.find("rdma.roce-mode"), std::string::npos) << text;
    GError *error = nullptr;
    ASSERT_TRUE(nm_vpn_editor_update_connection(editor_, connection_, &error)) << error->message;
    EXPECT_STREQ(nm_setting_vpn_get_data_item(vpn_, "rdma.roce-mode"), "v1");
    iterate();
}

// The page speaks German and French (po/), as nm-connection-editor does in
// the user's language.
TEST_F(EditorPage, IsTranslated)
{
    struct {
        const char *language, *name, *title;
    } cases[] = {{"de", "RDMA-Einrichtung (ibnm)", "Was ibnm check auf diesem Rechner findet"},
                 {"fr", "Mise en place RDMA (ibnm)", "Ce que ibnm check trouve sur cette machine"}};
    for (const auto &c : cases) {
        g_setenv("LANGUAGE", c.language, TRUE);
        ++_nl_msg_cat_cntr;
        char *name = nullptr;
        g_object_get(plugin_, NM_VPN_EDITOR_PLUGIN_NAME, &name, nullptr);
        EXPECT_STREQ(name, c.name);
        g_free(name);
        g_clear_object(&editor_);
        GtkWidget *page = open();
        ASSERT_NE(page, nullptr);
        EXPECT_TRUE(showsLabel(page, c.title)) << c.language;
    }
    g_unsetenv("LANGUAGE");
    ++_nl_msg_cat_cntr;
}
