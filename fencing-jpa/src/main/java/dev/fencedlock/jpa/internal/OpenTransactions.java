package dev.fencedlock.jpa.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.jdbc.FenceTable;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.jpa.NoLeaseBoundException;
import dev.fencedlock.jpa.StaleFencingTokenException;
import java.sql.Connection;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The Hibernate transactions begun on the current thread and not yet completed, innermost last,
 * each with the lease its guard ran for (none if no lease was bound when it began). Fenced writes
 * ask here whether they run inside a fenced transaction: the entity listener before it stamps, the
 * statement inspector before a statement on a fenced table, and the session that prepares such a
 * statement, for its own transaction: with two sessions' transactions open on one thread, a write
 * counts as fenced only if the transaction it runs in is. Each thread has its own stack; an entry
 * is removed by identity, also when the transaction completes on another thread.
 */
final class OpenTransactions {
    private static final ThreadLocal<Deque<Entry>> OPEN = ThreadLocal.withInitial(ArrayDeque::new);

    /** One open transaction. */
    static final class Entry {
        private final Deque<Entry> stack;
        private final Lease lease;
        /** The fenced transaction's steps on the session's connection; null until its guard began. */
        private FencedTransaction fenced;

        private Entry(Deque<Entry> stack, Lease lease) {
            this.stack = stack;
            this.lease = lease;
        }

        /** The lease the guard ran for, null if the transaction began with no lease bound. */
        Lease lease() {
            return lease;
        }

        /** The fenced transaction's steps, null until its guard began. */
        FencedTransaction fenced() {
            return fenced;
        }

        /** Records the fenced transaction whose guard entered, or is deferred to the first statement. */
        void guarded(FencedTransaction fenced) {
            this.fenced = fenced;
        }

        /** Removes this entry from the stack of the thread that began the transaction. Idempotent. */
        void end() {
            synchronized (stack) {
                stack.removeLastOccurrence(this);
            }
        }
    }

    /** The fenced write of the statement being prepared on this thread, until its session takes it. */
    private static final ThreadLocal<String> PREPARING = new ThreadLocal<>();

    private OpenTransactions() {}

    /**
     * Records that the statement about to be prepared on this thread writes a fenced table ({@code
     * what} describes it), or that it does not ({@code null}). The session that prepares it takes
     * it with {@link #takePreparedWrite} and checks it against its own transaction.
     */
    static void preparing(String what) {
        if (what == null) {
            PREPARING.remove();
        } else {
            PREPARING.set(what);
        }
    }

    /** The fenced write recorded by {@link #preparing}, null if none; cleared. */
    static String takePreparedWrite() {
        String what = PREPARING.get();
        if (what != null) {
            PREPARING.remove();
        }
        return what;
    }

    /** Records a transaction begun on this thread; {@code lease} is null when it is not fenced. */
    static Entry begin(Lease lease) {
        Deque<Entry> stack = OPEN.get();
        Entry entry = new Entry(stack, lease);
        synchronized (stack) {
            stack.addLast(entry);
        }
        return entry;
    }

    /**
     * The fenced transaction fencing-jpa began for {@code lease} in {@code table} on {@code
     * connection}, if that is the innermost transaction open on this thread: for a caller about to
     * fence the transaction just begun on that connection (the Spring starter, for a JPA transaction
     * manager), which then runs the same steps through it instead of a second guard.
     *
     * @return empty if fencing-jpa fences no such transaction (no transaction, no lease bound when
     *     it began, another lease, table or connection): the caller must fence it itself
     */
    public static Optional<FencedTransaction> fenceOf(Connection connection, FenceTable table, Lease lease) {
        Entry innermost;
        Deque<Entry> stack = OPEN.get();
        synchronized (stack) {
            innermost = stack.peekLast();
        }
        if (innermost == null || innermost.fenced == null || !innermost.fenced.fences(lease, table, connection)) {
            return Optional.empty();
        }
        return Optional.of(innermost.fenced);
    }

    /**
     * The lease a write on this thread is fenced by: the bound lease, which must be the one the
     * innermost open transaction's guard ran for and must still be valid.
     *
     * @param what the write, for the messages ("insert of entity x.Item", "statement on table t")
     * @throws NoLeaseBoundException if no lease is bound
     * @throws IllegalStateException if no transaction is open on this thread, or its guard ran for
     *     another lease or none (the lease was bound after the transaction began)
     * @throws StaleFencingTokenException if the lease is no longer valid
     */
    public static Lease requireFenced(String what) {
        Entry innermost;
        Deque<Entry> stack = OPEN.get();
        synchronized (stack) {
            innermost = stack.peekLast();
        }
        return requireFenced(what, innermost);
    }

    /**
     * Like {@link #requireFenced(String)}, for a write known to run in {@code transaction} (of the
     * session that writes), whatever other transactions are open on the thread.
     *
     * @param transaction the writing session's open transaction, null if it has none
     */
    static Lease requireFenced(String what, Entry transaction) {
        Lease bound = LeaseBinding.current().orElseThrow(() -> new NoLeaseBoundException(what));
        if (transaction == null) {
            throw new IllegalStateException("The " + what + " runs outside a transaction begun on thread '"
                    + Thread.currentThread().getName() + "'; fenced writes need a transaction begun while the "
                    + "lease is bound (Fencing.bind before begin, or Fencing.inTransaction)");
        }
        if (transaction.lease != bound) {
            throw new IllegalStateException("The " + what + " runs in a transaction that began "
                    + (transaction.lease == null
                            ? "with no lease bound"
                            : "under the lease of lock '" + transaction.lease.lockName() + "' with token "
                                    + transaction.lease.token())
                    + ", but the lease of lock '" + bound.lockName() + "' with token " + bound.token()
                    + " is bound now. The fence guard runs when the transaction begins: bind the lease "
                    + "(Fencing.bind) before beginning the transaction, or use Fencing.inTransaction");
        }
        if (!bound.isValid()) {
            throw Refusals.leaseNotValid(bound, "before the " + what);
        }
        return bound;
    }
}
