package dev.fencedlock.jdbcprovider;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.LockContractTest;
import dev.fencedlock.testkit.db.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The shared contract on one database: a private schema, migrated with the shipped migration,
 * with the clients on its pool. Breaking a lease clears the row's holder, as an operator deleting
 * the lock would.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JdbcContractTest extends LockContractTest {
    private final TestDatabase.Kind kind;
    private TestDatabase database;

    JdbcContractTest(TestDatabase.Kind kind) {
        this.kind = kind;
    }

    @BeforeAll
    void createSchema() {
        database = TestDatabase.create(kind, "jdbclock", 24).migrate(JdbcLockSettings.MIGRATION_LOCATION);
    }

    @AfterAll
    void dropSchema() {
        database.close();
    }

    @Override
    protected LockConfig.Builder configuration() {
        return LockConfig.builder().backend(JdbcLocks.BACKEND);
    }

    @Override
    protected LockClient createClient(LockConfig config) {
        return JdbcLocks.create(config, database.dataSource());
    }

    @Override
    protected void breakLease(Lease lease) {
        database.execute("UPDATE fencedlock_lock SET holder = NULL WHERE lock_name = ?", lease.lockName());
    }
}
