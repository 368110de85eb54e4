#include <sqlite3.h>

/// `sqlite3_config` is variadic, which Swift cannot call: these wrappers call it with fixed arguments.
/// Both must run before SQLite is initialised (before the first connection opens); later they return SQLITE_MISUSE.

/// Turns off SQLite's memory statistics, which take a global mutex on every malloc and free.
static inline int tripline_sqlite3_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// `sqlite3_db_config` is variadic too: this sets one of its on/off options (`SQLITE_DBCONFIG_DEFENSIVE`,
/// `SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER`, …) and returns SQLITE_OK or an error code.
static inline int tripline_sqlite3_db_config_flag(sqlite3 *db, int op, int on) {
    int now = -1;
    return sqlite3_db_config(db, op, on, &now);
}
