package dev.fencedlock.jdbcprovider;

import dev.fencedlock.testkit.db.TestDatabase;

/** The shared contract with the lock table on MariaDb. */
class MariaDbContractIT extends JdbcContractTest {
    MariaDbContractIT() {
        super(TestDatabase.Kind.MARIADB);
    }
}
