package dev.fencedlock.jpa;

import dev.fencedlock.Lease;

/**
 * A lease bound to the current thread by {@link Fencing#bind(Lease)}, until {@link #close()}.
 *
 * <p>While the scope is open, transactions begun on this thread run the fence guard for the lease
 * as their first statement, and fenced entities written in them are stamped with its token. Scopes
 * nest: an inner {@code bind} takes over until it closes, then the outer lease applies again.
 * Scopes must be closed innermost first and on the thread that opened them (try-with-resources does
 * both). Open the scope before the transaction begins: a write in a transaction that began under
 * another lease, or none, is refused.
 *
 * <p>Closing the scope does not release the lease and does not end a transaction: fenced changes
 * flushed later (for example at a commit after the scope closed) need the same lease bound then.
 * The lease must still be valid when its transaction commits.
 *
 * <p>Not thread-safe: a scope belongs to the thread that opened it.
 */
public final class FencingScope implements AutoCloseable {
    private final Lease lease;
    private final Runnable unbind;
    private boolean closed;

    FencingScope(Lease lease, Runnable unbind) {
        this.lease = lease;
        this.unbind = unbind;
    }

    /** The bound lease. */
    public Lease lease() {
        return lease;
    }

    /**
     * Unbinds the lease; the binding that was current before this scope opened is current again.
     * Idempotent.
     *
     * @throws IllegalStateException if called on another thread than the one that opened the
     *     scope, or while a scope opened inside this one is still open; the binding is then left
     *     unchanged
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        unbind.run();
        closed = true;
    }
}
