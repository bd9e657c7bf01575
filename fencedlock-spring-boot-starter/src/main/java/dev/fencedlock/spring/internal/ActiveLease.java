package dev.fencedlock.spring.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.FencedWriteRefusedException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The lease a locked call runs under on the current thread, and whether one of the transactions it
 * fences is still open. Confined to one thread: the transaction machinery that reads it runs on the
 * thread that began the transaction.
 */
final class ActiveLease {
    private static final ThreadLocal<Deque<ActiveLease>> CURRENT = ThreadLocal.withInitial(ArrayDeque::new);

    private final Lease lease;
    private final LockedObservations observations;
    private boolean transactionOpen;
    /** fencing-jpa's binding of the lease; null without fencing-jpa, or while suspended. */
    private AutoCloseable jpaScope;

    private boolean jpaSuspended;
    private boolean beginning;
    private FencedWriteRefusedException refusedAtCommit;
    /** Of the open (or last) transaction: whether its commit was sent, and what failed before it. */
    private boolean commitSent;

    private RuntimeException commitFailure;

    private ActiveLease(Lease lease, LockedObservations observations) {
        this.lease = lease;
        this.observations = observations;
    }

    /**
     * Makes {@code lease} the current thread's lease, and binds it for fencing-jpa's entity stamping
     * when fencing-jpa is present, until {@link #close()}; calls nest.
     */
    static ActiveLease open(Lease lease, LockedObservations observations) {
        ActiveLease active = new ActiveLease(lease, observations);
        CURRENT.get().push(active);
        try {
            active.jpaScope = JpaBinding.PRESENT ? JpaBinding.bind(lease) : null;
        } catch (RuntimeException | Error e) {
            active.close();
            throw e;
        }
        return active;
    }

    /**
     * Makes {@code lease} current and bound for fencing-jpa's entity stamping until the returned
     * handle is closed, on this thread; for {@link dev.fencedlock.spring.CurrentLease#bind}.
     */
    public static AutoCloseable bind(Lease lease) {
        return open(lease, LockedObservations.NONE)::close;
    }

    /** The innermost lease of a locked call running on this thread; empty outside any. */
    public static Optional<ActiveLease> current() {
        return Optional.ofNullable(CURRENT.get().peek());
    }

    /**
     * The leases bound on this thread, one per lock: for a lock bound more than once, the innermost
     * binding's lease. Outermost lock first; empty outside any binding. A snapshot: later bindings
     * do not change it.
     */
    static List<Lease> carried() {
        Deque<ActiveLease> stack = CURRENT.get();
        if (stack.isEmpty()) {
            return List.of();
        }
        Map<String, Lease> byLock = new LinkedHashMap<>();
        for (Iterator<ActiveLease> outermostFirst = stack.descendingIterator(); outermostFirst.hasNext(); ) {
            Lease lease = outermostFirst.next().lease;
            byLock.put(lease.lockName(), lease);
        }
        return List.copyOf(byLock.values());
    }

    public Lease lease() {
        return lease;
    }

    /** Where the guard and the commit of this call's transactions are reported for tracing. */
    LockedObservations observations() {
        return observations;
    }

    /** Whether a transaction fenced by this lease has begun and not yet completed. */
    boolean transactionOpen() {
        return transactionOpen;
    }

    /**
     * Records that a transaction of this lease was refused at commit, so that the refusal reaches
     * the caller even when the rollback that follows fails and the transaction manager throws that
     * failure instead (the server may already have ended a transaction that sat idle past the
     * lease).
     */
    void refusedAtCommit(FencedWriteRefusedException refusal) {
        refusedAtCommit = refusal;
    }

    /** The refusal recorded by {@link #refusedAtCommit}, if any. */
    Optional<FencedWriteRefusedException> refusalAtCommit() {
        return Optional.ofNullable(refusedAtCommit);
    }

    /** Whether a transaction manager is beginning a transaction on this thread now. */
    boolean beginning() {
        return beginning;
    }

    void beginning(boolean beginning) {
        this.beginning = beginning;
    }

    void transactionOpened() {
        transactionOpen = true;
        commitSent = false;
        commitFailure = null;
    }

    /** Whether the open (or last) transaction passed its lease check and went on to commit. */
    boolean commitSent() {
        return commitSent;
    }

    void commitSent(boolean sent) {
        commitSent = sent;
    }

    /** What failed the open (or last) transaction's flush before its commit, if anything. */
    Optional<RuntimeException> commitFailure() {
        return Optional.ofNullable(commitFailure);
    }

    void commitFailure(RuntimeException failure) {
        commitFailure = failure;
    }

    void transactionCompleted() {
        transactionOpen = false;
    }

    /**
     * Unbinds the lease from fencing-jpa while a read-only transaction begins, so that fencing-jpa
     * neither runs the guard in it (an UPDATE, which PostgreSQL refuses in a read-only transaction)
     * nor counts it as fenced: a fenced entity written in it is refused. Does nothing when fencing-jpa
     * is absent or another binding was made above this one. {@link #resumeJpaBinding} undoes it.
     */
    void suspendJpaBinding() throws Exception {
        if (jpaScope != null && JpaBinding.isInnermost(lease)) {
            jpaScope.close();
            jpaScope = null;
            jpaSuspended = true;
        }
    }

    /** Binds the lease for fencing-jpa again after {@link #suspendJpaBinding}; otherwise does nothing. */
    void resumeJpaBinding() {
        if (jpaSuspended) {
            jpaSuspended = false;
            jpaScope = JpaBinding.bind(lease);
        }
    }

    /** Ends this lease's turn as the thread's current one, and its fencing-jpa binding. */
    void close() {
        try {
            if (jpaScope != null) {
                jpaScope.close();
                jpaScope = null;
            }
        } catch (Exception e) {
            throw new IllegalStateException("Could not unbind the lease of lock '" + lease.lockName() + "'", e);
        } finally {
            Deque<ActiveLease> stack = CURRENT.get();
            stack.remove(this);
            if (stack.isEmpty()) {
                CURRENT.remove();
            }
        }
    }
}
