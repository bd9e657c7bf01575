package dev.fencedlock.testkit.faults;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.jdbcprovider.JdbcLockSettings;
import dev.fencedlock.jdbcprovider.JdbcLocks;
import dev.fencedlock.testkit.db.TestDatabase;
import org.junit.jupiter.api.AfterEach;

/**
 * The {@code jdbc} backend on one kind of database, its lock table and the application's data in
 * two schemas of it (each migrated by its own Flyway history).
 */
abstract class JdbcStaleHolders extends StaleHolderScenarios {
    private final TestDatabase.Kind kind;
    private TestDatabase locks;

    JdbcStaleHolders(TestDatabase.Kind kind) {
        this.kind = kind;
    }

    private TestDatabase locks() {
        if (locks == null) {
            locks = TestDatabase.create(kind, "stalelock", 6).migrate(JdbcLockSettings.MIGRATION_LOCATION);
        }
        return locks;
    }

    @AfterEach
    void closeLocks() {
        if (locks != null) {
            locks.close();
        }
    }

    @Override
    LockClient newClient() {
        return JdbcLocks.create(LockConfig.builder().backend(JdbcLocks.BACKEND).build(), locks().dataSource());
    }

    @Override
    StaleHolders staleHolders() {
        return StaleHolders.jdbc(
                JdbcLockSettings.builder().dataSource(locks().dataSource()).build());
    }

    @Override
    FencedStock newStock() {
        return new FencedStock(kind);
    }
}
