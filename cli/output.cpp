// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "cli/output.hpp"

#include <glib/gi18n.h>

#include <algorithm>
#include <cstdio>

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

size_t width(const std::string &s)
{
    return g_utf8_validate(s.c_str(), -1, nullptr) ? g_utf8_strlen(s.c_str(), -1) : s.size();
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

std::string jsonQuote(const std::string &s)
{
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if (c < 0x20) {
                char buf[8];
                g_snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    return out + "\"";
}

// Control characters (a newline, an escape sequence) in a value would
// forge lines or drive the terminal: shown as \xNN. UTF-8 text is kept.
std::string displayEscape(const std::string &s)
{
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

// --- Json ---------------------------------------------------------------------

void Json::prefix(const char *key)
{
    if (!first_.empty()) {
        out_ += first_.back() ? "\n" : ",\n";
        first_.back() = false;
        out_ += std::string(first_.size() * 2, ' ');
    }
    if (key)
        out_ += jsonQuote(key) + ": ";
}

Json &Json::beginObject(const char *key)
{
    prefix(key);
    out_ += "{";
    first_.push_back(true);
    return *this;
}

Json &Json::endObject()
{
    bool empty = first_.back();
    first_.pop_back();
    if (!empty)
        out_ += "\n" + std::string(first_.size() * 2, ' ');
    out_ += "}";
    return *this;
}

Json &Json::beginArray(const char *key)
{
    prefix(key);
    out_ += "[";
    first_.push_back(true);
    return *this;
}

Json &Json::endArray()
{
    bool empty = first_.back();
    first_.pop_back();
    if (!empty)
        out_ += "\n" + std::string(first_.size() * 2, ' ');
    out_ += "]";
    return *this;
}

Json &Json::value(const char *key, const Cell &v)
{
    prefix(key);
    out_ += v ? jsonQuote(*v) : "null";
    return *this;
}

Json &Json::value(const char *key, long long v)
{
    prefix(key);
    out_ += std::to_string(v);
    return *this;
}

Json &Json::boolean(const char *key, bool v)
{
    prefix(key);
    out_ += v ? "true" : "false";
    return *this;
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

int Table::print(const Context &ctx) const
{
    const Options &o = ctx.options;
    std::vector<size_t> cols;
    if (!columns(ctx, cols, true))
        return kExitUsage;

    if (o.mode == OutputMode::Json) {
        Json j;
        j.beginObject().beginArray(jsonKey_.c_str());
        for (const auto &r : rows_) {
            j.beginObject();
            for (size_t c : cols)
                j.value(lower(fields_[c].name).c_str(), r.cells[c]);
            j.endObject();
        }
        j.endArray().endObject();
        std::fputs(j.str().c_str(), stdout);
        return kExitOk;
    }

    if (o.mode == OutputMode::Terse || o.getValues) {
        for (const auto &r : rows_) {
            std::string line;
            for (size_t k = 0; k < cols.size(); k++) {
                if (k)
                    line += ':';
                line += terseEscape(r.cells[cols[k]].value_or(""));
            }
            std::printf("%s\n", line.c_str());
        }
        return kExitOk;
    }

    std::vector<size_t> w(cols.size());
    for (size_t k = 0; k < cols.size(); k++) {
        w[k] = width(fields_[cols[k]].name);
        for (const auto &r : rows_)
            w[k] = std::max(w[k], width(displayEscape(r.cells[cols[k]].value_or("--"))));
    }
    auto line = [&](const std::vector<std::string> &cells, const Row *row) {
        std::string s;
        for (size_t k = 0; k < cells.size(); k++) {
            std::string text = cells[k];
            size_t pad = k + 1 < cells.size() ? w[k] - width(text) + 2 : 0;
            if (row && row->toneColumn == static_cast<int>(cols[k]))
                text = colored(ctx, row->tone, text);
            s += text + std::string(pad, ' ');
        }
        std::printf("%s\n", s.c_str());
    };
    std::vector<std::string> header;
    for (size_t c : cols)
        header.push_back(fields_[c].name);
    line(header, nullptr);
    for (const auto &r : rows_) {
        std::vector<std::string> cells;
        for (size_t c : cols)
            cells.push_back(displayEscape(r.cells[c].value_or("--")));
        line(cells, &r);
    }
    return kExitOk;
}

// --- Record -------------------------------------------------------------------

int Record::print(const Context &ctx) const
{
    const Options &o = ctx.options;
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
        Json j;
        j.beginObject().beginObject(jsonKey_.c_str());
        for (const auto *item : selected)
            j.value(item->first.c_str(), item->second);
        j.endObject().endObject();
        std::fputs(j.str().c_str(), stdout);
        return kExitOk;
    }
    if (o.getValues) {
        for (const auto *item : selected)
            std::printf("%s\n", terseEscape(item->second.value_or("")).c_str());
        return kExitOk;
    }
    if (o.mode == OutputMode::Terse) {
        for (const auto *item : selected)
            std::printf("%s:%s\n", item->first.c_str(), terseEscape(item->second.value_or("")).c_str());
        return kExitOk;
    }
    size_t w = 0;
    for (const auto *item : selected)
        w = std::max(w, width(item->first) + 1);
    for (const auto *item : selected) {
        std::string name = item->first + ":";
        // nmcli aligns values at column 40.
        std::string pad(std::max<size_t>(w, 39) - width(name) + 1, ' ');
        std::printf("%s%s%s\n", name.c_str(), pad.c_str(), displayEscape(item->second.value_or("--")).c_str());
    }
    return kExitOk;
}

int printRecords(const Context &ctx, const std::vector<Record> &records, const char *jsonKey)
{
    if (ctx.options.mode == OutputMode::Json) {
        std::vector<std::string> wanted = splitFields(ctx.options.fields.empty() ? "all" : ctx.options.fields);
        Json j;
        j.beginObject().beginArray(jsonKey);
        for (const auto &r : records) {
            j.beginObject();
            for (const auto &item : r.items()) {
                bool keep = false;
                for (const auto &f : wanted)
                    keep = keep || lower(f) == "all" || lower(f) == "common" || item.first == f ||
                           item.first.compare(0, f.size() + 1, f + ".") == 0;
                if (keep)
                    j.value(item.first.c_str(), item.second);
            }
            j.endObject();
        }
        j.endArray().endObject();
        std::fputs(j.str().c_str(), stdout);
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
