package dev.fencedlock.jdbcprovider;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.db.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Clients built by {@link JdbcLocks}, one on the URL of typed settings and one on the application's
 * pool, sharing one lock table on PostgreSQL.
 */
class JdbcLocksIT {

    @Test
    void clientsOfTheTypedFactoryExcludeEachOtherAndTheirTokensGrow() throws InterruptedException {
        try (TestDatabase database = TestDatabase.create(TestDatabase.Kind.POSTGRESQL, "jdbclocks", 4)
                .migrate(JdbcLockSettings.MIGRATION_LOCATION)) {
            JdbcLockSettings.Builder byUrl = JdbcLockSettings.builder()
                    .url(database.jdbcUrl())
                    .user(database.user())
                    .pollInterval(Duration.ofMillis(20));
            if (!database.password().isEmpty()) {
                byUrl.password(database.password());
            }
            LockConfig common = LockConfig.builder().backend(JdbcLocks.BACKEND).build();
            try (LockClient owned = JdbcLocks.create(byUrl.build());
                    LockClient pooled = JdbcLocks.create(common, database.dataSource())) {
                long firstToken;
                try (Lease held = owned.lock("typed:a").acquire(Duration.ofSeconds(5))) {
                    assertThat(pooled.lock("typed:a").tryAcquire(Duration.ZERO)).isEmpty();
                    firstToken = held.token();
                }
                try (Lease next = pooled.lock("typed:a").acquire(Duration.ofSeconds(5))) {
                    assertThat(next.token()).isGreaterThan(firstToken);
                    assertThat(owned.lock("typed:a").tryAcquire(Duration.ZERO)).isEmpty();
                }
            }
        }
    }
}
