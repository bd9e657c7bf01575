package dev.fencedlock;

import java.time.Duration;

/**
 * One grant of a {@link FencedLock}, carrying the fencing token that makes it safe.
 *
 * <p>A lock alone cannot protect shared data. A holder can stop (a GC pause, swapping, a slow
 * network) for longer than its lease, another client is granted the lock, and both write:
 *
 * <pre>
 *   client 1  |--acquire(token 33)--.....GC pause.............--write(33)--|   refused: 33 &lt; 34
 *   client 2  |               lease 33 expires  --acquire(token 34)--write(34)--|
 *   storage   |                                      accepts 34, then refuses 33
 * </pre>
 *
 * <p>Every grant of the same lock name gets a larger token than any earlier grant: for two grants
 * where the second began after the first was granted, {@code token2 > token1}. Storage that
 * remembers the largest token it has seen and refuses writes carrying a smaller one keeps the data
 * right even when the lock itself failed. {@code fencing-jpa} does this for JPA entities.
 *
 * <p>Leases from {@link FencedLock#acquire(Duration)} renew themselves in the background at about a
 * third of the lease time until closed; a renewal that finds the lock gone, or a lease whose
 * validity runs out because renewals kept failing, is lost. Leases from {@link
 * FencedLock#acquire(Duration, Duration)} are fixed and simply expire.
 *
 * <p>Thread-safety: all methods may be called from any thread. A lease is not reentrant and is not
 * tied to the thread that acquired it.
 */
public interface Lease extends AutoCloseable {

    /** The name of the lock this lease was granted on. */
    String lockName();

    /**
     * The backend that granted this lease, e.g. {@code redlock}: the {@code fencedlock.fallback}
     * backend's name when the fallback granted it. {@code unknown} for leases of a provider that
     * does not say.
     */
    default String backend() {
        return "unknown";
    }

    /**
     * The fencing token of this grant, strictly larger than the token of every earlier grant of
     * the same lock name. Stays readable after the lease is lost or closed.
     */
    long token();

    /**
     * Whether the lease is still held as far as this client can tell: not closed, not reported
     * lost, and its validity (measured on the monotonic clock, minus the backend's drift allowance)
     * has not run out. A {@code true} is a belief, not a guarantee (the process may pause right
     * after); only the fencing token protects a write.
     */
    boolean isValid();

    /** How much validity is left; {@link Duration#ZERO} once the lease is no longer valid. */
    Duration remaining();

    /**
     * Extends the lease so that it stays valid for {@code leaseTime} from now (less the backend's
     * drift allowance; see {@link #leaseTimeFor}). A time shorter than what is left moves the end
     * earlier: the lease is lost then, {@link #onLost} listeners are told then and the backend
     * frees the lock then, not at the old end. On an auto-renewing lease, later renewals go back to
     * the configured lease time, and the next one comes before the new end.
     *
     * @throws IllegalArgumentException if {@code leaseTime} is null, zero or negative, or no longer
     *     than the backend's drift allowance (the message names the backend's smallest lease)
     * @throws LeaseLostException if the lease is no longer held (closed, expired, or taken over);
     *     the lease is then marked lost
     * @throws LockUnavailableException if the backend could not answer; the lease keeps its
     *     current validity and may still be extended later
     */
    void extend(Duration leaseTime);

    /**
     * The lease time to pass to {@link #extend} so that this lease stays valid for at least {@code
     * validity} from the call, if the backend answers at once: {@code validity} plus whatever the
     * backend takes off a lease's validity (Redlock's and the jdbc backend's clock-drift allowance,
     * 1% plus 2 ms by default). Use it where a lease must cover a given time exactly, such as a
     * lock kept until a deadline. The default returns {@code validity}.
     */
    default Duration leaseTimeFor(Duration validity) {
        return validity;
    }

    /**
     * Registers a listener told exactly once when this lease is lost (expired, renewal failed, or
     * the backend reported the loss). A listener registered after the loss is told at once on the
     * calling thread. Closing the lease is not a loss: listeners are not told about it.
     */
    void onLost(LeaseLostListener listener);

    /**
     * Releases the lock if this lease still holds it and stops any renewal; no renewal runs after
     * close returns. Idempotent. Releasing a lease that has already expired never touches the
     * lock of a later holder. A release that cannot reach the backend is logged, not thrown: the
     * lock then frees itself when the lease time passes.
     */
    @Override
    void close();
}
