#ifndef REELFARM_CSQLITE_SHIM_H
#define REELFARM_CSQLITE_SHIM_H
#include <sqlite3.h>
// SQLITE_TRANSIENT is a cast macro Swift cannot import.
static inline void (*CSQLite_TRANSIENT(void))(void *) { return SQLITE_TRANSIENT; }
#endif
