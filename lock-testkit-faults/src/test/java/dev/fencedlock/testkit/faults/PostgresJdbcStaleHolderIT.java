package dev.fencedlock.testkit.faults;

import dev.fencedlock.testkit.db.TestDatabase;

/** The {@code jdbc} backend and the data on PostgreSQL. */
class PostgresJdbcStaleHolderIT extends JdbcStaleHolders {
    PostgresJdbcStaleHolderIT() {
        super(TestDatabase.Kind.POSTGRESQL);
    }
}
