package dev.fencedlock.jdbcprovider;

import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.BackendSettings;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import dev.fencedlock.spi.LockProviderFactory;
import java.util.Set;

/**
 * The {@code jdbc} backend: locks kept in a table of the application's own database (H2,
 * PostgreSQL, MariaDB), one row per lock name. Found by {@link java.util.ServiceLoader} for
 * {@code fencedlock.backend=jdbc} with the keys of {@link JdbcLockSettings}; {@link JdbcLocks}
 * builds clients on the application's own {@link javax.sql.DataSource}.
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
public final class JdbcProviderFactory implements LockProviderFactory {
    /** The value of {@code fencedlock.backend} that selects this provider. */
    public static final String BACKEND = "jdbc";

    @Override
    public String backend() {
        return BACKEND;
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
        return JdbcLocks.provider(JdbcLockSettings.from(config.settings(BACKEND)), runtime);
    }
}
