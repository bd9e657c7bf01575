package dev.fencedlock.spring.internal;

import dev.fencedlock.jpa.NoLeaseAdvice;

/**
 * fencing-jpa's advice for a fenced entity written without a lease, in the starter's terms: the
 * lease comes from {@code @Locked} or {@code FencedTransactions}, not from {@code Fencing.bind}.
 * Registered through {@code META-INF/services}; loaded only when fencing-jpa is present.
 */
public final class SpringNoLeaseAdvice implements NoLeaseAdvice {
    @Override
    public String advice() {
        return "write it in a method annotated @Locked(\"<lock name>\") @Transactional (dev.fencedlock.spring.Locked),"
                + " or in fencedTransactions.run(lockName, waitTime, status -> ...) (dev.fencedlock.spring"
                + ".FencedTransactions), so that the lock is taken before the transaction begins";
    }
}
