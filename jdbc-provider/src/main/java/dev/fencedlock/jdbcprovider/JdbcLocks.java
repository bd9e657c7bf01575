package dev.fencedlock.jdbcprovider;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.jdbcprovider.internal.JdbcProviderFactory;
import dev.fencedlock.spi.LockClients;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Clients of the {@code jdbc} backend built from typed settings, with the same entry points as
 * every backend ({@code RedlockLocks}, {@code ZooKeeperLocks}):
 *
 * <ul>
 *   <li>{@link #create(JdbcLockSettings)}: typed settings, every common setting at its default;
 *   <li>{@link #create(LockConfig, JdbcLockSettings)}: {@code common} supplies the settings every
 *       backend shares (lease time, hold-time cap, fallback); its {@code fencedlock.backend} must
 *       be {@code jdbc}, and its {@code fencedlock.jdbc.*} keys are not read;
 *   <li>{@link #create(LockConfig, JdbcLockSettings, LockEventListener)}: as above, reporting to a
 *       listener;
 *   <li>{@link #create(LockConfig, DataSource)}: on the application's own (pooled) data source,
 *       the other settings read from {@code common}'s {@code fencedlock.jdbc.*} keys.
 * </ul>
 *
 * <pre>{@code
 * LockClient client = JdbcLocks.create(
 *         LockConfig.builder().backend("jdbc").leaseTime(Duration.ofSeconds(10)).build(),
 *         dataSource);
 * }</pre>
 *
 * <p>Configuration by keys alone ({@code fencedlock.backend=jdbc}, {@link LockClient#create},
 * {@link LockClient#fromEnvironment}) reaches the same backend with the same checks. A client never
 * closes a data source it was handed.
 *
 * <p>The {@code jdbc} backend: locks kept in a table of the application's own database (H2,
 * PostgreSQL, MariaDB), one row per lock name. The lock table must exist: run the Flyway migration
 * at {@value JdbcLockSettings#MIGRATION_LOCATION} (or the same SQL by hand).
 *
 * <p>The algorithm, with {@code now} always the <em>database's</em> clock in milliseconds:
 *
 * <ol>
 *   <li>The row of a name is keyed by the SHA-256 of the name, so no collation can make two names
 *       share a row; rows are created on first use and never deleted, so the token survives
 *       releases.
 *   <li>Acquire: one {@code UPDATE} takes the row if it has no holder or {@code expires_at <= now},
 *       writing a new random 128-bit holder value, {@code expires_at = now + lease} and {@code token
 *       = max(now << 16, token + 1)}; the token is read back by the holder value.
 *   <li>The client believes the lease valid until {@code start + lease - (1% + 2 ms)} on its
 *       monotonic clock, where {@code start} was read before the statement was sent. The database
 *       reads {@code now} after that, so the lease ends on the client no later than in the
 *       database.
 *   <li>Renewal and {@link dev.fencedlock.Lease#extend}: {@code expires_at = now + lease} where the
 *       holder value is still this lease's and {@code expires_at > now}; validity again counts
 *       from before the statement. No row updated means the lease is lost.
 *   <li>Release: {@code holder = NULL} where the holder value is this lease's, so a lease that was
 *       taken over cannot release its successor. On PostgreSQL the release is announced with
 *       {@code NOTIFY}.
 *   <li>Waiting: after a failed attempt the client pauses for the least of the time the current
 *       grant has left by the database's clock, a pause growing from 10 ms to the poll interval,
 *       and the wait left. A release by a client of this JVM, or a {@code NOTIFY} on PostgreSQL
 *       (received by one listening connection per client), ends the pause early.
 *   <li>Time bounds: each attempt (and each extension or release) runs within the per-attempt
 *       timeout {@code fencedlock.jdbc.operation-timeout} (default 2 s): the borrow of a connection,
 *       each statement's network timeout (what is left of it) and each statement's run time on the
 *       server. Attempts start only while the wait lasts, so an acquisition returns or throws within
 *       its wait plus that timeout. No statement waits for a row or table another transaction holds
 *       locked: the attempt counts the lock as taken, and nothing it sent can grant the lock later.
 *   <li>An attempt that sent its statement and got no answer (the reply lost or late) ends the
 *       attempt's server session and clears the grant in the background, in case it landed.
 * </ol>
 *
 * <p>Assumptions: the database's clock does not jump forward while leases are held (a jump
 * expires them early in the database while clients still believe them valid; the fence in the
 * database still refuses the stale holder's writes), and runs at about the client's rate (within
 * 1%). Tokens follow the one token order ({@code token >= now << 16}, above every earlier token of
 * the name), so they stay above other backends' tokens after a switch as long as the database's
 * clock agrees with the clocks of the clients that used the other backend. Each statement runs in
 * autocommit mode; READ COMMITTED or any stronger isolation level works.
 *
 * <p>Thread-safe.
 */
public final class JdbcLocks {
    /** The value of {@code fencedlock.backend} that selects this backend. */
    public static final String BACKEND = "jdbc";

    private JdbcLocks() {}

    /**
     * A client whose locks live in the table {@code settings} name, every common setting at its
     * default (lease time 30s).
     *
     * @throws IllegalArgumentException if the database answers and is not H2, PostgreSQL or MariaDB
     */
    public static LockClient create(JdbcLockSettings settings) {
        return create(LockConfig.builder().backend(BACKEND).build(), settings);
    }

    /**
     * A client whose locks live in the table {@code settings} name, with {@code common}'s lease
     * time, hold-time cap and fallback.
     *
     * @throws IllegalArgumentException if {@code common} names another backend, or the database
     *     answers and is not H2, PostgreSQL or MariaDB
     */
    public static LockClient create(LockConfig common, JdbcLockSettings settings) {
        requireThisBackend(common, settings);
        return LockClients.create(common, runtime -> JdbcProviderFactory.create(settings, runtime));
    }

    /** As {@link #create(LockConfig, JdbcLockSettings)}, reporting to {@code listener} (metrics, logs). */
    public static LockClient create(LockConfig common, JdbcLockSettings settings, LockEventListener listener) {
        requireThisBackend(common, settings);
        Objects.requireNonNull(listener, "listener");
        return LockClients.create(common, listener, runtime -> JdbcProviderFactory.create(settings, runtime));
    }

    /**
     * A client whose locks live in {@code dataSource}, with {@code common}'s lease time, hold-time
     * cap and {@code fencedlock.jdbc.*} keys but the URL, user and password. The client does not
     * close the data source.
     *
     * @throws IllegalArgumentException if {@code common} names another backend or also sets {@code
     *     fencedlock.jdbc.url}, or the database answers and is not H2, PostgreSQL or MariaDB
     */
    public static LockClient create(LockConfig common, DataSource dataSource) {
        Objects.requireNonNull(common, "common");
        return create(
                common,
                JdbcLockSettings.builder(common.settings(BACKEND))
                        .dataSource(dataSource)
                        .build());
    }

    private static void requireThisBackend(LockConfig common, JdbcLockSettings settings) {
        Objects.requireNonNull(common, "common");
        Objects.requireNonNull(settings, "settings");
        if (!BACKEND.equals(common.backend())) {
            throw new IllegalArgumentException(LockConfig.BACKEND + " must be '" + BACKEND
                    + "' for a client of JdbcLocks, got '" + common.backend() + "'");
        }
    }
}
