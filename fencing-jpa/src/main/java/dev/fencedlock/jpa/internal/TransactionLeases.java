package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.jpa.StaleFencingTokenException;
import dev.fencedlock.jpa.StaleFencingTokenException.Reason;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.engine.spi.TransactionCompletionCallbacks.AfterCompletionCallback;
import org.hibernate.engine.spi.TransactionCompletionCallbacks.BeforeCompletionCallback;

/**
 * Remembers which leases fenced writes of the current transaction of each session were flushed
 * under, and checks them at commit, in Hibernate's before-completion phase (after the flush that
 * commit performs, before the JDBC commit; a refusal there makes Hibernate roll the transaction
 * back):
 *
 * <ol>
 *   <li>every lease must still be valid;
 *   <li>with the {@link LockFence} on, each lock's fence row is advanced to the lease's token, in
 *       the order of lock name and token, so that two transactions advancing several rows take them
 *       in the same order;
 *   <li>every lease must still be valid: advancing may have waited for another transaction.
 * </ol>
 *
 * <p>Thread-safe. Sessions are held weakly, so a session whose transaction never completes does
 * not leak.
 */
final class TransactionLeases {
    private static final Map<SharedSessionContractImplementor, Used> BY_SESSION = new WeakHashMap<>();
    private static final Comparator<Lease> LOCK_ORDER =
            Comparator.comparing(Lease::lockName).thenComparingLong(Lease::token);

    /** The leases of one transaction and the lock fence of its session factory. */
    private static final class Used {
        final List<Lease> leases = new ArrayList<>(1);
        final LockFence fence;

        Used(LockFence fence) {
            this.fence = fence;
        }
    }

    private TransactionLeases() {}

    /** Records that a fenced write of {@code session}'s current transaction used {@code lease}. */
    static void register(SharedSessionContractImplementor session, Lease lease, LockFence fence) {
        Used used;
        boolean first;
        synchronized (BY_SESSION) {
            used = BY_SESSION.get(session);
            first = used == null;
            if (first) {
                used = new Used(fence);
                BY_SESSION.put(session, used);
            }
            for (Lease known : used.leases) {
                if (known == lease) {
                    return;
                }
            }
            used.leases.add(lease);
        }
        if (first) {
            Used registered = used;
            var callbacks = session.getTransactionCompletionCallbacks();
            callbacks.registerCallback((BeforeCompletionCallback) s -> beforeCommit(s, registered));
            callbacks.registerCallback((AfterCompletionCallback) (success, s) -> forget(s));
        }
    }

    private static void beforeCommit(SharedSessionContractImplementor session, Used used) {
        List<Lease> leases;
        synchronized (BY_SESSION) {
            leases = new ArrayList<>(used.leases);
        }
        requireValid(leases);
        if (used.fence.isOn()) {
            leases.sort(LOCK_ORDER);
            for (Lease lease : leases) {
                used.fence.advance(session, lease);
            }
            requireValid(leases);
        }
    }

    private static void requireValid(List<Lease> leases) {
        for (Lease lease : leases) {
            if (!lease.isValid()) {
                throw new StaleFencingTokenException(
                        Reason.LEASE_NOT_VALID,
                        lease.lockName(),
                        null,
                        null,
                        null,
                        lease.token(),
                        null,
                        "the lease was no longer valid at commit; the transaction is rolled back",
                        null);
            }
        }
    }

    private static void forget(SharedSessionContractImplementor session) {
        synchronized (BY_SESSION) {
            BY_SESSION.remove(session);
        }
    }
}
