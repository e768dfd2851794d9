#ifndef IMPORTER_CSQLITE_SHIM_H
#define IMPORTER_CSQLITE_SHIM_H
// Debian's libsqlite3 is compiled with the preupdate hook; sqlite3.h hides its declarations unless
// this is defined before it is included.
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>

// SQLITE_STATIC and SQLITE_TRANSIENT are function-pointer casts of integers, which Swift cannot import.
static inline sqlite3_destructor_type importer_sqlite_static(void) { return SQLITE_STATIC; }
static inline sqlite3_destructor_type importer_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
