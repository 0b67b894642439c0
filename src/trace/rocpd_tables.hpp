#pragma once
// What the rocpd reader's parts share: a set of tables of one suffix, and how to ask SQLite about
// columns that some schema variants lack.
#include <set>
#include <string>

#include <SQLiteCpp/SQLiteCpp.h>

namespace rpl::trace::detail {

/// One set of rocpd tables sharing a suffix ("_<uuid>"), or the unsuffixed views when there are no tables.
struct TableSet {
  std::string suffix;
  std::set<std::string> names;  // every table (or view) name of the set, suffix included
  bool has(const std::string& base) const { return names.count("rocpd_" + base + suffix) != 0; }
  std::string name(const std::string& base) const { return "\"rocpd_" + base + suffix + "\""; }
};

std::set<std::string> columns_of(SQLite::Database& db, const std::string& quoted_table);

/// "col" when the table has it, else a literal default, so one SELECT serves every schema variant.
std::string column_or(const std::set<std::string>& cols, const std::string& col, const std::string& fallback);

inline std::string text_or_empty(const SQLite::Column& c) { return c.isNull() ? std::string() : c.getString(); }

}  // namespace rpl::trace::detail
