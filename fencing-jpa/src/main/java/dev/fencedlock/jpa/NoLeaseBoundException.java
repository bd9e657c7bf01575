package dev.fencedlock.jpa;

import jakarta.persistence.PersistenceException;

/**
 * A fenced entity was inserted, updated or deleted on a thread with no lease bound: there is no
 * token to stamp, so the write is refused. Bind the lease with {@link Fencing#bind} around the
 * work (or use {@link Fencing#inTransaction}). This is a programming error, not a lost race: it
 * is not an {@link jakarta.persistence.OptimisticLockException} and retrying will not help. The
 * persistence provider marks the transaction for rollback.
 */
public class NoLeaseBoundException extends PersistenceException {
    private static final long serialVersionUID = 1L;

    public NoLeaseBoundException(String operation, String entity) {
        super("No lease is bound to thread '" + Thread.currentThread().getName() + "' for the " + operation + " of "
                + "fenced entity " + entity + "; wrap the work in Fencing.bind(lease) or Fencing.inTransaction(...)");
    }
}
