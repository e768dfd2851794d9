#ifndef IMPORTER_CSQLITE_SHIM_H
#define IMPORTER_CSQLITE_SHIM_H
// Debian's libsqlite3 is compiled with both options; sqlite3.h hides their declarations unless
// they are defined before it is included.
#define SQLITE_ENABLE_SESSION 1
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>

// SQLITE_STATIC and SQLITE_TRANSIENT are function-pointer casts of integers, which Swift cannot import.
static inline sqlite3_destructor_type importer_sqlite_static(void) { return SQLITE_STATIC; }
static inline sqlite3_destructor_type importer_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_config is variadic, which Swift cannot call: one wrapper per option used.
/// Statement journals stay in memory up to `bytes`, then spill to a temporary file.
static inline int importer_sqlite_config_statement_journal_spill(int bytes) {
    return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes);
}
#endif
