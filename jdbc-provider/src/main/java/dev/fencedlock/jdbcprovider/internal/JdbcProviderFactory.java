package dev.fencedlock.jdbcprovider.internal;

import dev.fencedlock.LockConfig;
import dev.fencedlock.jdbcprovider.JdbcLockSettings;
import dev.fencedlock.jdbcprovider.JdbcLocks;
import dev.fencedlock.spi.BackendSettings;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import dev.fencedlock.spi.LockProviderFactory;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The {@code jdbc} backend as {@link java.util.ServiceLoader} finds it for {@code
 * fencedlock.backend=jdbc}, and the door through which {@link JdbcLocks} builds providers from
 * typed settings. The algorithm and what it assumes are described on {@link JdbcLocks}.
 * Thread-safe.
 */
public final class JdbcProviderFactory implements LockProviderFactory {

    @Override
    public String backend() {
        return JdbcLocks.BACKEND;
    }

    @Override
    public Set<String> keys() {
        return JdbcLockSettings.KEYS;
    }

    /** Parses every value that was set; a missing URL is left to {@link #create}. */
    @Override
    public void validate(BackendSettings settings) {
        JdbcLockSettings.builder(settings);
    }

    /**
     * @throws IllegalArgumentException if {@code fencedlock.jdbc.url} is missing or a value is
     *     unusable, or the database answers and is not H2, PostgreSQL or MariaDB
     */
    @Override
    public LockProvider create(LockConfig config, LeaseRuntime runtime) {
        return create(JdbcLockSettings.from(config.settings(JdbcLocks.BACKEND)), runtime);
    }

    /**
     * A provider on the data source {@code settings} hand in, or on connections opened to their URL.
     *
     * @throws IllegalArgumentException if the database answers and is not H2, PostgreSQL or MariaDB
     */
    public static LockProvider create(JdbcLockSettings settings, LeaseRuntime runtime) {
        DataSource dataSource = settings.dataSource()
                .orElseGet(() -> new DriverManagerDataSource(
                        settings.url().orElseThrow(),
                        settings.user().orElse(null),
                        settings.password().orElse(null),
                        settings.operationTimeout()));
        String database = settings.url()
                .map(DriverManagerDataSource::maskUrl)
                .orElseGet(() -> "data source " + dataSource.getClass().getSimpleName());
        return new JdbcLockProvider(
                runtime,
                dataSource,
                settings.table(),
                database + " table " + settings.table(),
                settings.pollInterval(),
                settings.operationTimeout());
    }
}
