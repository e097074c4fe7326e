// SPDX-License-Identifier: LGPL-2.1-or-later
// The simulated host's journal: what keeps the cost of an operation on a
// persisted simulated host independent of the host's size.
//
// <dir>/state is a snapshot (a host description) whose second line names
// its journal ("# journal <id>"); <dir>/journal starts with the same id and
// holds one line per operation since the snapshot, appended with one
// write(2) under the state's flock. A reader replays only the lines it has
// not seen. Every few hundred operations (more on a larger host, so the
// cost stays constant per operation) the writer compacts: a new snapshot
// with a new id (written aside, renamed over), then a new journal with that
// id. A kill -9 at any point leaves a state that parses:
// - during an append: a last line without its newline, which readers
//   ignore and the next writer cuts off (the operation did not happen);
// - between the snapshot's rename and the new journal: the old journal's
//   id is not the snapshot's, so it is ignored (the snapshot holds it all).
#pragma once

#include "libcore/support/files.hpp"
#include "libcore/support/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibnm::platform::journal {

// How the simulator writes its state and journal files: mode 0644, replaced
// atomically but not durably (no fsync: a simulated host need not survive a
// power cut, and fsync made every simulated operation cost 5-10 ms).
inline const AtomicWriteOptions kSimulatorFile = [] {
    AtomicWriteOptions o;
    o.mode = 0644;
    o.durable = false;
    return o;
}();

// One mutating operation: the Platform method, its arguments, and whether
// it changed the state (a refused operation only counts).
struct Record {
    bool ok = false;
    std::string op;
    std::vector<std::string> args;
};

// One line, '\n'-terminated; fields are tab-separated and escaped
// (g_strescape), so any bytes round-trip.
std::string encode(const Record &r);
// nullopt when the line is not a record.
std::optional<Record> decode(std::string_view line);

// A new id, different in every process and every call.
std::string newId();
// The snapshot's second line for the id.
std::string snapshotLine(const std::string &id);
// The id the snapshot at path names: nullopt if there is no file, "" if it
// names none (a state file written before the journal existed).
Result<std::optional<std::string>> snapshotId(const std::string &path);

// What readFrom() found.
struct Tail {
    bool sameId = false; // the journal belongs to the snapshot id
    uint64_t end = 0;    // offset after the last whole line
    std::vector<Record> records;
};
// The whole lines after offset (0: from the start) of the journal at path,
// if it carries id.
Result<Tail> readFrom(const std::string &path, const std::string &id, uint64_t offset);
// Starts an empty journal for id (written aside, renamed over); returns
// the offset of its end.
Result<uint64_t> create(const std::string &path, const std::string &id);
// Appends line with one write(2) after cutting the file back to end (a
// torn last line left by a killed writer).
Status append(const std::string &path, uint64_t end, const std::string &line);

} // namespace ibnm::platform::journal
