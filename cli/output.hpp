// SPDX-License-Identifier: LGPL-2.1-or-later
// nmcli-like output: aligned tables with a header, -t/--terse (colon
// separated, ':' and '\' escaped as nmcli does), -f/--fields (names, `all`,
// `common`), -g/--get-values (terse values only), -j/--json (docs/json-schema.md),
// colour only on a terminal.
#pragma once

#include "cli/cli.hpp"
#include "support/json-text.hpp"

#include <json-glib/json-glib.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ibnm::cli {

using Cell = std::optional<std::string>; // nullopt: no value ("--", JSON null)

// A string from libibnm as a cell: NULL and "" are no value.
inline Cell cell(const char *s)
{
    return s && *s ? Cell(s) : Cell();
}

enum class Tone { None, Good, Warn, Bad };

struct Field {
    std::string name; // upper case for tables (NAME), setting.property for records
    bool common = true;
    // The value as tabular and multiline output show it (nmcli's TYPE
    // `ethernet` for `802-3-ethernet`); terse, -g and JSON show the value.
    std::string (*human)(const std::string &) = nullptr;
};

// Rows of named columns: `connection show`, `device status`, `rdma gid show`...
class Table {
public:
    // `jsonKey` names the array in JSON output ({"connections": [...]}).
    Table(std::string jsonKey, std::vector<Field> fields);
    // The title -p prints above the table (nmcli's), none by default.
    void setTitle(std::string title) { title_ = std::move(title); }
    // `toneColumn`: the cell coloured with `tone` on a terminal.
    void add(std::vector<Cell> cells, Tone tone = Tone::None, int toneColumn = -1);
    // Instead of add(): `count` rows that `row(i, cells, tone, toneColumn)`
    // makes when print() needs them (twice for a table's widths and
    // lines), for a table too large to hold whole a second time next to
    // what it shows (`ibnm check`'s findings of 50,000 profiles).
    using RowSource = std::function<void(size_t, std::vector<Cell> &, Tone &, int &)>;
    void setRows(size_t count, RowSource row)
    {
        sourceRows_ = count;
        source_ = std::move(row);
    }
    size_t size() const { return source_ ? sourceRows_ : rows_.size(); }
    // Prints per the options; kExitUsage (after the message) for an unknown field.
    int print(const Context &ctx) const;
    // Whether print() would show the field: a caller can leave the cells
    // of a column that is not shown empty instead of computing them.
    bool shows(const Context &ctx, const char *name) const;

private:
    // The columns to print, in order; false (after the message) for an unknown field.
    bool columns(const Context &ctx, std::vector<size_t> &cols, bool complain) const;
    // A cell as printed: "--" for none in tables, the human form.
    std::string display(const Context &ctx, size_t col, const Cell &cell) const;
    struct Row {
        std::vector<Cell> cells;
        Tone tone;
        int toneColumn;
    };
    // Calls `f(const Row &)` for each row in order (made by source_ when set).
    template <typename F> void forEachRow(F &&f) const
    {
        if (!source_) {
            for (const auto &r : rows_)
                f(r);
            return;
        }
        Row r{{}, Tone::None, -1};
        for (size_t i = 0; i < sourceRows_; i++) {
            r.cells.clear();
            r.tone = Tone::None;
            r.toneColumn = -1;
            source_(i, r.cells, r.tone, r.toneColumn);
            f(r);
        }
    }
    std::string jsonKey_;
    std::string title_;
    std::vector<Field> fields_;
    std::vector<Row> rows_;
    size_t sourceRows_ = 0;
    RowSource source_;
};

// `name: value` lines: `connection show ID`, `device show`. A field selection
// matches a name or its prefix up to a dot (`-f ipv4` selects ipv4.*).
class Record {
public:
    explicit Record(std::string jsonKey) : jsonKey_(std::move(jsonKey)) {}
    // The title -p prints above the record (nmcli's), none by default.
    void setTitle(std::string title) { title_ = std::move(title); }
    void add(std::string name, Cell value) { items_.emplace_back(std::move(name), std::move(value)); }
    int print(const Context &ctx) const;
    const std::vector<std::pair<std::string, Cell>> &items() const { return items_; }

private:
    std::string jsonKey_;
    std::string title_;
    std::vector<std::pair<std::string, Cell>> items_;
};

// Several records: blank lines between them; JSON {"<jsonKey>": [{...}, ...]}.
int printRecords(const Context &ctx, const std::vector<Record> &records, const char *jsonKey);

// -j output (docs/json-schema.md): a tree built with json-glib's JsonBuilder
// and printed as every JSON text ibnm prints (ibnm::jsonText()), the same for
// every command. Members keep the order they are added
// in. This only saves the set_member_name/add_*_value pairs at each call.
class JsonDoc {
public:
    JsonDoc();
    // `key` names the member in an object; nullptr for an array element or the root.
    JsonDoc &beginObject(const char *key = nullptr);
    JsonDoc &endObject();
    JsonDoc &beginArray(const char *key = nullptr);
    JsonDoc &endArray();
    // A string, or null for no value.
    JsonDoc &value(const char *key, const char *v);
    JsonDoc &value(const char *key, const Cell &v) { return value(key, v ? v->c_str() : nullptr); }
    JsonDoc &value(const char *key, long long v);
    JsonDoc &boolean(const char *key, bool v);
    // The finished document on stdout, with a final newline.
    void print() const;

private:
    void member(const char *key);
    CPtr<JsonBuilder, g_object_unref> b_;
};

// nmcli's terse escaping: ':' and '\' get a backslash.
std::string terseEscape(const std::string &s);
// Control characters as \xNN: what a message shows of a user's value (a
// profile id) never forges a line or drives the terminal.
std::string displayEscape(const std::string &s);
// displayEscape() of a C string ("" for NULL), for printf's %s.
inline std::string shown(const char *s)
{
    return displayEscape(s ? s : "");
}
// The text in the colour of `tone` when colour is on.
std::string colored(const Context &ctx, Tone tone, const std::string &text);

} // namespace ibnm::cli
