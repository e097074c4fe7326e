// SPDX-License-Identifier: LGPL-2.1-or-later
// A small extractor for ttar, the text archive format of Prometheus' procfs
// test fixtures: records separated by "# ttar - ..." lines, each one of
//   Directory: PATH / Mode: OCTAL
//   Path: PATH / Lines: N / N content lines / Mode: OCTAL
//   Path: PATH / SymlinkTo: TARGET
// A last content line ending in "EOF" has no newline in the file; "NULLBYTE"
// stands for a NUL byte. Tests only: the library never reads ttar.
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace ibnm::test {

// Unpacks `archive` under `dir`; returns an empty string or what went wrong.
inline std::string extractTtar(const std::string &archive, const std::string &dir)
{
    std::ifstream in(archive);
    if (!in)
        return "cannot open " + archive;
    std::string line, path;
    auto full = [&](const std::string &rel) { return dir + "/" + rel; };
    auto parentDir = [&](const std::string &p) {
        char *d = g_path_get_dirname(p.c_str());
        g_mkdir_with_parents(d, 0755);
        g_free(d);
    };
    while (std::getline(in, line)) {
        if (line.rfind("# ttar", 0) == 0 || line.empty())
            continue;
        if (line.rfind("Directory: ", 0) == 0) {
            path = line.substr(11);
            g_mkdir_with_parents(full(path).c_str(), 0755);
        } else if (line.rfind("Path: ", 0) == 0) {
            path = line.substr(6);
        } else if (line.rfind("Lines: ", 0) == 0) {
            long n = std::stol(line.substr(7));
            std::string contents;
            for (long i = 0; i < n; i++) {
                if (!std::getline(in, line))
                    return "truncated archive at " + path;
                size_t pos;
                while ((pos = line.find("NULLBYTE")) != std::string::npos)
                    line.replace(pos, 8, std::string(1, '\0'));
                if (i == n - 1 && line.size() >= 3 && line.compare(line.size() - 3, 3, "EOF") == 0)
                    contents += line.substr(0, line.size() - 3);
                else
                    contents += line + "\n";
            }
            parentDir(full(path));
            std::ofstream(full(path), std::ios::binary) << contents;
        } else if (line.rfind("SymlinkTo: ", 0) == 0) {
            parentDir(full(path));
            if (::symlink(line.substr(11).c_str(), full(path).c_str()) != 0)
                return "cannot create symlink " + path;
        } else if (line.rfind("Mode: ", 0) == 0) {
            g_chmod(full(path).c_str(), static_cast<int>(std::stol(line.substr(6), nullptr, 8)));
        } else {
            return "unexpected line: " + line;
        }
    }
    return {};
}

} // namespace ibnm::test
