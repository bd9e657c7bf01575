package dev.fencedlock.spi;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The order of one lease's backend calls. Each call starts after the previous one completed (an
 * asynchronous one: after its future completed, however it ended), in the order the calls were
 * asked for. The release is asked for at most once and is the last call: nothing is asked after
 * it. Thread-safe.
 */
final class BackendCalls {
    private final Object guard = new Object();
    private boolean releaseAsked; // guarded by guard
    private CompletableFuture<?> last = CompletableFuture.completedFuture(null); // guarded by guard

    /**
     * Runs {@code call} on the calling thread once every call asked for before it has completed.
     * What {@code call} throws propagates; the next call starts when it has returned or thrown.
     *
     * @return false, without running {@code call}, if the release was already asked for
     */
    boolean runInTurn(Runnable call) {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<?> previous;
        synchronized (guard) {
            if (releaseAsked) {
                return false;
            }
            previous = last;
            last = mine;
        }
        runAfter(previous, mine, call);
        return true;
    }

    /**
     * Starts {@code call} once every call asked for before it has completed, without waiting for
     * them: the returned future is the call's.
     *
     * @return the call's future, or null (the call never starts) if the release was already asked for
     */
    <T> CompletableFuture<T> startInTurn(Supplier<CompletableFuture<T>> call) {
        synchronized (guard) {
            if (releaseAsked) {
                return null;
            }
            CompletableFuture<T> next = last.handle((ignored, failure) -> null).thenCompose(ignored -> call.get());
            last = next;
            return next;
        }
    }

    /**
     * The release on the calling thread: asks for it, runs {@code afterAsking}, then runs {@code
     * release} once every earlier call has completed. If the release was already asked for, runs
     * nothing and returns once that release has completed.
     *
     * @return whether this call ran the release
     */
    boolean releaseInTurn(Runnable afterAsking, Runnable release) {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<?> previous;
        boolean asked;
        synchronized (guard) {
            previous = last;
            asked = !releaseAsked;
            if (asked) {
                releaseAsked = true;
                last = mine;
            }
        }
        afterAsking.run();
        if (!asked) {
            awaitQuietly(previous);
            return false;
        }
        runAfter(previous, mine, release);
        return true;
    }

    /**
     * The release without blocking: {@code release} starts once every earlier call has completed,
     * and {@code whenDone} is called with its failure (null if none) when it has. If the release was
     * already asked for, neither is called.
     *
     * @return a future that completes, normally, once the release (this one or the one asked before)
     *     has completed, however it ended
     */
    CompletableFuture<Void> releaseAsync(Supplier<CompletableFuture<Void>> release, Consumer<Throwable> whenDone) {
        synchronized (guard) {
            if (releaseAsked) {
                return last.handle((ignored, failure) -> null);
            }
            releaseAsked = true;
            CompletableFuture<Void> released = last.handle((ignored, failure) -> null)
                    .thenCompose(ignored -> release.get())
                    .handle((ignored, failure) -> {
                        whenDone.accept(failure);
                        return null;
                    });
            last = released;
            return released;
        }
    }

    /** Runs {@code call} once {@code previous} has completed, then completes {@code mine}, however it ended. */
    private static void runAfter(CompletableFuture<?> previous, CompletableFuture<Void> mine, Runnable call) {
        try {
            awaitQuietly(previous);
            call.run();
        } finally {
            mine.complete(null);
        }
    }

    /** Waits for a call to complete, however it ended; an interrupt is kept for the caller. */
    private static void awaitQuietly(CompletableFuture<?> call) {
        boolean interrupted = false;
        while (true) {
            try {
                call.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | CancellationException e) {
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
