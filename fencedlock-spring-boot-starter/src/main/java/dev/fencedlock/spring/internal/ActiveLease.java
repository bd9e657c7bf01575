package dev.fencedlock.spring.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.FencedWriteRefusedException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The lease a locked call runs under on the current thread, and whether one of the transactions it
 * fences is still open. Confined to one thread: the transaction machinery that reads it runs on the
 * thread that began the transaction.
 */
public final class ActiveLease {
    private static final ThreadLocal<Deque<ActiveLease>> CURRENT = ThreadLocal.withInitial(ArrayDeque::new);

    private final Lease lease;
    private boolean transactionOpen;
    private FencedWriteRefusedException refusedAtCommit;

    private ActiveLease(Lease lease) {
        this.lease = lease;
    }

    /** Makes {@code lease} the current thread's lease until {@link #close()}; calls nest. */
    static ActiveLease push(Lease lease) {
        ActiveLease active = new ActiveLease(lease);
        CURRENT.get().push(active);
        return active;
    }

    /**
     * Makes {@code lease} current and bound for fencing-jpa's entity stamping until the returned
     * handle is closed, on this thread; for {@link dev.fencedlock.spring.CurrentLease#bind}.
     */
    public static AutoCloseable bind(Lease lease) {
        ActiveLease active = push(lease);
        AutoCloseable jpa;
        try {
            jpa = JpaBinding.PRESENT ? JpaBinding.bind(lease) : null;
        } catch (RuntimeException | Error e) {
            active.close();
            throw e;
        }
        return () -> {
            try {
                if (jpa != null) {
                    jpa.close();
                }
            } finally {
                active.close();
            }
        };
    }

    /** The innermost lease of a locked call running on this thread; empty outside any. */
    public static Optional<ActiveLease> current() {
        return Optional.ofNullable(CURRENT.get().peek());
    }

    public Lease lease() {
        return lease;
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

    void transactionOpened() {
        transactionOpen = true;
    }

    void transactionCompleted() {
        transactionOpen = false;
    }

    /** Ends this lease's turn as the thread's current one. */
    void close() {
        Deque<ActiveLease> stack = CURRENT.get();
        stack.remove(this);
        if (stack.isEmpty()) {
            CURRENT.remove();
        }
    }
}
