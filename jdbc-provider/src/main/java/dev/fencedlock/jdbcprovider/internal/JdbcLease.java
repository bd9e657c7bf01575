package dev.fencedlock.jdbcprovider.internal;

import dev.fencedlock.spi.AbstractLease;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * A grant of the jdbc backend: the lock row's {@code holder} value that only this grant knows.
 * Extension and release compare on it, so a lease that was taken over can neither extend nor
 * release its successor's grant.
 */
final class JdbcLease extends AbstractLease {
    private final JdbcFencedLock lock;
    private final String key;
    private final String holder;

    JdbcLease(
            JdbcFencedLock lock,
            String key,
            String holder,
            long token,
            Duration leaseTime,
            boolean autoRenew,
            long validUntilNanos) {
        super(lock.name(), token, leaseTime, autoRenew, validUntilNanos, lock.runtimeOf());
        this.lock = lock;
        this.key = key;
        this.holder = holder;
    }

    /** The holder value in the lock row while this lease holds it; for tests that break leases. */
    String holder() {
        return holder;
    }

    @Override
    protected Optional<Duration> doExtend(Duration leaseTime) {
        long start = lock.runtimeOf().clock().nanoTime();
        try {
            long leaseMillis = JdbcFencedLock.leaseMillis(leaseTime);
            // an extension may wait for the row (bounded): a contender's grant attempt holds it briefly
            if (!lock.provider().call(true, (table, session) -> table.extend(session, key, holder, leaseMillis))) {
                return Optional.empty();
            }
        } catch (SQLException e) {
            throw lock.unavailable(start, e);
        }
        return Optional.of(JdbcFencedLock.validity(leaseTime));
    }

    @Override
    protected void doRelease() {
        long start = lock.runtimeOf().clock().nanoTime();
        try {
            // a release may wait for a row another transaction holds (bounded): landing late does no harm
            if (lock.provider().call(true, (table, session) -> table.release(session, key, holder))) {
                lock.signals().signal(lock.provider().signalKey(key));
            }
        } catch (SQLException e) {
            throw lock.unavailable(start, e);
        }
    }
}
