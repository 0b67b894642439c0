#include <rpl/trace/rocpd_counters.hpp>

#include <map>

#include <SQLiteCpp/SQLiteCpp.h>

#include <rpl/core/error.hpp>

namespace rpl::trace {

CounterStoreResult store_counters(const std::filesystem::path& database, const std::vector<CounterSample>& samples,
                                  const std::string& component) {
  CounterStoreResult result;
  try {
    SQLite::Database db(database.string(), SQLite::OPEN_READWRITE);
    std::string suffix;
    {
      SQLite::Statement st(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_kernel_dispatch%' "
                               "ORDER BY name LIMIT 1");
      if (!st.executeStep()) fail(Errc::bad_input, "{}: no rocpd_kernel_dispatch table to add counters to", database.string());
      suffix = st.getColumn(0).getString().substr(std::string("rocpd_kernel_dispatch").size());
    }
    auto table = [&](const char* name) { return "\"rocpd_" + std::string(name) + suffix + "\""; };
    SQLite::Transaction transaction(db);

    // Dispatches of each kernel in start order: the n-th is the kernel's n-th launch.
    std::map<std::string, std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>>> launches;
    {
      // A new event row keeps the dispatch's correlation id (the tracer's is in extdata): the DAG orders by it.
      SQLite::Statement st(db, "SELECT s.kernel_name, d.id, d.nid, d.pid, d.agent_id, d.event_id,"
                               " coalesce(json_extract(d.extdata, '$.correlation_id'), d.id) FROM " +
                                   table("kernel_dispatch") + " d JOIN " + table("info_kernel_symbol") +
                                   " s ON s.id = d.kernel_id ORDER BY d.start, d.id");
      while (st.executeStep()) {
        launches[st.getColumn(0).getString()].emplace_back(st.getColumn(1).getInt64(), st.getColumn(2).getInt64(),
                                                           st.getColumn(3).getInt64(), st.getColumn(4).getInt64(),
                                                           st.getColumn(5).isNull() ? 0 : st.getColumn(5).getInt64(),
                                                           st.getColumn(6).getInt64());
      }
    }
    const int64_t first_pmc = db.execAndGet("SELECT coalesce(max(id), 0) FROM " + table("info_pmc")).getInt64() + 1;
    int64_t next_event = db.execAndGet("SELECT coalesce(max(id), 0) FROM " + table("event")).getInt64() + 1;
    std::map<std::string, int64_t> pmc_ids;
    SQLite::Statement add_pmc(db, "INSERT INTO " + table("info_pmc") +
                                      " (id, nid, pid, agent_id, target_arch, name, symbol, description, component, units,"
                                      " value_type, is_constant, is_derived) VALUES (?,?,?,?,'GPU',?,?,'',?,?,'ABS',0,0)");
    SQLite::Statement add_event(db, "INSERT INTO " + table("event") + " (id, stack_id, parent_stack_id, correlation_id) "
                                                                       "VALUES (?,?,?,0)");
    SQLite::Statement link(db, "UPDATE " + table("kernel_dispatch") + " SET event_id = ? WHERE id = ?");
    SQLite::Statement add_value(db, "INSERT INTO " + table("pmc_event") + " (event_id, pmc_id, value) VALUES (?,?,?)");
    std::map<int64_t, int64_t> dispatch_events;  // dispatch id -> event id
    for (const auto& s : samples) {
      auto it = launches.find(s.kernel);
      if (it == launches.end() || s.launch >= it->second.size()) {
        ++result.unmatched;
        continue;
      }
      auto [dispatch, nid, pid, agent, event, correlation] = it->second[s.launch];
      auto [pmc, inserted] = pmc_ids.try_emplace(s.metric, first_pmc + static_cast<int64_t>(pmc_ids.size()));
      if (inserted) {
        add_pmc.bind(1, pmc->second);
        add_pmc.bind(2, nid);
        add_pmc.bind(3, pid);
        add_pmc.bind(4, agent);
        add_pmc.bind(5, s.metric);
        add_pmc.bind(6, s.metric);
        add_pmc.bind(7, component);
        add_pmc.bind(8, s.unit);
        add_pmc.exec();
        add_pmc.reset();
      }
      if (event == 0) {
        auto [e, fresh] = dispatch_events.try_emplace(dispatch, next_event);
        if (fresh) {
          ++next_event;
          add_event.bind(1, e->second);
          add_event.bind(2, correlation);
          add_event.bind(3, correlation);
          add_event.exec();
          add_event.reset();
          link.bind(1, e->second);
          link.bind(2, dispatch);
          link.exec();
          link.reset();
        }
        event = e->second;
      }
      add_value.bind(1, event);
      add_value.bind(2, pmc->second);
      add_value.bind(3, s.value);
      add_value.exec();
      add_value.reset();
      ++result.stored;
    }
    transaction.commit();
  } catch (const SQLite::Exception& e) {
    fail(Errc::bad_input, "{}: cannot add counters: {}", database.string(), e.what());
  }
  return result;
}

}  // namespace rpl::trace
