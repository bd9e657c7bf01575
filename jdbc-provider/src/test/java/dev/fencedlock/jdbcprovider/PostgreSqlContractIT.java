package dev.fencedlock.jdbcprovider;

import dev.fencedlock.testkit.db.TestDatabase;

/** The shared contract with the lock table on PostgreSql. */
class PostgreSqlContractIT extends JdbcContractTest {
    PostgreSqlContractIT() {
        super(TestDatabase.Kind.POSTGRESQL);
    }
}
