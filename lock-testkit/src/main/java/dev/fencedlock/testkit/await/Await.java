package dev.fencedlock.testkit.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Waiting in tests, always with an upper bound that fails the test when reached, never a fixed
 * sleep before a check. Prefer a latch or a watch counted down by the event itself ({@link
 * #latch}); poll ({@link #until}) only where the system offers no event, e.g. a server's status
 * report. The bound is a deadline for something that must happen, not a performance target: make it
 * generous, a loaded CI machine is slow.
 *
 * <p>Stateless and thread-safe. Failures are {@link AssertionError}s naming what was awaited and,
 * for polls, the last value seen.
 */
public final class Await {
    /** Pause between two polls. */
    static final Duration POLL_INTERVAL = Duration.ofMillis(50);

    private Await() {}

    /**
     * Waits until {@code latch} reaches zero.
     *
     * @param what what the latch stands for, for the failure message
     * @throws AssertionError if it does not within {@code timeout}
     */
    public static void latch(CountDownLatch latch, Duration timeout, String what) throws InterruptedException {
        if (!latch.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new AssertionError(what + " did not happen within " + timeout + " (" + latch.getCount() + " left)");
        }
    }

    /**
     * Polls {@code condition} until it holds.
     *
     * @throws AssertionError if it does not within {@code timeout}
     */
    public static void until(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        value(what, timeout, condition::getAsBoolean, Boolean::booleanValue);
    }

    /**
     * Polls {@code supplier} until its value satisfies {@code accepted}, and returns that value.
     *
     * @throws AssertionError if no value is accepted within {@code timeout}; the message carries the
     *     last value seen
     */
    public static <T> T value(String what, Duration timeout, Supplier<T> supplier, Predicate<? super T> accepted)
            throws InterruptedException {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative, got " + timeout);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            T value = supplier.get();
            if (accepted.test(value)) {
                return value;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(what + " within " + timeout + "; last seen: " + value);
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(left, POLL_INTERVAL.toNanos()));
        }
    }
}
