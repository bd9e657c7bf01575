package dev.fencedlock.shedlock;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.jdbcprovider.JdbcLockSettings;
import dev.fencedlock.jdbcprovider.JdbcLocks;
import dev.fencedlock.testkit.db.TestDatabase;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract on the jdbc backend, its lock table on PostgreSQL. */
class JdbcFencedLockProviderIT extends FencedLockProviderContract {
    private static TestDatabase database;

    @BeforeAll
    static void createSchema() {
        database = TestDatabase.create(TestDatabase.Kind.POSTGRESQL, "shedlock", 24)
                .migrate(JdbcLockSettings.MIGRATION_LOCATION);
    }

    @AfterAll
    static void dropSchema() {
        database.close();
    }

    @Override
    protected LockClient newClient() {
        return JdbcLocks.create(
                LockConfig.builder()
                        .backend("jdbc")
                        .set(JdbcLockSettings.POLL_INTERVAL, "20ms")
                        .build(),
                database.dataSource());
    }

    @Override
    protected Optional<String> minimumLease() {
        return Optional.of("3ms");
    }
}
