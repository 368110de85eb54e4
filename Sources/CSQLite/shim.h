#include <sqlite3.h>

/// `sqlite3_config` is variadic, which Swift cannot call: these wrappers call it with fixed arguments.
/// Both must run before SQLite is initialised (before the first connection opens); later they return SQLITE_MISUSE.

/// Turns off SQLite's memory statistics, which take a global mutex on every malloc and free.
static inline int tripline_sqlite3_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
