package dev.fencedlock.spi;

import dev.fencedlock.Lease;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An acquisition run on another thread and given up after a time of the caller's choosing, without
 * leaking what it may still grant: a lease that arrives after the caller gave up is released at
 * once, on the attempt's thread. Used for the primary's attempt of a client with a fallback, so that
 * a silent primary costs the caller no more than what is left of its wait. Stateless.
 */
final class BoundedAttempt {
    private BoundedAttempt() {}

    /** One acquisition. */
    @FunctionalInterface
    interface Acquisition {
        Optional<Lease> run() throws InterruptedException;
    }

    /**
     * Runs {@code acquisition} on {@code executor} and waits at most {@code timeoutNanos} for it.
     *
     * @return what the acquisition returned
     * @throws TimeoutException if it had not returned by then; it is interrupted, and a lease it
     *     returns later is closed
     * @throws InterruptedException if the caller was interrupted while waiting (the attempt is given
     *     up the same way) or the acquisition was
     * @throws RuntimeException whatever the acquisition threw
     */
    static Optional<Lease> run(ExecutorService executor, Acquisition acquisition, long timeoutNanos)
            throws InterruptedException, TimeoutException {
        CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
        Future<?> task;
        try {
            task = executor.submit(() -> {
                try {
                    Optional<Lease> lease = acquisition.run();
                    if (!result.complete(lease)) {
                        Thread.interrupted(); // the caller's give-up interrupt must not fail the release
                        lease.ifPresent(Lease::close);
                    }
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("The LockClient is closed", e);
        }
        try {
            return result.get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            if (result.completeExceptionally(new CancellationException("given up"))) {
                task.cancel(true);
                throw e;
            }
            return settled(result);
        } catch (InterruptedException e) {
            if (result.completeExceptionally(new CancellationException("interrupted"))) {
                task.cancel(true);
            } else if (!result.isCompletedExceptionally()) {
                result.join().ifPresent(Lease::close);
            }
            throw e;
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        }
    }

    /** The outcome of an attempt that completed just as the caller gave up: taken as it is. */
    private static Optional<Lease> settled(CompletableFuture<Optional<Lease>> result) throws InterruptedException {
        try {
            return result.get();
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        }
    }

    private static RuntimeException rethrow(Throwable cause) throws InterruptedException {
        if (cause instanceof InterruptedException interrupted) {
            throw interrupted;
        }
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new IllegalStateException(cause);
    }
}
