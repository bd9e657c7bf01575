package dev.fencedlock.jpa;

import dev.fencedlock.FenceRefusedException;
import jakarta.persistence.PersistenceException;
import java.util.ServiceLoader;

/**
 * A fenced entity or table was written on a thread with no lease bound: there is no token to stamp
 * and no fence guard ran, so the write is refused. Bind the lease with {@link Fencing#bind} before
 * the transaction begins (or use {@link Fencing#inTransaction}; an integration may name its own way,
 * {@link NoLeaseAdvice}). This is a programming error, not a lost race: it is not an {@link
 * jakarta.persistence.OptimisticLockException} and retrying will not help. The persistence provider
 * marks the transaction for rollback. Its cause is the core {@link FenceRefusedException} with
 * reason {@link FenceRefusedException.Reason#NO_LEASE_BOUND}.
 */
public class NoLeaseBoundException extends PersistenceException {
    private static final long serialVersionUID = 1L;

    /** @param write what was refused, for example "update of fenced entity x.Item" */
    public NoLeaseBoundException(String write) {
        super(
                message(write),
                new FenceRefusedException(
                        FenceRefusedException.Reason.NO_LEASE_BOUND,
                        null,
                        FenceRefusedException.NO_TOKEN,
                        null,
                        message(write),
                        null));
    }

    /** Also the core refusal's detail, so that the root cause of a wrapped failure names the fix too. */
    private static String message(String write) {
        return "No lease is bound to thread '" + Thread.currentThread().getName() + "' for the " + write + "; "
                + Advice.TEXT;
    }

    /** The core refusal: this exception's cause. */
    public FenceRefusedException refusal() {
        return (FenceRefusedException) getCause();
    }

    /** The advice of the first {@link NoLeaseAdvice} on the class path, else fencing-jpa's own. */
    private static final class Advice {
        static final String TEXT = ServiceLoader.load(NoLeaseAdvice.class, NoLeaseAdvice.class.getClassLoader())
                .findFirst()
                .map(NoLeaseAdvice::advice)
                .orElse("bind it with Fencing.bind(lease) before the transaction begins, or use"
                        + " Fencing.inTransaction(...)");
    }
}
