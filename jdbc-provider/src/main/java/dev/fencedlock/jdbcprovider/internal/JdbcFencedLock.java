package dev.fencedlock.jdbcprovider.internal;

import dev.fencedlock.LockException;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.NodeFailure;
import dev.fencedlock.spi.AbstractFencedLock;
import dev.fencedlock.spi.LeaseRequest;
import dev.fencedlock.spi.LeaseRuntime;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A lock of the jdbc backend. Acquisition, with {@code now} the database's clock:
 *
 * <ol>
 *   <li>note the client's monotonic time {@code start}, then in one {@code UPDATE} take the row if
 *       it has no holder or its grant expired ({@code expires_at <= now}): write a new random
 *       holder value, {@code expires_at = now + lease} and {@code token = max(now << 16, token + 1)};
 *   <li>if no row was taken because the lock has no row yet, insert it (free, token 0) and retry;
 *   <li>if it was taken, read the token back (the row is read in the same round trip on
 *       PostgreSQL); the lease is valid on the
 *       client's clock until {@code start + lease - drift}, which is no later than the database's
 *       {@code expires_at}, since the database read {@code now} after {@code start};
 *   <li>otherwise read how long the current grant has left, and wait for the smallest of that, the
 *       poll interval (growing from 10 ms), and the wait left; a release in this JVM, or a {@code
 *       NOTIFY} on PostgreSQL, ends the wait early. Then try again until the wait is spent.
 * </ol>
 *
 * <p>Each attempt runs within one operation timeout ({@link JdbcLockProvider#tryGrant}), so the call
 * ends within its wait plus that timeout. A row another transaction holds locked is "taken": the
 * attempt does not wait for it ({@link LockTable}). An attempt the database did not answer is a
 * failure: retried while the wait lasts, then {@link dev.fencedlock.LockUnavailableException}.
 *
 * <p>Thread-safe.
 */
final class JdbcFencedLock extends AbstractFencedLock {
    private static final long FIRST_BACKOFF_NANOS = 10_000_000L;

    private final JdbcLockProvider provider;
    private final String key;

    JdbcFencedLock(String name, LeaseRuntime runtime, JdbcLockProvider provider) {
        super(name, runtime);
        this.provider = provider;
        this.key = LockKeys.rowKey(name);
    }

    @Override
    protected Optional<JdbcLease> doAcquire(LeaseRequest request) throws InterruptedException {
        long leaseMillis = leaseMillis(request.leaseTime());
        long backoff = FIRST_BACKOFF_NANOS;
        try (ReleaseSignals.Ticket ticket = signals().ticket(provider.signalKey(key))) {
            while (true) {
                String holder = LockKeys.newHolder();
                long start = runtime().clock().nanoTime();
                SQLException failure = null;
                long heldForNanos = 0;
                try {
                    LockTable.Attempt attempt = provider.tryGrant(key, name(), holder, leaseMillis);
                    if (attempt.token().isPresent()) {
                        long validUntil = start + validity(request.leaseTime()).toNanos();
                        return Optional.of(new JdbcLease(
                                this,
                                key,
                                holder,
                                attempt.token().getAsLong(),
                                request.leaseTime(),
                                request.autoRenew(),
                                validUntil));
                    }
                    heldForNanos = attempt.heldForMillis() * 1_000_000L;
                    request.recordAttempt(
                            attempt.rowLocked()
                                    ? "another transaction holds the lock's row in " + provider.tableName()
                                            + " locked (not a lease: a query or migration); counted as taken"
                                    : "held by another lease for " + attempt.heldForMillis()
                                            + " ms more by the database's clock");
                } catch (SQLException e) {
                    if (Thread.interrupted()) {
                        throw new InterruptedException("interrupted while acquiring lock '" + name() + "'");
                    }
                    if (isSchemaError(e)) {
                        throw new LockException(
                                "Lock '" + name() + "': the lock table " + provider.tableName()
                                        + " is missing, not accessible or does not match this version; create it with the"
                                        + " Flyway migration at classpath:db/fencedlock/lock/migration ("
                                        + e.getMessage()
                                        + ")",
                                e);
                    }
                    failure = e;
                    request.recordAttempt("the database did not answer: " + e);
                }
                long waitLeft = request.remainingWaitNanos(runtime().clock().nanoTime());
                if (waitLeft <= 0) {
                    if (failure != null) {
                        throw unavailable(request.startNanos(), failure);
                    }
                    return Optional.empty();
                }
                long pause = provider.notified() ? provider.pollIntervalNanos() : backoff;
                if (heldForNanos > 0) {
                    pause = Math.min(pause, heldForNanos + 1_000_000L);
                }
                ticket.await(Math.min(waitLeft, jitter(pause)));
                backoff = Math.min(backoff * 2, provider.pollIntervalNanos());
            }
        }
    }

    /** SQLSTATE class 42: an unknown table or column, or no privilege on it, which no retry mends. */
    static boolean isSchemaError(SQLException e) {
        return e.getSQLState() != null && e.getSQLState().startsWith("42");
    }

    /** Between three quarters and all of {@code nanos}, so that waiters of many clients spread out. */
    private static long jitter(long nanos) {
        return nanos - ThreadLocalRandom.current().nextLong(nanos / 4 + 1);
    }

    /** The longest lease whose end the client's nanosecond clock can still express: about 73 years. */
    private static final Duration LONGEST_LEASE = Duration.ofNanos(Long.MAX_VALUE / 4);

    /**
     * The lease in whole milliseconds, at least one.
     *
     * @throws IllegalArgumentException if the lease is longer than about 73 years
     */
    /** The lease time less its {@link #validity}: 1% and 2 ms, in whole milliseconds. */
    @Override
    protected Duration validityAllowance(Duration leaseTime) {
        return leaseTime.compareTo(LONGEST_LEASE) > 0 ? Duration.ZERO : leaseTime.minus(validity(leaseTime));
    }

    static long leaseMillis(Duration leaseTime) {
        if (leaseTime.compareTo(LONGEST_LEASE) > 0) {
            throw new IllegalArgumentException(
                    "leaseTime must be at most " + LONGEST_LEASE.toDays() + " days, got " + leaseTime);
        }
        return Math.max(1, leaseTime.toMillis());
    }

    /**
     * How long the client may believe a grant valid, from the moment it sent the statement: the
     * lease less 1% and 2 ms, for the database's clock running slower than the client's and for
     * the database truncating its clock to whole milliseconds.
     */
    static Duration validity(Duration leaseTime) {
        long millis = leaseMillis(leaseTime);
        return Duration.ofMillis(millis - millis / 100 - 2);
    }

    LockUnavailableException unavailable(long startNanos, SQLException cause) {
        Duration elapsed = Duration.ofNanos(runtime().clock().nanoTime() - startNanos);
        return new LockUnavailableException(name(), elapsed, 1, 1, List.of(new NodeFailure(provider.node(), cause)));
    }

    JdbcLockProvider provider() {
        return provider;
    }

    ReleaseSignals signals() {
        return provider.signals();
    }

    LeaseRuntime runtimeOf() {
        return runtime();
    }
}
