package dev.fencedlock.shedlock.internal;

import dev.fencedlock.Lease;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's lease made the current thread's lease through the fencedlock Spring Boot starter's
 * {@code CurrentLease.bind}, when the starter is on the class path; nothing otherwise. Closing it
 * is idempotent and takes effect only on the thread that bound it (the starter's bindings are per
 * thread): closed from another thread it logs and leaves the binding, which then fences that
 * thread's later transactions with a lease that no longer holds, so they are refused rather than
 * written unfenced. Thread-safe.
 */
public final class ThreadLease implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ThreadLease.class);
    private static final boolean STARTER_PRESENT = isPresent("dev.fencedlock.spring.CurrentLease");
    private static final ThreadLease NONE = new ThreadLease(null, null);

    private final AutoCloseable binding;
    private final Thread owner;
    private boolean closed;

    private ThreadLease(AutoCloseable binding, Thread owner) {
        this.binding = binding;
        this.owner = owner;
    }

    /** Binds {@code lease} to the current thread if the starter is present. */
    public static ThreadLease bind(Lease lease) {
        if (!STARTER_PRESENT) {
            return NONE;
        }
        return new ThreadLease(StarterBinding.bind(lease), Thread.currentThread());
    }

    /** Ends the binding, on the thread that made it. */
    @Override
    public synchronized void close() {
        if (binding == null || closed) {
            return;
        }
        if (Thread.currentThread() != owner) {
            LOG.warn(
                    "A ShedLock lock was unlocked on thread {}, not on {} that took it; its lease stays that"
                            + " thread's current lease, so that thread's later fenced transactions are refused",
                    Thread.currentThread().getName(),
                    owner.getName());
            return;
        }
        closed = true;
        try {
            binding.close();
        } catch (Exception e) {
            throw new IllegalStateException("Ending the task's lease binding failed", e);
        }
    }

    private static boolean isPresent(String className) {
        try {
            Class.forName(className, false, ThreadLease.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
