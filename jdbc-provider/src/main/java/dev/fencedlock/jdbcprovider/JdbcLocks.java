package dev.fencedlock.jdbcprovider;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.jdbcprovider.internal.JdbcLockProvider;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockClients;
import dev.fencedlock.spi.LockProvider;
import javax.sql.DataSource;

/**
 * Clients of the {@code jdbc} backend on the application's own (pooled) {@link DataSource}:
 *
 * <pre>{@code
 * LockClient client = JdbcLocks.create(
 *         LockConfig.builder().backend("jdbc").leaseTime(Duration.ofSeconds(10)).build(),
 *         dataSource);
 * }</pre>
 *
 * <p>The lock table must exist: run the Flyway migration at {@value
 * JdbcLockSettings#MIGRATION_LOCATION} (or the same SQL by hand). See {@link JdbcProviderFactory}
 * for the algorithm and what it assumes.
 */
public final class JdbcLocks {
    private JdbcLocks() {}

    /**
     * A client whose locks live in {@code dataSource}; {@code config} supplies the common settings
     * (lease time, hold-time cap) and any {@code fencedlock.jdbc.*} keys but the URL, user and
     * password. The client does not close the data source.
     *
     * @throws IllegalArgumentException if {@code config} also sets {@code fencedlock.jdbc.url}, or
     *     the database answers and is not H2, PostgreSQL or MariaDB
     */
    public static LockClient create(LockConfig config, DataSource dataSource) {
        JdbcLockSettings settings = JdbcLockSettings.builder(config.settings(JdbcProviderFactory.BACKEND))
                .dataSource(dataSource)
                .build();
        return create(config, settings);
    }

    /**
     * As {@link #create(LockConfig, DataSource)}, reporting to {@code listener} (metrics, logs); for
     * the Spring starter, whose jdbc backend uses the application's data source.
     */
    public static LockClient create(LockConfig config, DataSource dataSource, LockEventListener listener) {
        JdbcLockSettings settings = JdbcLockSettings.builder(config.settings(JdbcProviderFactory.BACKEND))
                .dataSource(dataSource)
                .build();
        return LockClients.create(config, listener, runtime -> provider(settings, runtime));
    }

    /**
     * A client whose locks live in the table {@code settings} names; {@code config} supplies the
     * common settings, its {@code fencedlock.jdbc.*} keys are not read.
     *
     * @throws IllegalArgumentException if the database answers and is not H2, PostgreSQL or MariaDB
     */
    public static LockClient create(LockConfig config, JdbcLockSettings settings) {
        return LockClients.create(config, runtime -> provider(settings, runtime));
    }

    static LockProvider provider(JdbcLockSettings settings, LeaseRuntime runtime) {
        return new JdbcLockProvider(
                runtime,
                settings.dataSource(),
                settings.table(),
                settings.describe(),
                settings.pollInterval(),
                settings.operationTimeout());
    }
}
