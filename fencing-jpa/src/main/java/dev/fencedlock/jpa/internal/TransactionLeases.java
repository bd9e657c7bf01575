package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.jpa.StaleFencingTokenException;
import dev.fencedlock.jpa.StaleFencingTokenException.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.engine.spi.TransactionCompletionCallbacks.AfterCompletionCallback;
import org.hibernate.engine.spi.TransactionCompletionCallbacks.BeforeCompletionCallback;

/**
 * Remembers which leases fenced writes of the current transaction of each session were flushed
 * under, and refuses the commit if any of them is no longer valid by then. The check runs in
 * Hibernate's before-completion phase, after the flush that commit performs and before the JDBC
 * commit; a refusal there makes Hibernate roll the transaction back.
 *
 * <p>Thread-safe. Sessions are held weakly, so a session whose transaction never completes does
 * not leak.
 */
final class TransactionLeases {
    private static final Map<SharedSessionContractImplementor, List<Lease>> BY_SESSION = new WeakHashMap<>();

    private TransactionLeases() {}

    /** Records that a fenced write of {@code session}'s current transaction used {@code lease}. */
    static void register(SharedSessionContractImplementor session, Lease lease) {
        List<Lease> leases;
        boolean first;
        synchronized (BY_SESSION) {
            leases = BY_SESSION.get(session);
            first = leases == null;
            if (first) {
                leases = new ArrayList<>(1);
                BY_SESSION.put(session, leases);
            }
            for (Lease known : leases) {
                if (known == lease) {
                    return;
                }
            }
            leases.add(lease);
        }
        if (first) {
            List<Lease> used = leases;
            var callbacks = session.getTransactionCompletionCallbacks();
            callbacks.registerCallback((BeforeCompletionCallback) s -> requireValid(used));
            callbacks.registerCallback((AfterCompletionCallback) (success, s) -> forget(s));
        }
    }

    private static void requireValid(List<Lease> used) {
        List<Lease> snapshot;
        synchronized (BY_SESSION) {
            snapshot = List.copyOf(used);
        }
        for (Lease lease : snapshot) {
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
