// SPDX-License-Identifier: LGPL-2.1-or-later
// The page of an RDMA secondary in nm-connection-editor (GTK 3) and GNOME
// Settings (GTK 4; the same source built against gtk4): NMVpnEditor.
// One field per rdma.* key of vpn.data, with the choices the device allows
// (no RoCE v1 for rxe, no v2 for siw), ToS shown as DSCP and DSCP as ToS,
// and what `ibnm check` finds on this host for the settings being edited,
// under the fields, updated as they change: the profile checked with its
// base profiles (those that list it in connection.secondaries, from
// NetworkManager) against this host's inventory, through libibnm's check
// API. Values are checked with the parser of the [user] keys
// (ibnm_secondary_verify()) before they reach vpn.data.
//
// Every field has its key as widget name and (GTK 3) as accessible id, so
// that tests and accessibility tools find it whatever the language.
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/support/gobject.hpp"

#include <NetworkManager.h>
#include <glib/gi18n-lib.h>
#include <gtk/gtk.h>

#include <string>
#include <vector>

namespace {

// The keys of the page, in its order (ibnm-keyfile(5)).
constexpr const char *kLinkType = "rdma.link-type";
constexpr const char *kLinkName = "rdma.link-name";
constexpr const char *kRoceMode = "rdma.roce-mode";
constexpr const char *kRoceTos = "rdma.roce-tos";
constexpr const char *kTrafficClass = "rdma.traffic-class";
constexpr const char *kTcRules = "rdma.traffic-class-rules";
constexpr const char *kTtl = "rdma.ttl";
constexpr const char *kRoceEnable = "rdma.roce-enable";

void editorIfaceInit(NMVpnEditorInterface *iface);

} // namespace

struct IbnmVpnEditor {
    GObject parent_instance;
};
struct IbnmVpnEditorClass {
    GObjectClass parent_class;
};
struct IbnmVpnEditorPrivate {
    GtkWidget *page = nullptr; // owned (a reference)
    GtkWidget *linkType = nullptr, *linkName = nullptr, *roceMode = nullptr, *roceTos = nullptr;
    GtkWidget *tosAs = nullptr, *trafficClass = nullptr, *tcAs = nullptr, *tcRules = nullptr, *ttl = nullptr;
    GtkWidget *roceEnable = nullptr, *findings = nullptr;
    NMConnection *connection = nullptr; // a copy of the profile being edited
    NMClient *client = nullptr;         // NetworkManager's profiles (the bases)
    IbnmInventory *inventory = nullptr; // this host
    guint checkSource = 0;
    bool filling = false;
    const char *lastLinkType = nullptr; // interned: the RoCE versions on offer are for it
    ~IbnmVpnEditorPrivate()
    {
        if (checkSource)
            g_source_remove(checkSource);
        g_clear_object(&page);
        g_clear_object(&connection);
        g_clear_object(&client);
        g_clear_object(&inventory);
    }
};

#define IBNM_TYPE_VPN_EDITOR (ibnm_vpn_editor_get_type())
GType ibnm_vpn_editor_get_type(void);
IBNM_DEFINE_TYPE_FULL(IbnmVpnEditor, ibnm_vpn_editor, G_TYPE_OBJECT, G_TYPE_FLAG_FINAL,
                      G_IMPLEMENT_INTERFACE(NM_TYPE_VPN_EDITOR, editorIfaceInit))

static void ibnm_vpn_editor_class_init_impl(IbnmVpnEditorClass *)
{
}

namespace {

// --- toolkit differences (GTK 3 and 4) -------------------------------------

void boxAdd(GtkWidget *box, GtkWidget *child)
{
#if GTK_CHECK_VERSION(4, 0, 0)
    gtk_box_append(GTK_BOX(box), child);
#else
    gtk_box_pack_start(GTK_BOX(box), child, FALSE, FALSE, 0);
#endif
}

const char *entryText(GtkWidget *entry)
{
#if GTK_CHECK_VERSION(4, 0, 0)
    return gtk_editable_get_text(GTK_EDITABLE(entry));
#else
    return gtk_entry_get_text(GTK_ENTRY(entry));
#endif
}

void setEntryText(GtkWidget *entry, const char *text)
{
#if GTK_CHECK_VERSION(4, 0, 0)
    gtk_editable_set_text(GTK_EDITABLE(entry), text ? text : "");
#else
    gtk_entry_set_text(GTK_ENTRY(entry), text ? text : "");
#endif
}

// The key as the widget's name, and as its accessible id where the toolkit
// has one (ATK, GTK 3): what tests and screen readers find it by.
void nameWidget(GtkWidget *w, const char *key)
{
    gtk_widget_set_name(w, key);
#if !GTK_CHECK_VERSION(4, 0, 0)
    atk_object_set_accessible_id(gtk_widget_get_accessible(w), key);
#endif
}

// --- the fields ------------------------------------------------------------

void changed(IbnmVpnEditor *self);

// A label and its field; the field spans `width` columns (2: the whole row;
// 1: the third column shows something about it, addConversionRow()).
GtkWidget *addRow(GtkWidget *grid, int row, const char *label, GtkWidget *field, const char *key, const char *tip,
                  int width = 2)
{
    GtkWidget *l = gtk_label_new_with_mnemonic(label);
    gtk_label_set_xalign(GTK_LABEL(l), 1.0);
    gtk_label_set_mnemonic_widget(GTK_LABEL(l), field);
    gtk_widget_set_hexpand(field, TRUE);
    gtk_widget_set_tooltip_text(field, tip);
    nameWidget(field, key);
    gtk_grid_attach(GTK_GRID(grid), l, 0, row, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), field, 1, row, width, 1);
    return field;
}
GtkWidget *entry(IbnmVpnEditor *self, const char *placeholder)
{
    GtkWidget *e = gtk_entry_new();
    gtk_entry_set_placeholder_text(GTK_ENTRY(e), placeholder);
    g_signal_connect_swapped(e, "changed", G_CALLBACK(changed), self);
    return e;
}

GtkWidget *combo(IbnmVpnEditor *self)
{
    GtkWidget *c = gtk_combo_box_text_new();
    g_signal_connect_swapped(c, "changed", G_CALLBACK(changed), self);
    return c;
}

// The id of a combo's active entry, nullptr for "not set" ("").
const char *comboValue(GtkWidget *c)
{
    const char *id = gtk_combo_box_get_active_id(GTK_COMBO_BOX(c));
    return id && *id ? id : nullptr;
}

// Selects `value`; a value the page does not offer (set with nmcli, say
// RoCE v1 on rxe) is added as it is, so that saving keeps it and the check
// below the fields says what is wrong with it.
void selectValue(GtkWidget *c, const char *value)
{
    if (!gtk_combo_box_set_active_id(GTK_COMBO_BOX(c), value ? value : "")) {
        gtk_combo_box_text_append(GTK_COMBO_BOX_TEXT(c), value, value);
        gtk_combo_box_set_active_id(GTK_COMBO_BOX(c), value);
    }
}

// The RoCE versions RDMA-CM takes on the device the settings reach: a soft
// link's own (rxe: v2 only, siw: v1 only), else both (a hardware port: the
// check below says what it has).
void fillRoceModes(IbnmVpnEditorPrivate *p, const char *keep)
{
    GtkComboBoxText *c = GTK_COMBO_BOX_TEXT(p->roceMode);
    gtk_combo_box_text_remove_all(c);
    gtk_combo_box_text_append(c, "", _("(the kernel's default)"));
    IbnmSoftLinkType type;
    const char *lt = comboValue(p->linkType);
    bool soft = lt && ibnm_soft_link_type_from_string(lt, &type);
    struct {
        const char *id;
        const char *label;
        IbnmRoceMode mode;
    } modes[] = {{"v1", _("RoCE v1"), IBNM_ROCE_MODE_V1}, {"v2", _("RoCE v2"), IBNM_ROCE_MODE_V2}};
    IbnmRoceMode mode;
    bool known = keep && ibnm_roce_mode_from_string(keep, &mode);
    for (const auto &m : modes) {
        if (!soft || ibnm_soft_link_type_supports_roce_mode(type, m.mode)) {
            gtk_combo_box_text_append(c, m.id, m.label);
        } else if (known && mode == m.mode) {
            // Kept, so that saving does not drop it; the check below the
            // fields says why the kernel will refuse it.
            char *label = g_strdup_printf(_("%s (not on this link type)"), m.label);
            gtk_combo_box_text_append(c, m.id, label);
            g_free(label);
        }
    }
    // A value written otherwise ("2", "RoCE v2") is the one offered.
    selectValue(p->roceMode, known ? (mode == IBNM_ROCE_MODE_V1 ? "v1" : "v2") : keep);
}

// "106" shows "DSCP 26, ECN 2"; "dscp:26" shows "ToS 104".
void showTosAs(GtkWidget *entryWidget, GtkWidget *label)
{
    const char *text = entryText(entryWidget);
    gint tos = *text ? ibnm_traffic_class_from_string(text) : -1;
    char *shown = nullptr;
    if (tos < 0)
        shown = g_strdup(*text ? _("not a ToS (0-255) or a DSCP (dscp:0-63)") : "");
    else if (g_ascii_strncasecmp(text, "dscp:", 5) == 0)
        shown = g_strdup_printf(_("ToS %d"), tos);
    else if (tos & 3)
        shown = g_strdup_printf(_("DSCP %d, ECN %d"), int(ibnm_roce_dscp_of_tos(guint(tos))), tos & 3);
    else
        shown = g_strdup_printf(_("DSCP %d"), int(ibnm_roce_dscp_of_tos(guint(tos))));
    gtk_label_set_text(GTK_LABEL(label), shown);
    g_free(shown);
}

// The page's values into `c`'s vpn.data (other items are kept).
void store(IbnmVpnEditorPrivate *p, NMConnection *c)
{
    NMSettingVpn *vpn = nm_connection_get_setting_vpn(c);
    if (vpn == nullptr) {
        vpn = NM_SETTING_VPN(nm_setting_vpn_new());
        nm_connection_add_setting(c, NM_SETTING(vpn));
    }
    g_object_set(vpn, NM_SETTING_VPN_SERVICE_TYPE, IBNM_SECONDARY_SERVICE_TYPE, nullptr);
    auto put = [&](const char *key, const char *value) {
        if (value && *value)
            nm_setting_vpn_add_data_item(vpn, key, value);
        else
            nm_setting_vpn_remove_data_item(vpn, key);
    };
    put(kLinkType, comboValue(p->linkType));
    put(kLinkName, comboValue(p->linkType) ? entryText(p->linkName) : nullptr);
    put(kRoceMode, comboValue(p->roceMode));
    put(kRoceTos, entryText(p->roceTos));
    put(kTrafficClass, entryText(p->trafficClass));
    put(kTcRules, entryText(p->tcRules));
    put(kTtl, entryText(p->ttl));
    put(kRoceEnable, comboValue(p->roceEnable));
}

// --- the check ---------------------------------------------------------------

// One finding as markup: a sign for its severity, the message, the hint
// below it in small print.
std::string findingMarkup(IbnmFinding *f)
{
    const char *sign = "\u2139"; // information
    if (ibnm_finding_get_severity(f) == IBNM_SEVERITY_ERROR)
        sign = "<span foreground='#c01c28'>\u2716</span>";
    else if (ibnm_finding_get_severity(f) == IBNM_SEVERITY_WARNING)
        sign = "<span foreground='#c64600'>\u26a0</span>";
    char *m = g_markup_escape_text(ibnm_finding_get_message(f), -1);
    std::string out = std::string(sign) + " " + m;
    g_free(m);
    if (const char *hint = ibnm_finding_get_hint(f); hint && *hint) {
        char *h = g_markup_escape_text(hint, -1);
        out += std::string("\n<small>") + h + "</small>";
        g_free(h);
    }
    return out;
}

// The profiles to check with: the settings being edited, and the profiles
// NetworkManager has that list it as a secondary (the rules plan it on
// their devices).
GPtrArray *profilesToCheck(IbnmVpnEditorPrivate *p, NMConnection *edited)
{
    GPtrArray *profiles = g_ptr_array_new_with_free_func(g_object_unref);
    g_ptr_array_add(profiles, g_object_ref(edited));
    if (p->client == nullptr)
        return profiles;
    const GPtrArray *all = nm_client_get_connections(p->client);
    GPtrArray *mine = g_ptr_array_new();
    for (guint i = 0; i < all->len; i++)
        g_ptr_array_add(mine, g_ptr_array_index(all, i));
    GPtrArray *bases = ibnm_secondary_find_bases(edited, mine);
    for (guint i = 0; i < bases->len; i++)
        if (g_strcmp0(nm_connection_get_uuid(NM_CONNECTION(g_ptr_array_index(bases, i))),
                      nm_connection_get_uuid(edited)) != 0)
            g_ptr_array_add(profiles, g_object_ref(g_ptr_array_index(bases, i)));
    g_ptr_array_unref(bases);
    g_ptr_array_unref(mine);
    return profiles;
}

gboolean runCheck(gpointer data)
{
    auto *self = static_cast<IbnmVpnEditor *>(data);
    IbnmVpnEditorPrivate *p = ibnm_vpn_editor_priv(self);
    p->checkSource = 0;
    // The profile as far as this page goes: its connection setting and the
    // page's vpn.data, normalized as NetworkManager stores a profile (the
    // editor's other pages, IPv4 and the like, hold their own values until
    // Save, and a new profile's are incomplete until then).
    NMConnection *edited = nm_simple_connection_new();
    if (NMSettingConnection *sc = nm_connection_get_setting_connection(p->connection))
        nm_connection_add_setting(edited, nm_setting_duplicate(NM_SETTING(sc)));
    store(p, edited);
    nm_connection_normalize(edited, nullptr, nullptr, nullptr);
    GPtrArray *profiles = profilesToCheck(p, edited);
    // One label, its text replaced: the page keeps its widgets (and their
    // accessible objects) while it is edited.
    std::string markup;
    GError *error = nullptr;
    if (!ibnm_check_reload_inventory(p->inventory, profiles, &error)) {
        char *m = g_markup_escape_text(error->message, -1);
        markup = m;
        g_free(m);
        g_error_free(error);
    } else {
        GPtrArray *findings = ibnm_check_profiles(profiles, p->inventory, IBNM_CHECK_FLAGS_NONE);
        const char *id = nm_connection_get_id(edited);
        for (guint i = 0; i < findings->len; i++) {
            auto *f = IBNM_FINDING(g_ptr_array_index(findings, i));
            if (id && ibnm_finding_involves(f, id))
                markup += (markup.empty() ? "" : "\n") + findingMarkup(f);
        }
        if (markup.empty())
            markup = _("ibnm check finds nothing to object to on this host.");
        g_ptr_array_unref(findings);
    }
    gtk_label_set_markup(GTK_LABEL(p->findings), markup.c_str());
    g_ptr_array_unref(profiles);
    g_object_unref(edited);
    return G_SOURCE_REMOVE;
}

void changed(IbnmVpnEditor *self)
{
    IbnmVpnEditorPrivate *p = ibnm_vpn_editor_priv(self);
    if (p->filling)
        return;
    // The link type decides the RoCE versions on offer and whether a link
    // name means anything.
    const char *type = comboValue(p->linkType);
    if (g_strcmp0(type, p->lastLinkType) != 0) {
        p->lastLinkType = type ? g_intern_string(type) : nullptr;
        p->filling = true;
        char *mode = g_strdup(comboValue(p->roceMode));
        fillRoceModes(p, mode);
        g_free(mode);
        p->filling = false;
    }
    gtk_widget_set_sensitive(p->linkName, type != nullptr);
    showTosAs(p->roceTos, p->tosAs);
    showTosAs(p->trafficClass, p->tcAs);
    if (p->checkSource)
        g_source_remove(p->checkSource);
    p->checkSource = g_timeout_add(250, runCheck, self);
    g_signal_emit_by_name(self, "changed");
}

// --- the page ----------------------------------------------------------------

// A row whose entry takes a ToS byte or a DSCP, with the other form
// shown next to it.
// A row whose entry takes a ToS byte or a DSCP, with the other form
// shown in the third column.
GtkWidget *addConversionRow(GtkWidget *grid, int row, const char *label, GtkWidget *field, const char *key,
                            const char *tip, GtkWidget **shown)
{
    addRow(grid, row, label, field, key, tip, 1);
    *shown = gtk_label_new("");
    gtk_label_set_xalign(GTK_LABEL(*shown), 0.0);
    gtk_label_set_width_chars(GTK_LABEL(*shown), 14);
    gtk_grid_attach(GTK_GRID(grid), *shown, 2, row, 1, 1);
    return field;
}

void buildPage(IbnmVpnEditor *self)
{
    IbnmVpnEditorPrivate *p = ibnm_vpn_editor_priv(self);
    GtkWidget *outer = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
    for (auto margin : {gtk_widget_set_margin_start, gtk_widget_set_margin_end, gtk_widget_set_margin_top,
                        gtk_widget_set_margin_bottom})
        margin(outer, 12);
    GtkWidget *about = gtk_label_new(_("These settings apply to the device of each profile that lists this one "
                                       "as a secondary connection (its General tab: \"Automatically connect to "
                                       "VPN\"). The IPv4 and IPv6 tabs do not apply: an RDMA secondary has no "
                                       "address of its own."));
    gtk_label_set_xalign(GTK_LABEL(about), 0.0);
#if GTK_CHECK_VERSION(4, 0, 0)
    gtk_label_set_wrap(GTK_LABEL(about), TRUE);
#else
    gtk_label_set_line_wrap(GTK_LABEL(about), TRUE);
#endif
    gtk_label_set_max_width_chars(GTK_LABEL(about), 60);
#if GTK_CHECK_VERSION(4, 0, 0)
    gtk_widget_add_css_class(about, "dim-label");
#else
    gtk_style_context_add_class(gtk_widget_get_style_context(about), "dim-label");
#endif
    boxAdd(outer, about);
    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(grid), 6);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 12);

    p->linkType = addRow(grid, 0, _("Soft RDMA _link:"), combo(self), kLinkType,
                         _("rdma.link-type: a soft RDMA link over the device, or none to use the device's own RDMA "
                           "port"));
    gtk_combo_box_text_append(GTK_COMBO_BOX_TEXT(p->linkType), "", _("None: the device's own RDMA port"));
    gtk_combo_box_text_append(GTK_COMBO_BOX_TEXT(p->linkType), "rxe", _("rxe (Soft-RoCE)"));
    gtk_combo_box_text_append(GTK_COMBO_BOX_TEXT(p->linkType), "siw", _("siw (Soft-iWARP)"));
    p->linkName = addRow(grid, 1, _("Link _name:"), entry(self, _("rxe_DEVICE or siw_DEVICE")), kLinkName,
                         _("rdma.link-name: the name of the RDMA device the link creates"));
    p->roceMode = addRow(grid, 2, _("Default RoCE _mode:"), combo(self), kRoceMode,
                         _("rdma.roce-mode: the RoCE version RDMA-CM uses by default (configfs rdma_cm)"));
    p->roceTos = addConversionRow(grid, 3, _("Default RoCE _ToS:"), entry(self, _("0-255 or dscp:0-63")), kRoceTos,
                                  _("rdma.roce-tos: the ToS byte of RDMA-CM's RoCE traffic, or a DSCP (ToS = 4 x "
                                    "DSCP)"),
                                  &p->tosAs);
    p->trafficClass = addConversionRow(grid, 4, _("T_raffic class:"), entry(self, _("0-255 or dscp:0-63")),
                                       kTrafficClass, _("rdma.traffic-class: the traffic class of the port (mlx5)"),
                                       &p->tcAs);
    p->tcRules = addRow(grid, 5, _("Traffic class r_ules:"), entry(self, "tclass=16,src_ip=A,dst_ip=B/24;..."),
                        kTcRules, _("rdma.traffic-class-rules: rules separated by ';' (mlx5)"));
    p->ttl = addRow(grid, 6, _("TT_L:"), entry(self, "0-255"), kTtl, _("rdma.ttl: the TTL of RoCE v2 packets (mlx5)"));
    p->roceEnable = addRow(grid, 7, _("RoCE _enabled:"), combo(self), kRoceEnable,
                           _("rdma.roce-enable: RoCE on the device's PCI function (mlx5 roce_enable)"));
    gtk_combo_box_text_append(GTK_COMBO_BOX_TEXT(p->roceEnable), "", _("As it is"));
    gtk_combo_box_text_append(GTK_COMBO_BOX_TEXT(p->roceEnable), "yes", _("Yes"));
    gtk_combo_box_text_append(GTK_COMBO_BOX_TEXT(p->roceEnable), "no", _("No"));
    boxAdd(outer, grid);

    GtkWidget *title = gtk_label_new(nullptr);
    char *markup = g_strdup_printf("<b>%s</b>", _("What ibnm check finds on this host"));
    gtk_label_set_markup(GTK_LABEL(title), markup);
    g_free(markup);
    gtk_label_set_xalign(GTK_LABEL(title), 0.0);
    boxAdd(outer, title);
    p->findings = gtk_label_new("");
    gtk_label_set_xalign(GTK_LABEL(p->findings), 0.0);
    gtk_label_set_selectable(GTK_LABEL(p->findings), TRUE);
#if GTK_CHECK_VERSION(4, 0, 0)
    gtk_label_set_wrap(GTK_LABEL(p->findings), TRUE);
#else
    gtk_label_set_line_wrap(GTK_LABEL(p->findings), TRUE);
#endif
    gtk_label_set_max_width_chars(GTK_LABEL(p->findings), 60);
    nameWidget(p->findings, "ibnm-check-findings");
    boxAdd(outer, p->findings);
    p->page = GTK_WIDGET(g_object_ref_sink(outer));
}

void fill(IbnmVpnEditor *self)
{
    IbnmVpnEditorPrivate *p = ibnm_vpn_editor_priv(self);
    NMSettingVpn *vpn = nm_connection_get_setting_vpn(p->connection);
    auto get = [&](const char *key) { return vpn ? nm_setting_vpn_get_data_item(vpn, key) : nullptr; };
    p->filling = true;
    IbnmSoftLinkType type;
    const char *lt = get(kLinkType);
    selectValue(p->linkType, lt && ibnm_soft_link_type_from_string(lt, &type)
                                 ? (type == IBNM_SOFT_LINK_TYPE_RXE ? "rxe" : "siw")
                                 : lt);
    setEntryText(p->linkName, get(kLinkName));
    fillRoceModes(p, get(kRoceMode));
    setEntryText(p->roceTos, get(kRoceTos));
    setEntryText(p->trafficClass, get(kTrafficClass));
    setEntryText(p->tcRules, get(kTcRules));
    setEntryText(p->ttl, get(kTtl));
    const char *re = get(kRoceEnable);
    selectValue(p->roceEnable, re && (g_ascii_strcasecmp(re, "yes") == 0 || g_ascii_strcasecmp(re, "true") == 0 ||
                                      g_strcmp0(re, "1") == 0 || g_ascii_strcasecmp(re, "on") == 0)
                                   ? "yes"
                               : re && (g_ascii_strcasecmp(re, "no") == 0 || g_ascii_strcasecmp(re, "false") == 0 ||
                                        g_strcmp0(re, "0") == 0 || g_ascii_strcasecmp(re, "off") == 0)
                                   ? "no"
                                   : re);
    p->filling = false;
    gtk_widget_set_sensitive(p->linkName, comboValue(p->linkType) != nullptr);
    showTosAs(p->roceTos, p->tosAs);
    showTosAs(p->trafficClass, p->tcAs);
}

GObject *getWidget(NMVpnEditor *editor)
{
    return G_OBJECT(ibnm_vpn_editor_priv(editor)->page);
}

gboolean updateConnection(NMVpnEditor *editor, NMConnection *connection, GError **error)
{
    IbnmVpnEditorPrivate *p = ibnm_vpn_editor_priv(editor);
    // Checked on a copy: a refused value leaves the profile as it was.
    NMConnection *edited = nm_simple_connection_new_clone(connection);
    store(p, edited);
    gboolean ok = ibnm_secondary_verify(edited, error);
    if (ok)
        store(p, connection);
    g_object_unref(edited);
    return ok;
}

void editorIfaceInit(NMVpnEditorInterface *iface)
{
    iface->get_widget = getWidget;
    iface->update_connection = updateConnection;
}

} // namespace

extern "C" G_MODULE_EXPORT NMVpnEditor *nm_vpn_editor_factory_ibnm(NMVpnEditorPlugin *, NMConnection *connection,
                                                                   GError **error)
{
    g_return_val_if_fail(NM_IS_CONNECTION(connection), nullptr);
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    auto *self = static_cast<IbnmVpnEditor *>(g_object_new(IBNM_TYPE_VPN_EDITOR, nullptr));
    IbnmVpnEditorPrivate *p = ibnm_vpn_editor_priv(self);
    p->connection = nm_simple_connection_new_clone(connection);
    // NetworkManager's profiles, for the bases; without NetworkManager the
    // page checks the settings alone.
    p->client = nm_client_new(nullptr, nullptr);
    IbnmHost *host = ibnm_host_new_system();
    p->inventory = ibnm_inventory_new(host);
    g_object_unref(host);
    buildPage(self);
    fill(self);
    const char *lt = comboValue(p->linkType);
    p->lastLinkType = lt ? g_intern_string(lt) : nullptr;
#if !GTK_CHECK_VERSION(4, 0, 0)
    gtk_widget_show_all(p->page);
#endif
    runCheck(self);
    return NM_VPN_EDITOR(self);
}
