package dev.fencedlock.faults.jdbc;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.jdbcprovider.JdbcLockSettings;
import dev.fencedlock.jdbcprovider.JdbcLocks;
import java.time.Duration;
import javax.sql.DataSource;

/** Clients of the jdbc backend for the fault scenarios. */
final class JdbcClients {
    /** Short enough that a renewal stuck on a dead link gives up well within a lease. */
    static final Duration OPERATION_TIMEOUT = Duration.ofMillis(500);

    private JdbcClients() {}

    /** The jdbc backend's configuration, polling every 50 ms while it waits. */
    static LockConfig.Builder config(Duration leaseTime) {
        return LockConfig.builder()
                .backend("jdbc")
                .leaseTime(leaseTime)
                .set(JdbcLockSettings.POLL_INTERVAL, "50ms")
                .set(JdbcLockSettings.OPERATION_TIMEOUT, OPERATION_TIMEOUT);
    }

    /** A client on {@code dataSource}. */
    static LockClient on(DataSource dataSource, Duration leaseTime) {
        return JdbcLocks.create(config(leaseTime).build(), dataSource);
    }

    /** A client configured by keys alone, opening every connection to {@code url}. */
    static LockClient at(String url, String user, String password, Duration leaseTime) {
        LockConfig.Builder config =
                config(leaseTime).set(JdbcLockSettings.URL, url).set(JdbcLockSettings.USER, user);
        if (!password.isEmpty()) {
            config.set(JdbcLockSettings.PASSWORD, password);
        }
        return LockClient.create(config.build());
    }
}
