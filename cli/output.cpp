// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "cli/output.hpp"
#include "cli/pager.hpp"

#include <glib/gi18n.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

namespace ibnm::cli {

namespace {

std::string upper(std::string s)
{
    for (auto &c : s)
        c = g_ascii_toupper(c);
    return s;
}

std::string lower(std::string s)
{
    for (auto &c : s)
        c = g_ascii_tolower(c);
    return s;
}

// How much of a table's text print() gathers before it writes it.
constexpr size_t kOutBlock = 64 * 1024;

size_t width(const std::string &s)
{
    // ASCII (every value of gid show and nearly every other): one column a
    // byte, what g_utf8_strlen() would count.
    if (std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
        return s.size();
    return g_utf8_validate(s.c_str(), -1, nullptr) ? g_utf8_strlen(s.c_str(), -1) : s.size();
}

// `text` in lines of at most `limit` columns, broken at spaces where a
// word fits, else inside the word (UTF-8 characters kept whole).
std::vector<std::string> wrapCell(const std::string &text, size_t limit)
{
    std::vector<std::string> lines;
    if (width(text) <= limit || limit == 0)
        return {text};
    std::string cur;
    size_t curWidth = 0;
    const char *p = text.c_str();
    bool utf8 = g_utf8_validate(p, -1, nullptr);
    while (*p) {
        const char *space = std::strchr(p, ' ');
        std::string word = space ? std::string(p, space) : std::string(p);
        size_t ww = width(word);
        if (curWidth > 0 && curWidth + 1 + ww <= limit) {
            cur += ' ' + word;
            curWidth += 1 + ww;
        } else {
            if (curWidth > 0)
                lines.push_back(std::move(cur));
            cur.clear();
            curWidth = 0;
            // A word longer than the line: cut it, a character at a time.
            const char *w = word.c_str();
            while (*w) {
                const char *next = utf8 ? g_utf8_next_char(w) : w + 1;
                if (curWidth == limit) {
                    lines.push_back(std::move(cur));
                    cur.clear();
                    curWidth = 0;
                }
                cur.append(w, next);
                curWidth++;
                w = next;
            }
        }
        p = space ? space + 1 : p + std::strlen(p);
    }
    if (curWidth > 0 || lines.empty())
        lines.push_back(std::move(cur));
    return lines;
}

// Narrows the widest columns (each at least its header and 12 columns) until
// a line of `w` (each with its padding space, one space between) fits
// `columns`. False when nothing was narrowed.
bool fitColumns(std::vector<size_t> &w, const std::vector<size_t> &headerWidth, size_t columns)
{
    size_t total = w.empty() ? 0 : w.size() - 1;
    for (size_t x : w)
        total += x;
    bool narrowed = false;
    while (total > columns) {
        size_t k = size_t(std::max_element(w.begin(), w.end()) - w.begin());
        size_t floor = std::max<size_t>(headerWidth[k] + 1, 12);
        if (w[k] <= floor)
            break;
        size_t cut = std::min(total - columns, w[k] - floor);
        w[k] -= cut;
        total -= cut;
        narrowed = true;
    }
    return narrowed;
}

std::vector<std::string> splitFields(const std::string &spec)
{
    std::vector<std::string> out;
    char **parts = g_strsplit(spec.c_str(), ",", -1);
    for (char **p = parts; *p; p++) {
        char *t = g_strstrip(*p);
        if (*t)
            out.emplace_back(t);
    }
    g_strfreev(parts);
    return out;
}

std::string fieldList(const std::vector<Field> &fields)
{
    std::string s;
    for (const auto &f : fields)
        s += (s.empty() ? "" : ",") + f.name;
    return s;
}

} // namespace

// Control characters (a newline, an escape sequence) in a value would
// forge lines or drive the terminal: shown as \xNN. UTF-8 text is kept.
std::string displayEscape(const std::string &s)
{
    auto control = [](char c) {
        auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
    };
    if (std::none_of(s.begin(), s.end(), control))
        return s;
    std::string out;
    for (char c : s) {
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            char buf[8];
            g_snprintf(buf, sizeof buf, "\\x%02x", u);
            out += buf;
        } else {
            out += c;
        }
    }
    return out;
}

std::string terseEscape(const std::string &s)
{
    std::string out;
    for (char c : displayEscape(s)) {
        if (c == ':' || c == '\\')
            out += '\\';
        out += c;
    }
    return out;
}

std::string colored(const Context &ctx, Tone tone, const std::string &text)
{
    if (tone == Tone::None || !ctx.colorEnabled())
        return text;
    const char *code = tone == Tone::Good ? "32" : tone == Tone::Warn ? "33" : "31";
    return std::string("\033[") + code + "m" + text + "\033[0m";
}

// --- JsonDoc ------------------------------------------------------------------

JsonDoc::JsonDoc() : b_(json_builder_new()) {}

void JsonDoc::member(const char *key)
{
    if (key)
        json_builder_set_member_name(b_.get(), key);
}

JsonDoc &JsonDoc::beginObject(const char *key)
{
    member(key);
    json_builder_begin_object(b_.get());
    return *this;
}

JsonDoc &JsonDoc::endObject()
{
    json_builder_end_object(b_.get());
    return *this;
}

JsonDoc &JsonDoc::beginArray(const char *key)
{
    member(key);
    json_builder_begin_array(b_.get());
    return *this;
}

JsonDoc &JsonDoc::endArray()
{
    json_builder_end_array(b_.get());
    return *this;
}

JsonDoc &JsonDoc::value(const char *key, const char *v)
{
    member(key);
    if (v)
        json_builder_add_string_value(b_.get(), v);
    else
        json_builder_add_null_value(b_.get());
    return *this;
}

JsonDoc &JsonDoc::value(const char *key, long long v)
{
    member(key);
    json_builder_add_int_value(b_.get(), v);
    return *this;
}

JsonDoc &JsonDoc::boolean(const char *key, bool v)
{
    member(key);
    json_builder_add_boolean_value(b_.get(), v);
    return *this;
}

void JsonDoc::print() const
{
    std::unique_ptr<JsonNode, void (*)(JsonNode *)> root(json_builder_get_root(b_.get()), json_node_unref);
    std::string out = ibnm::jsonText(root.get());
    std::fwrite(out.data(), 1, out.size(), stdout);
}

// --- Table --------------------------------------------------------------------

Table::Table(std::string jsonKey, std::vector<Field> fields) : jsonKey_(std::move(jsonKey)), fields_(std::move(fields)) {}

void Table::add(std::vector<Cell> cells, Tone tone, int toneColumn)
{
    cells.resize(fields_.size());
    rows_.push_back({std::move(cells), tone, toneColumn});
}

bool Table::columns(const Context &ctx, std::vector<size_t> &cols, bool complain) const
{
    const Options &o = ctx.options;
    std::string spec = o.fields.empty() ? "common" : o.fields;
    for (const auto &name : splitFields(spec)) {
        std::string u = upper(name);
        if (u == "ALL" || u == "COMMON") {
            for (size_t i = 0; i < fields_.size(); i++)
                if (u == "ALL" || fields_[i].common)
                    cols.push_back(i);
            continue;
        }
        auto it = std::find_if(fields_.begin(), fields_.end(), [&](const Field &f) { return f.name == u; });
        if (it == fields_.end()) {
            if (complain)
                printError(_("invalid field '%s'; allowed fields: %s"), name.c_str(), fieldList(fields_).c_str());
            return false;
        }
        cols.push_back(static_cast<size_t>(it - fields_.begin()));
    }
    return true;
}

bool Table::shows(const Context &ctx, const char *name) const
{
    std::vector<size_t> cols;
    if (!columns(ctx, cols, false))
        return true; // print() reports the bad field; nothing is printed
    return std::any_of(cols.begin(), cols.end(), [&](size_t c) { return fields_[c].name == name; });
}

namespace {

// nmcli's multiline indent: "NAME:" padded to 40 columns (ML_VALUE_INDENT).
constexpr size_t kMlValueIndent = 40;
// nmcli's multiline title and separator width (ML_HEADER_WIDTH).
constexpr size_t kMlHeaderWidth = 79;

std::string padRight(const std::string &s, size_t columns)
{
    size_t w = width(s);
    return w >= columns ? s : s + std::string(columns - w, ' ');
}

// nmcli's pretty title: a line of '=', the title centred, a line of '='.
void printTitle(const std::string &title, size_t tableWidth)
{
    std::string line(tableWidth, '=');
    size_t w = width(title);
    size_t right = (tableWidth + w) / 2;
    std::printf("%s\n%s%s\n%s\n", line.c_str(), std::string(right > w ? right - w : 0, ' ').c_str(), title.c_str(),
                line.c_str());
}

// One multiline value line: "NAME:" then the value, padded as nmcli does
// (no padding in terse mode).
void printMultilineItem(const Context &ctx, const std::string &name, const Cell &value, const std::string &shown)
{
    bool terse = ctx.options.mode == OutputMode::Terse || ctx.options.getValues;
    std::string prefix = name + ":";
    if (terse)
        std::printf("%s%s\n", prefix.c_str(), value.value_or("").c_str());
    else
        std::printf("%s%s\n", padRight(prefix, kMlValueIndent).c_str(), shown.c_str());
}

} // namespace

std::string Table::display(const Context &ctx, size_t col, const Cell &cell) const
{
    bool terse = ctx.options.mode == OutputMode::Terse || ctx.options.getValues;
    if (!cell || cell->empty())
        return terse ? "" : "--";
    // Control characters are shown as \xNN (displayEscape): a value never
    // forges a line or drives the terminal.
    if (!terse && col < fields_.size() && fields_[col].human)
        return displayEscape(fields_[col].human(*cell));
    return displayEscape(*cell);
}

int Table::print(const Context &ctx) const
{
    const Options &o = ctx.options;
    std::vector<size_t> cols;
    if (!columns(ctx, cols, true))
        return kExitUsage;

    if (o.mode == OutputMode::Json) {
        JsonDoc j;
        j.beginObject().beginArray(jsonKey_.c_str());
        forEachRow([&](const Row &r) {
            j.beginObject();
            for (size_t c : cols)
                j.value(lower(fields_[c].name).c_str(), r.cells[c]);
            j.endObject();
        });
        j.endArray().endObject();
        j.print();
        return kExitOk;
    }

    bool terse = o.mode == OutputMode::Terse || o.getValues;
    startPager(ctx);
    // nmcli's _print_do(), src/nmcli/utils.c (1.42).
    if (o.multiline.value_or(false)) {
        if (o.pretty && !title_.empty())
            printTitle(title_, std::max(width(title_) + 4, kMlHeaderWidth));
        forEachRow([&](const Row &r) {
            for (size_t c : cols) {
                std::string shown = display(ctx, c, r.cells[c]);
                if (r.toneColumn == static_cast<int>(c))
                    shown = colored(ctx, r.tone, shown);
                printMultilineItem(ctx, fields_[c].name, terse ? Cell(display(ctx, c, r.cells[c])) : r.cells[c],
                                   shown);
            }
            if (o.pretty)
                std::printf("%s\n", std::string(kMlHeaderWidth, '-').c_str());
        });
        return kExitOk;
    }

    if (terse) {
        forEachRow([&](const Row &r) {
            std::string line;
            for (size_t k = 0; k < cols.size(); k++) {
                if (k)
                    line += ':';
                std::string v = display(ctx, cols[k], r.cells[cols[k]]);
                line += o.escape ? terseEscape(v) : v;
            }
            std::printf("%s\n", line.c_str());
        });
        return kExitOk;
    }

    // Each column is as wide as its widest cell plus one, then a space;
    // the last space is cut (so every line ends in one space, as nmcli's).
    // The cells are displayed twice, for the widths and for the lines,
    // rather than held displayed: `ibnm check` of 10,000 profiles has a
    // table of 9,000 findings, whose displayed copy was 3 MB of its peak.
    std::vector<size_t> w(cols.size());
    for (size_t k = 0; k < cols.size(); k++)
        w[k] = width(fields_[cols[k]].name);
    forEachRow([&](const Row &r) {
        for (size_t k = 0; k < cols.size(); k++)
            w[k] = std::max(w[k], width(display(ctx, cols[k], r.cells[cols[k]])));
    });
    for (auto &x : w)
        x += 1;
    // The lines go out in blocks of about 64 KiB: the padded text of a
    // table of 10,000 rows (`ibnm check` of a large store) is not held a
    // second time next to its displayed cells.
    std::string out;
    out.reserve(kOutBlock + 4096);
    auto flush = [&] {
        std::fwrite(out.data(), 1, out.size(), stdout);
        out.clear();
    };
    // One line: each cell padded to its column (padRight), the tone's
    // colour around the text alone, a space between columns.
    auto line = [&](const std::string *cells, const size_t *widths, const Row *row) {
        for (size_t k = 0; k < cols.size(); k++) {
            if (row && row->toneColumn == static_cast<int>(cols[k]))
                out += colored(ctx, row->tone, cells[k]);
            else
                out += cells[k];
            if (widths[k] < w[k])
                out.append(w[k] - widths[k], ' ');
            if (k + 1 < cols.size())
                out += ' ';
        }
        out += '\n';
        if (out.size() >= kOutBlock)
            flush();
    };
    size_t tableWidth = 0;
    if (o.pretty && !title_.empty()) {
        tableWidth = width(title_) + 4;
        printTitle(title_, tableWidth);
    }
    std::vector<std::string> header;
    std::vector<size_t> headerWidth;
    for (size_t k = 0; k < cols.size(); k++) {
        header.push_back(fields_[cols[k]].name);
        headerWidth.push_back(width(header.back()));
        tableWidth += w[k] + 1;
    }
    // On a terminal, a table wider than it wraps its widest columns.
    bool wrap = terminalColumns() > 0 && fitColumns(w, headerWidth, terminalColumns());
    line(header.data(), headerWidth.data(), nullptr);
    if (o.pretty)
        out.append(tableWidth, '-').append(1, '\n');
    std::vector<std::string> shown(cols.size());
    std::vector<size_t> shownWidth(cols.size());
    forEachRow([&](const Row &row) {
        for (size_t k = 0; k < cols.size(); k++) {
            shown[k] = display(ctx, cols[k], row.cells[cols[k]]);
            shownWidth[k] = width(shown[k]);
        }
        const std::string *cells = shown.data();
        if (!wrap) {
            line(cells, shownWidth.data(), &row);
            return;
        }
        std::vector<std::vector<std::string>> parts(cols.size());
        size_t height = 1;
        for (size_t k = 0; k < cols.size(); k++) {
            parts[k] = wrapCell(cells[k], w[k] - 1);
            height = std::max(height, parts[k].size());
        }
        for (size_t j = 0; j < height; j++) {
            std::vector<std::string> piece(cols.size());
            std::vector<size_t> pieceWidth(cols.size());
            for (size_t k = 0; k < cols.size(); k++) {
                if (j < parts[k].size())
                    piece[k] = parts[k][j];
                pieceWidth[k] = width(piece[k]);
            }
            line(piece.data(), pieceWidth.data(), j == 0 ? &row : nullptr);
        }
    });
    flush();
    return kExitOk;
}

// --- Record -------------------------------------------------------------------

int Record::print(const Context &ctx) const
{
    const Options &o = ctx.options;
    startPager(ctx);
    // In the order asked for (`-g b,a` prints b first), each item once.
    std::vector<const std::pair<std::string, Cell> *> selected;
    std::vector<std::string> wanted = splitFields(o.fields.empty() ? "all" : o.fields);
    std::vector<bool> taken(items_.size(), false);
    for (const auto &f : wanted) {
        std::string lf = lower(f);
        bool any = false;
        for (size_t i = 0; i < items_.size(); i++) {
            const auto &item = items_[i];
            if (lf == "all" || lf == "common" || item.first == f ||
                item.first.compare(0, f.size() + 1, f + ".") == 0) {
                any = true;
                if (!taken[i])
                    selected.push_back(&item);
                taken[i] = true;
            }
        }
        if (!any && lf != "all" && lf != "common") {
            printError(_("invalid field '%s'"), f.c_str());
            return kExitUsage;
        }
    }

    if (o.mode == OutputMode::Json) {
        JsonDoc j;
        j.beginObject().beginObject(jsonKey_.c_str());
        for (const auto *item : selected)
            j.value(item->first.c_str(), item->second);
        j.endObject().endObject();
        j.print();
        return kExitOk;
    }
    auto shown = [&](const Cell &v) { return v && !v->empty() ? displayEscape(*v) : std::string("--"); };
    // -g: the values, one a line, escaped unless -e no (nmcli 1.42).
    if (o.getValues) {
        for (const auto *item : selected) {
            std::string v = item->second.value_or("");
            std::printf("%s\n", (o.escape ? terseEscape(v) : v).c_str());
        }
        return kExitOk;
    }
    bool terse = o.mode == OutputMode::Terse;
    // The settings (the part before the first dot), in order: nmcli's
    // sections, separated in pretty output and tables in tabular mode.
    std::vector<std::pair<std::string, std::vector<const std::pair<std::string, Cell> *>>> sections;
    for (const auto *item : selected) {
        std::string section = item->first.substr(0, item->first.find('.'));
        if (sections.empty() || sections.back().first != section)
            sections.push_back({section, {}});
        sections.back().second.push_back(item);
    }
    if (!o.multiline.value_or(true)) {
        // -m tabular: a table a setting, "name" and the property names.
        for (const auto &[section, items] : sections) {
            std::vector<std::string> head = {"name"}, row = {section};
            for (const auto *item : items) {
                auto dot = item->first.find('.');
                head.push_back(dot == std::string::npos ? item->first : item->first.substr(dot + 1));
                row.push_back(terse ? item->second.value_or("") : shown(item->second));
            }
            if (terse) {
                std::string line;
                for (size_t k = 0; k < row.size(); k++)
                    line += (k ? ":" : "") + (o.escape ? terseEscape(row[k]) : row[k]);
                std::printf("%s\n", line.c_str());
                continue;
            }
            std::string h, r;
            for (size_t k = 0; k < row.size(); k++) {
                size_t w = std::max(width(head[k]), width(row[k])) + 1;
                h += padRight(head[k], w) + (k + 1 < row.size() ? " " : "");
                r += padRight(row[k], w) + (k + 1 < row.size() ? " " : "");
            }
            std::printf("%s\n%s\n\n", h.c_str(), r.c_str());
        }
        return kExitOk;
    }
    if (o.pretty && !title_.empty())
        printTitle(title_, std::max(width(title_) + 4, kMlHeaderWidth));
    for (const auto &[section, items] : sections) {
        for (const auto *item : items)
            printMultilineItem(ctx, item->first, item->second, shown(item->second));
        if (o.pretty)
            std::printf("%s\n", std::string(kMlHeaderWidth, '-').c_str());
    }
    return kExitOk;
}

int printRecords(const Context &ctx, const std::vector<Record> &records, const char *jsonKey)
{
    startPager(ctx);
    if (ctx.options.mode == OutputMode::Json) {
        std::vector<std::string> wanted = splitFields(ctx.options.fields.empty() ? "all" : ctx.options.fields);
        // Per field asked for: every item ("all", "common"), or the item
        // itself and those under it ("f.").
        bool everything = std::any_of(wanted.begin(), wanted.end(), [](const std::string &f) {
            std::string l = lower(f);
            return l == "all" || l == "common";
        });
        std::vector<std::string> prefixes;
        for (const auto &f : wanted)
            prefixes.push_back(f + ".");
        JsonDoc j;
        j.beginObject().beginArray(jsonKey);
        for (const auto &r : records) {
            j.beginObject();
            for (const auto &item : r.items()) {
                bool keep = everything;
                for (size_t k = 0; !keep && k < wanted.size(); k++)
                    keep = item.first == wanted[k] || item.first.compare(0, prefixes[k].size(), prefixes[k]) == 0;
                if (keep)
                    j.value(item.first.c_str(), item.second);
            }
            j.endObject();
        }
        j.endArray().endObject();
        j.print();
        return kExitOk;
    }
    for (size_t i = 0; i < records.size(); i++) {
        if (i)
            std::printf("\n");
        if (int rc = records[i].print(ctx); rc != kExitOk)
            return rc;
    }
    return kExitOk;
}

} // namespace ibnm::cli
