package dev.fencedlock.internal.binding;

import dev.fencedlock.Lease;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease made the current thread's lease by every {@link ThreadLeaseBinder} on the class path
 * (with the fencedlock Spring Boot starter: its {@code CurrentLease}, so the thread's transactions
 * are fenced by the lease), or nothing when there is none. For integrations that take a lock in one
 * call and release it in another, on the thread that runs the work.
 *
 * <p>Closing is idempotent and takes effect only on the thread that bound it (the bindings are
 * per thread): closed from another thread it logs a warning and leaves the binding, which then
 * fences that thread's later transactions with a lease that no longer holds, so they are refused
 * rather than written unfenced. Thread-safe.
 *
 * <p>Not API: shared only with the friend modules fencedlock-shedlock, fencedlock-spring-integration
 * and fencedlock-spring-boot-starter.
 */
public final class ThreadLease implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ThreadLease.class);

    /** The binding of no lease: closing it does nothing. */
    public static final ThreadLease NONE = new ThreadLease(List.of(), null, null);

    private final List<AutoCloseable> bindings;
    private final Lease lease;
    private final Thread owner;
    private boolean closed; // guarded by this

    private ThreadLease(List<AutoCloseable> bindings, Lease lease, Thread owner) {
        this.bindings = bindings;
        this.lease = lease;
        this.owner = owner;
    }

    /**
     * Makes {@code lease} the current thread's lease through every binder found; {@link #NONE}
     * when there is none.
     *
     * @throws NullPointerException if {@code lease} is null
     */
    public static ThreadLease bind(Lease lease) {
        Objects.requireNonNull(lease, "lease");
        List<ThreadLeaseBinder> binders = Binders.ALL;
        if (binders.isEmpty()) {
            return NONE;
        }
        return new ThreadLease(
                binders.stream().map(binder -> binder.bind(lease)).collect(Collectors.toList()),
                lease,
                Thread.currentThread());
    }

    /**
     * Ends the binding, on the thread that made it; a later call does nothing.
     *
     * @throws IllegalStateException if a binder failed to end its binding
     */
    @Override
    public synchronized void close() {
        if (bindings.isEmpty() || closed) {
            return;
        }
        if (Thread.currentThread() != owner) {
            LOG.warn(
                    "The binding of lock '{}' (token {}) was closed on thread {}, not on {} that made it; its lease"
                            + " stays that thread's current lease, so that thread's later fenced transactions are"
                            + " refused",
                    lease.lockName(),
                    lease.token(),
                    Thread.currentThread().getName(),
                    owner.getName());
            return;
        }
        closed = true;
        for (int i = bindings.size() - 1; i >= 0; i--) {
            try {
                bindings.get(i).close();
            } catch (Exception e) {
                throw new IllegalStateException(
                        "Ending the thread binding of lock '" + lease.lockName() + "' failed", e);
            }
        }
    }

    /** The binders on the class path, found once. */
    private static final class Binders {
        static final List<ThreadLeaseBinder> ALL =
                ServiceLoader.load(ThreadLeaseBinder.class, ThreadLease.class.getClassLoader()).stream()
                        .map(ServiceLoader.Provider::get)
                        .collect(Collectors.toUnmodifiableList());
    }
}
