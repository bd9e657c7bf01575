package dev.fencedlock.jdbcprovider;

import dev.fencedlock.testkit.db.TestDatabase;

/** The shared contract with the lock table on H2. */
class H2ContractIT extends JdbcContractTest {
    H2ContractIT() {
        super(TestDatabase.Kind.H2);
    }
}
