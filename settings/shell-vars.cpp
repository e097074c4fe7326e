// SPDX-License-Identifier: LGPL-2.1-or-later
// ShellVars (shell-vars.hpp): the KEY=value lines of an ifcfg file,
// unquoted as sh and NetworkManager's svUnescape() do.
#include "config.h"

#include "settings/shell-vars.hpp"

#include "libcore/support/files.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <glib.h>

#include <vector>

namespace ibnm::settings {

namespace {

enum class Scan { Ok, Incomplete, Invalid };

int octal(char c) { return c >= '0' && c <= '7' ? c - '0' : -1; }

// Unescapes one shell word, or reports that it is incomplete (an open
// quote or a trailing backslash at the end of `v`) or is not a plain value.
// With `multiline`, `v` is the rest of the file: a newline outside quotes
// ends the word, and *consumed is where its line ends; each character is
// looked at once, so a file is parsed in linear time (an unclosed quote
// used to rescan the value once per following line).
Scan scanValue(std::string_view v, std::string &out, bool multiline = false, size_t *consumed = nullptr)
{
    out.clear();
    size_t i = 0;
    auto endOfLine = [&](size_t at) {
        if (consumed) {
            size_t nl = v.find('\n', at);
            *consumed = nl == std::string_view::npos ? v.size() : nl;
        }
        return Scan::Ok;
    };
    while (i < v.size()) {
        char c = v[i];
        if (multiline && c == '\n')
            return endOfLine(i);
        if (isSpace(c)) {
            // The word ended: only blanks or a comment may follow.
            while (i < v.size() && isSpace(v[i]))
                i++;
            if (i == v.size() || v[i] == '#' || (multiline && v[i] == '\n'))
                return endOfLine(i);
            return Scan::Invalid;
        }
        if (c == '\\') {
            if (i + 1 >= v.size())
                return Scan::Incomplete;
            if (v[i + 1] != '\n')
                out += v[i + 1];
            i += 2;
        } else if (c == '\'') {
            size_t end = v.find('\'', i + 1);
            if (end == std::string_view::npos)
                return Scan::Incomplete;
            out.append(v.substr(i + 1, end - i - 1));
            i = end + 1;
        } else if (c == '"') {
            i++;
            for (;;) {
                if (i >= v.size())
                    return Scan::Incomplete;
                char d = v[i];
                if (d == '"') {
                    i++;
                    break;
                }
                if (d == '$' || d == '`')
                    return Scan::Invalid; // expansion: not a plain value
                if (d == '\\') {
                    if (i + 1 >= v.size())
                        return Scan::Incomplete;
                    char e = v[i + 1];
                    if (e == '$' || e == '`' || e == '"' || e == '\\')
                        out += e;
                    else if (e != '\n')
                        out.append({'\\', e});
                    i += 2;
                    continue;
                }
                out += d;
                i++;
            }
        } else if (c == '$' && i + 1 < v.size() && v[i + 1] == '\'') {
            i += 2;
            for (;;) {
                if (i >= v.size())
                    return Scan::Incomplete;
                char d = v[i];
                if (d == '\'') {
                    i++;
                    break;
                }
                if (d != '\\') {
                    out += d;
                    i++;
                    continue;
                }
                if (i + 1 >= v.size())
                    return Scan::Incomplete;
                char e = v[i + 1];
                i += 2;
                switch (e) {
                case 'a': out += '\a'; break;
                case 'b': out += '\b'; break;
                case 'e':
                case 'E': out += '\033'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'v': out += '\v'; break;
                case '\\': out += '\\'; break;
                case '\'': out += '\''; break;
                case '"': out += '"'; break;
                case '?': out += '?'; break;
                case 'x': {
                    int n = 0, val = 0;
                    while (n < 2 && i < v.size() && g_ascii_isxdigit(v[i])) {
                        val = val * 16 + g_ascii_xdigit_value(v[i]);
                        i++;
                        n++;
                    }
                    if (n == 0)
                        out.append("\\x");
                    else if (val != 0)
                        out += char(val);
                    break;
                }
                default:
                    if (octal(e) >= 0) {
                        int val = octal(e), n = 1;
                        while (n < 3 && i < v.size() && octal(v[i]) >= 0) {
                            val = val * 8 + octal(v[i]);
                            i++;
                            n++;
                        }
                        if ((val & 0xff) != 0)
                            out += char(val & 0xff);
                    } else {
                        out.append({'\\', e});
                    }
                }
            }
        } else if (c == '$' || c == '`' || c == ';' || c == '|' || c == '&' || c == '(' || c == ')' ||
                   c == '<' || c == '>') {
            return Scan::Invalid;
        } else {
            out += c;
            i++;
        }
    }
    return endOfLine(i);
}

bool validKey(std::string_view k)
{
    if (k.empty() || !(g_ascii_isalpha(k[0]) || k[0] == '_'))
        return false;
    for (char c : k)
        if (!(g_ascii_isalnum(c) || c == '_'))
            return false;
    return true;
}

} // namespace

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::optional<std::string> shellUnescape(std::string_view value)
{
    std::string out;
    if (scanValue(value, out) != Scan::Ok)
        return std::nullopt;
    return out;
}

Result<ShellVars> ShellVars::parse(std::string_view text, const std::string &filename)
{
    if (text.size() > kMaxIfcfgSize)
        return Error(IBNM_ERROR_PARSE, strprintf(_("the file is larger than %zu bytes, the most an ifcfg file may have"),
                                                 kMaxIfcfgSize))
            .withContext(filename);
    ShellVars vars;
    vars.filename_ = filename;
    std::vector<std::string_view> lines;
    for (size_t start = 0; start <= text.size();) {
        size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) {
            if (start < text.size())
                lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, nl - start));
        start = nl + 1;
    }
    for (size_t i = 0; i < lines.size(); i++) {
        unsigned lineNo = unsigned(i + 1);
        std::string_view line = lines[i];
        while (!line.empty() && isSpace(line.front()))
            line.remove_prefix(1);
        if (line.empty() || line.front() == '#')
            continue;
        size_t eq = line.find('=');
        if (eq == std::string_view::npos || !validKey(line.substr(0, eq)))
            continue; // not an assignment: NetworkManager ignores such lines too
        std::string key(line.substr(0, eq));
        // A quoted value (or a backslash) may continue on the next lines:
        // scan the rest of the file once, then go on after the value's end.
        size_t valueStart = size_t(line.data() - text.data()) + eq + 1;
        std::string value;
        size_t consumed = 0;
        Scan r = scanValue(text.substr(valueStart), value, true, &consumed);
        size_t valueEnd = valueStart + consumed;
        while (i + 1 < lines.size() && size_t(lines[i + 1].data() - text.data()) <= valueEnd)
            i++;
        if (r != Scan::Ok)
            return Error(IBNM_ERROR_PARSE,
                         r == Scan::Incomplete
                             ? strprintf(_("%s: unterminated quote or trailing backslash"), key.c_str())
                             : strprintf(_("%s: the value is not a plain shell string (unquoted "
                                           "expansion or special character)"),
                                         key.c_str()))
                .withContext(strprintf("%s:%u", filename.c_str(), lineNo));
        vars.values_[key] = {value, lineNo};
    }
    return vars;
}

Result<ShellVars> ShellVars::load(const std::string &path)
{
    auto contents = readFileBounded(path, kMaxIfcfgSize);
    if (!contents)
        return std::move(contents).error();
    if (!contents->has_value())
        return Error(IBNM_ERROR_PARSE, strprintf(_("the file is larger than %zu bytes, the most an ifcfg file may have"),
                                                 kMaxIfcfgSize))
            .withContext(path);
    return parse(**contents, path);
}

const std::string *ShellVars::get(const std::string &key) const
{
    auto it = values_.find(key);
    return it == values_.end() ? nullptr : &it->second.first;
}

std::optional<std::string> ShellVars::getNonEmpty(const std::string &key) const
{
    const std::string *v = get(key);
    if (v == nullptr || v->empty())
        return std::nullopt;
    return *v;
}

bool ShellVars::getBool(const std::string &key, bool fallback) const
{
    auto v = getNonEmpty(key);
    if (!v)
        return fallback;
    std::string s = *v;
    for (auto &c : s)
        c = g_ascii_tolower(c);
    if (s == "yes" || s == "true" || s == "t" || s == "y" || s == "1")
        return true;
    if (s == "no" || s == "false" || s == "f" || s == "n" || s == "0")
        return false;
    return fallback;
}

unsigned ShellVars::line(const std::string &key) const
{
    auto it = values_.find(key);
    return it == values_.end() ? 0 : it->second.second;
}

} // namespace ibnm::settings
