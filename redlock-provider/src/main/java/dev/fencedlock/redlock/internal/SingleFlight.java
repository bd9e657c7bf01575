package dev.fencedlock.redlock.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs one background task at a time on an executor: a request while the task runs (or is queued)
 * is dropped, as the running one answers it. For the topology lookups of {@link SentinelRedisNode}
 * and {@link ClusterRedisNode}, which many failed replies ask for at once. Thread-safe.
 */
final class SingleFlight {
    private final AtomicBoolean running = new AtomicBoolean();
    private final Executor executor;
    private final Runnable task;

    SingleFlight(Executor executor, Runnable task) {
        this.executor = executor;
        this.task = task;
    }

    /** Starts the task on the executor unless it is running; never blocks. A closed executor: no-op. */
    void request() {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        try {
            executor.execute(() -> {
                try {
                    task.run();
                } finally {
                    running.set(false);
                }
            });
        } catch (RejectedExecutionException e) {
            running.set(false);
        }
    }
}
