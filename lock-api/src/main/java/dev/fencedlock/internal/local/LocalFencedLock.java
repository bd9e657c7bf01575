package dev.fencedlock.internal.local;

import dev.fencedlock.spi.AbstractFencedLock;
import dev.fencedlock.spi.AbstractLease;
import dev.fencedlock.spi.LeaseRequest;
import dev.fencedlock.spi.LeaseRuntime;
import java.time.Duration;
import java.util.Optional;

/** A lock of the in-process {@code local} backend. */
final class LocalFencedLock extends AbstractFencedLock {
    private final LocalLockTable table;

    LocalFencedLock(String name, LeaseRuntime runtime, LocalLockTable table) {
        super(name, runtime);
        this.table = table;
    }

    @Override
    protected Optional<? extends AbstractLease> doAcquire(LeaseRequest request) throws InterruptedException {
        LocalLockTable.Grant grant = table.acquire(
                name(),
                request.leaseTime().toNanos(),
                request.deadlineNanos(),
                runtime().clock()::nanoTime);
        if (grant == null) {
            request.recordAttempt("held by another lease");
            return Optional.empty();
        }
        return Optional.of(new LocalLease(this, grant, request));
    }

    private final class LocalLease extends AbstractLease {
        private final Object holder;

        LocalLease(LocalFencedLock lock, LocalLockTable.Grant grant, LeaseRequest request) {
            super(
                    lock.name(),
                    grant.token(),
                    request.leaseTime(),
                    request.autoRenew(),
                    grant.expiresAtNanos(),
                    lock.runtime());
            this.holder = grant.holder();
            table.onForcedExpiry(lockName(), holder, () -> markLost("its lease time ran out (forced by a test)", null));
        }

        @Override
        protected Optional<Duration> doExtend(Duration leaseTime) {
            boolean extended = table.extend(
                    lockName(), holder, leaseTime.toNanos(), runtime().clock().nanoTime());
            return extended ? Optional.of(leaseTime) : Optional.empty();
        }

        @Override
        protected void doRelease() {
            table.release(lockName(), holder);
        }
    }
}
