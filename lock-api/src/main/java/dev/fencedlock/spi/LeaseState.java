package dev.fencedlock.spi;

import dev.fencedlock.Lease;
import dev.fencedlock.LeaseLostException;
import dev.fencedlock.LeaseLostListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether one lease is held, until when it is valid, and who is told when it is lost.
 *
 * <p>A lease leaves {@link Phase#HELD} once, for {@link Phase#LOST} or {@link Phase#CLOSED}, and
 * never comes back. The loss is recorded once; a listener added before it is told once by whoever
 * recorded it, a listener added after it is told at once by the caller of {@link #addListener}.
 * Thread-safe.
 */
final class LeaseState {
    // the lease's own category, so that logging configured for leases covers what it logs
    private static final Logger log = LoggerFactory.getLogger(AbstractLease.class);

    enum Phase {
        HELD,
        LOST,
        CLOSED
    }

    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.HELD);
    private final Object listenerGuard = new Object();
    private final List<LeaseLostListener> listeners = new ArrayList<>(2); // guarded by listenerGuard
    private LeaseLostException loss; // guarded by listenerGuard
    private volatile long validUntilNanos;

    /** @param validUntilNanos when the grant stops being valid, on the runtime's monotonic clock */
    LeaseState(long validUntilNanos) {
        this.validUntilNanos = validUntilNanos;
    }

    Phase phase() {
        return phase.get();
    }

    boolean isHeld() {
        return phase.get() == Phase.HELD;
    }

    /** When validity ends, on the runtime's monotonic clock; meaningful while held. */
    long validUntilNanos() {
        return validUntilNanos;
    }

    void validUntilNanos(long nanos) {
        validUntilNanos = nanos;
    }

    /** Whether the lease is held and its validity has not ended at {@code nowNanos}. */
    boolean isValidAt(long nowNanos) {
        return isHeld() && nowNanos - validUntilNanos < 0;
    }

    /** Whether the lease is held but its validity ended by {@code nowNanos}: it is due to be lost. */
    boolean expiredAt(long nowNanos) {
        return isHeld() && nowNanos - validUntilNanos >= 0;
    }

    /** The validity left at {@code nowNanos}; zero once it ended or the lease is no longer held. */
    Duration remainingAt(long nowNanos) {
        long left = validUntilNanos - nowNanos;
        return isHeld() && left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    /** Moves a held lease to closed; false (nothing changes) if it was no longer held. */
    boolean closeIfHeld() {
        return phase.getAndUpdate(p -> p == Phase.HELD ? Phase.CLOSED : p) == Phase.HELD;
    }

    /**
     * Moves a held lease to lost; false if it was no longer held. The caller that gets true, and
     * only that one, then calls {@link #recordLoss}.
     */
    boolean beginLoss() {
        return phase.compareAndSet(Phase.HELD, Phase.LOST);
    }

    /** Records the loss and hands back the listeners to tell, none of whom is told by anyone else. */
    List<LeaseLostListener> recordLoss(LeaseLostException exception) {
        synchronized (listenerGuard) {
            loss = exception;
            List<LeaseLostListener> toTell = new ArrayList<>(listeners);
            listeners.clear();
            return toTell;
        }
    }

    /** The recorded loss; null while none is recorded (held, closed, or a loss being recorded). */
    LeaseLostException loss() {
        synchronized (listenerGuard) {
            return loss;
        }
    }

    /**
     * Keeps {@code listener} to be told of a loss, or, when the loss is already recorded, returns it
     * for the caller to tell the listener at once.
     *
     * @return the recorded loss, or null when the listener was kept
     */
    LeaseLostException addListener(LeaseLostListener listener) {
        synchronized (listenerGuard) {
            if (loss == null) {
                listeners.add(listener);
                return null;
            }
            return loss;
        }
    }

    /** Tells one listener; what it throws is logged, so that it cannot keep the others from hearing. */
    static void tell(LeaseLostListener listener, Lease lease, LeaseLostException exception) {
        try {
            listener.leaseLost(lease, exception);
        } catch (RuntimeException e) {
            log.error("Lease-lost listener for lock '{}' threw", lease.lockName(), e);
        }
    }
}
